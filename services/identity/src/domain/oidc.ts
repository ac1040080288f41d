import { fetch as undiciFetch } from 'undici';
import type * as OpenId from 'openid-client' with { 'resolution-mode': 'import' };
import type { Configuration, IDToken } from 'openid-client' with { 'resolution-mode': 'import' };
import { outboundDispatcher, OutboundPolicy } from '@bulwark/platform';

/** The single sign-on settings as stored (the wire names of PUT /sso/settings), without the client secret. */
export interface SsoSettings {
  enabled: boolean;
  issuer: string | null;
  client_id: string | null;
  redirect_uri: string | null;
  scopes: string[];
  groups_claim: string;
  role_mapping: Record<string, string[]>;
  allowed_email_domains: string[];
  allow_insecure_http: boolean;
  ca_certificate: string | null;
}

/** Settings with what sign-on cannot go without; SingleSignOn uses none before it is complete. */
export type CompleteSsoSettings = SsoSettings & { issuer: string; client_id: string; redirect_uri: string };

export const SSO_DEFAULTS: SsoSettings = {
  enabled: false,
  issuer: null,
  client_id: null,
  redirect_uri: null,
  scopes: ['openid', 'profile', 'email'],
  groups_claim: 'groups',
  role_mapping: {},
  allowed_email_domains: [],
  allow_insecure_http: false,
  ca_certificate: null,
};

/**
 * The roles whose mapping changed between two role mappings: each role a group claim value gains or
 * loses. A change hands the role to (or takes it from) everyone of that group at their next sign-on.
 */
export function changedMappedRoles(before: Record<string, string[]>, after: Record<string, string[]>): string[] {
  // Keyed by group and role: the same role under another group claim value is another grant.
  const pairs = (m: Record<string, string[]>) =>
    new Map(Object.entries(m).flatMap(([group, roles]) => roles.map((r) => [`${group}\u0000${r}`, r] as const)));
  const was = pairs(before);
  const is = pairs(after);
  const changed = [...was].filter(([k]) => !is.has(k)).concat([...is].filter(([k]) => !was.has(k)));
  return [...new Set(changed.map(([, role]) => role))].sort();
}

/** What the browser is sent to, and what must be kept (server side) to check the way back. */
export interface AuthorizationStart {
  url: string;
  state: string;
  nonce: string;
  codeVerifier: string;
}

export interface SsoPerson {
  subject: string;
  issuer: string;
  username: string;
  displayName: string | null;
  email: string | null;
  emailVerified: boolean;
  groups: string[];
}

/** The provider could not be reached or answered nonsense: a 503, not the person's fault. */
export class ProviderUnavailable extends Error {}

/** The way back does not check out (state, code, issuer, nonce, signature): a 401, nothing created. */
export class SsoRefusal extends Error {}

// openid-client is an ES module only: loaded once, on first use.
type OpenIdClient = typeof OpenId;
let library: Promise<OpenIdClient> | undefined;
const openid = () => (library ??= import('openid-client'));

const DISCOVERY_REUSE_MS = 60_000;

const stringArray = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : typeof v === 'string' ? [v] : [];

/**
 * The OpenID Connect relying party: authorization code flow with PKCE (S256), state and nonce.
 * Every request to the issuer goes through the outbound address policy.
 */
export class OidcClient {
  private discovered: { key: string; at: number; config: Configuration } | undefined;

  constructor(private readonly policy: OutboundPolicy) {}

  /** The issuer's configuration (discovery), reused for a minute while the settings stay the same: /sso/allowed stays truthful. */
  private async configuration(settings: CompleteSsoSettings, secret: string, version: string): Promise<Configuration> {
    if (this.discovered?.key === version && Date.now() - this.discovered.at < DISCOVERY_REUSE_MS)
      return this.discovered.config;
    const lib = await openid();
    const dispatcher = outboundDispatcher(this.policy, { ca: settings.ca_certificate ?? undefined });
    const customFetch = ((url: string, options: Parameters<typeof undiciFetch>[1]) =>
      undiciFetch(url, { ...options, dispatcher })) as unknown as NonNullable<
      NonNullable<Parameters<typeof lib.discovery>[4]>[typeof lib.customFetch]
    >;
    try {
      const config = await lib.discovery(new URL(settings.issuer), settings.client_id, secret, undefined, {
        execute: settings.allow_insecure_http ? [lib.allowInsecureRequests] : [],
        [lib.customFetch]: customFetch,
        timeout: 10,
      });
      config[lib.customFetch] = customFetch;
      this.discovered = { key: version, at: Date.now(), config };
      return config;
    } catch (err) {
      throw new ProviderUnavailable(
        `The identity provider could not be reached or its discovery failed: ${(err as Error).message}`,
      );
    }
  }

  /** Whether the issuer's discovery document answers. */
  async reachable(settings: CompleteSsoSettings, secret: string, version: string): Promise<boolean> {
    return this.configuration(settings, secret, version).then(
      () => true,
      () => false,
    );
  }

  async start(settings: CompleteSsoSettings, secret: string, version: string): Promise<AuthorizationStart> {
    const config = await this.configuration(settings, secret, version);
    const lib = await openid();
    const codeVerifier = lib.randomPKCECodeVerifier();
    const state = lib.randomState();
    const nonce = lib.randomNonce();
    const scope = [...new Set(['openid', ...settings.scopes])].join(' ');
    const url = lib.buildAuthorizationUrl(config, {
      redirect_uri: settings.redirect_uri,
      scope,
      state,
      nonce,
      code_challenge: await lib.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
    });
    return { url: url.href, state, nonce, codeVerifier };
  }

  /** Exchanges the code of the callback URL and reads the person from the checked ID token (and userinfo). */
  async finish(
    settings: CompleteSsoSettings,
    secret: string,
    version: string,
    callbackUrl: URL,
    pending: { state: string; nonce: string; codeVerifier: string },
  ): Promise<SsoPerson> {
    const config = await this.configuration(settings, secret, version);
    const lib = await openid();
    let claims: IDToken;
    let accessToken: string;
    try {
      const tokens = await lib.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: pending.codeVerifier,
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
      const idToken = tokens.claims();
      // idTokenExpected makes the grant refuse a response without one; checked so the type knows.
      if (!idToken) throw new Error('the provider returned no ID token');
      claims = idToken;
      accessToken = tokens.access_token;
    } catch (err) {
      throw new SsoRefusal(`Single sign-on refused: ${(err as Error).message}`);
    }
    let info: Record<string, unknown> = {};
    if (claims[settings.groups_claim] === undefined || claims.email === undefined) {
      info = await lib.fetchUserInfo(config, accessToken, claims.sub).catch(() => ({}));
    }
    const pick = (name: string) => claims[name] ?? info[name];
    const email = typeof pick('email') === 'string' ? (pick('email') as string) : null;
    const preferred = pick('preferred_username');
    return {
      subject: claims.sub,
      issuer: claims.iss,
      username: typeof preferred === 'string' && preferred ? preferred : (email ?? claims.sub),
      displayName: typeof pick('name') === 'string' ? (pick('name') as string) : null,
      email,
      emailVerified: pick('email_verified') === true,
      groups: stringArray(pick(settings.groups_claim)),
    };
  }
}
