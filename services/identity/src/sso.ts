import {
  AppError,
  assertCredentialStaysWith,
  conflict,
  FieldProblem,
  invalid,
  Logger,
  Principal,
  SecretBox,
  ServiceData,
} from '@bulwark/platform';
import type { IdentityConfig } from './config';
import {
  changedMappedRoles,
  OidcClient,
  ProviderUnavailable,
  SSO_DEFAULTS,
  SsoPerson,
  SsoRefusal,
  SsoSettings,
} from './domain/oidc';
import { EscalationGuard } from './escalation-guard';
import { loginSettingsStore } from './store/login-settings';
import { roleStore } from './store/roles';
import { ssoPendingStore } from './store/sso-pending';

export type SsoSettingsPatch = Partial<SsoSettings> & { client_secret?: string };

/** How long a sign-on may take between GET /sso/login and its callback. */
const PENDING_SECONDS = 600;

export interface SsoCallbackQuery {
  code?: string;
  state?: string;
  iss?: string;
  session_state?: string;
  error?: string;
  error_description?: string;
  [providerParameter: string]: string | undefined;
}

/**
 * Single sign-on (OIDC) settings and the sign-on itself. Settings live in identity's database
 * (SSO_* variables seed them until the first PUT); the client secret is sealed with the master key.
 */
export class SingleSignOn {
  constructor(
    private readonly deps: {
      data: ServiceData;
      secrets: SecretBox;
      oidc: OidcClient;
      config: IdentityConfig;
      log: Logger;
    },
  ) {}

  private seeded(): { settings: SsoSettings; secret: string | null } {
    const c = this.deps.config;
    return {
      settings: {
        ...SSO_DEFAULTS,
        enabled: Boolean(c.SSO_ISSUER_URL && c.SSO_CLIENT_ID && c.SSO_CLIENT_SECRET && c.SSO_REDIRECT_URI),
        issuer: c.SSO_ISSUER_URL ?? null,
        client_id: c.SSO_CLIENT_ID ?? null,
        redirect_uri: c.SSO_REDIRECT_URI ?? null,
      },
      secret: c.SSO_CLIENT_SECRET ?? null,
    };
  }

  private async current(): Promise<{ settings: SsoSettings; secret: string | null; updatedAt: string | null }> {
    const stored = await loginSettingsStore.get(this.deps.data.db, 'sso');
    if (!stored) return { ...this.seeded(), updatedAt: null };
    return {
      settings: { ...SSO_DEFAULTS, ...(stored.settings as Partial<SsoSettings>) },
      secret: stored.secretSealed ? this.deps.secrets.open(stored.secretSealed) : null,
      updatedAt: stored.updatedAt,
    };
  }

  private static missing(s: SsoSettings, secret: string | null): FieldProblem[] {
    const required = { issuer: s.issuer, client_id: s.client_id, client_secret: secret, redirect_uri: s.redirect_uri };
    return Object.entries(required)
      .filter(([, v]) => !v)
      .map(([field]) => ({ field, problem: 'is required to enable single sign-on' }));
  }

  private view(c: { settings: SsoSettings; secret: string | null; updatedAt: string | null }) {
    return {
      ...c.settings,
      client_secret_set: Boolean(c.secret),
      complete: SingleSignOn.missing(c.settings, c.secret).length === 0,
      updated_at: c.updatedAt,
    };
  }

  async getSettings() {
    return this.view(await this.current());
  }

  /** A change of role_mapping grants the roles it maps: the caller must hold each role gained or lost (the escalation rule). */
  async updateSettings(principal: Principal, patch: SsoSettingsPatch) {
    const { client_secret: newSecret, ...fields } = patch;
    const before = await this.current();
    const settings: SsoSettings = { ...before.settings, ...fields };
    const secret = newSecret ?? before.secret;
    // The stored client secret goes only to the provider it was stored for.
    if (newSecret === undefined && before.secret && settings.issuer && settings.issuer !== before.settings.issuer)
      assertCredentialStaysWith(before.settings.issuer ?? [], settings.issuer, 'issuer');
    for (const field of ['issuer', 'redirect_uri'] as const) {
      const value = settings[field];
      if (value && !URL.canParse(value))
        throw invalid(`Invalid ${field}: not a URL`, [{ field, problem: 'is not a URL' }]);
    }
    if (settings.issuer?.startsWith('http:') && !settings.allow_insecure_http) {
      throw invalid('Invalid issuer: http:// needs allow_insecure_http', [
        { field: 'issuer', problem: 'must be https:// unless allow_insecure_http is true' },
      ]);
    }
    const codes = [...new Set(Object.values(settings.role_mapping).flat())];
    const known = await roleStore.existing(this.deps.data.db, codes);
    const unknown = codes.filter((c) => !known.has(c));
    if (unknown.length > 0)
      throw invalid(
        `Unknown role codes in role_mapping: ${unknown.join(', ')}`,
        unknown.map((c) => ({ field: 'role_mapping', problem: `unknown role code "${c}"` })),
      );
    const missing = SingleSignOn.missing(settings, secret);
    if (settings.enabled && missing.length > 0)
      throw invalid(`Single sign-on cannot be enabled: ${missing.map((p) => p.field).join(', ')} missing`, missing);
    const remapped = changedMappedRoles(before.settings.role_mapping, settings.role_mapping);
    await this.deps.data.transaction(async (trx) => {
      if (remapped.length > 0) await (await EscalationGuard.of(trx, principal)).grantRoles(remapped);
      await loginSettingsStore.put(trx, 'sso', { ...settings }, secret ? this.deps.secrets.seal(secret) : null);
    });
    this.deps.log.info('sso settings changed', { fields: Object.keys(patch), enabled: settings.enabled });
    return this.getSettings();
  }

  /** The settings and secret when sign-on is enabled and nothing is missing (SingleSignOn.missing's fields). */
  private static complete(c: { settings: SsoSettings; secret: string | null }) {
    const { issuer, client_id, redirect_uri } = c.settings;
    if (!c.settings.enabled || !issuer || !client_id || !redirect_uri || !c.secret) return undefined;
    return { settings: { ...c.settings, issuer, client_id, redirect_uri }, secret: c.secret };
  }

  private async usable() {
    const c = await this.current();
    const complete = SingleSignOn.complete(c);
    if (!complete) throw conflict('Single sign-on is not enabled');
    return { ...complete, version: c.updatedAt ?? 'seeded' };
  }

  /** Enabled, complete, and the issuer's discovery document answers. */
  async allowed(): Promise<boolean> {
    const c = await this.current();
    const complete = SingleSignOn.complete(c);
    if (!complete) return false;
    return this.deps.oidc.reachable(complete.settings, complete.secret, c.updatedAt ?? 'seeded');
  }

  /** Where to send the browser; the state, nonce and PKCE verifier stay here until the callback. */
  async start(): Promise<string> {
    const { settings, secret, version } = await this.usable();
    const started = await this.deps.oidc.start(settings, secret, version).catch((err) => {
      if (err instanceof ProviderUnavailable) throw new AppError('unavailable', err.message);
      throw err;
    });
    await this.deps.data.transaction((trx) => ssoPendingStore.insert(trx, started));
    return started.url;
  }

  /** The person the provider vouches for, checked against state, nonce, PKCE, issuer and the allowed e-mail domains. */
  async finish(query: SsoCallbackQuery): Promise<{ person: SsoPerson; granted: string[]; bound: string[] }> {
    const { settings, secret, version } = await this.usable();
    if (query.error)
      throw new AppError(
        'unauthenticated',
        `The identity provider refused: ${query.error}${query.error_description ? ` (${query.error_description})` : ''}`,
      );
    const { state } = query;
    const problems: FieldProblem[] = [];
    if (!state) problems.push({ field: 'state', problem: 'is required' });
    if (!query.code) problems.push({ field: 'code', problem: 'is required' });
    if (problems.length > 0 || !state)
      throw invalid(`Invalid callback: ${problems.map((p) => p.field).join(', ')} missing`, problems);
    const pending = await this.deps.data.transaction((trx) => ssoPendingStore.take(trx, state, PENDING_SECONDS));
    if (!pending)
      throw new AppError(
        'unauthenticated',
        'Unknown, expired or already used state: start again at GET /api/v1/sso/login',
      );
    const callback = new URL(settings.redirect_uri);
    for (const [k, v] of Object.entries(query)) if (typeof v === 'string') callback.searchParams.set(k, v);
    let person: SsoPerson;
    try {
      person = await this.deps.oidc.finish(settings, secret, version, callback, pending);
    } catch (err) {
      if (err instanceof SsoRefusal) {
        this.deps.log.warn('single sign-on refused', { reason: err.message });
        throw new AppError('unauthenticated', err.message);
      }
      if (err instanceof ProviderUnavailable) throw new AppError('unavailable', err.message);
      throw err;
    }
    if (settings.allowed_email_domains.length > 0) {
      const domain = person.email?.split('@').pop()?.toLowerCase();
      if (!person.emailVerified || !domain || !settings.allowed_email_domains.includes(domain)) {
        throw new AppError(
          'forbidden',
          'Single sign-on refused: the e-mail address is not verified or not in an allowed domain',
        );
      }
    }
    const groups = new Set(person.groups);
    const granted = Object.entries(settings.role_mapping)
      .filter(([group]) => groups.has(group))
      .flatMap(([, roles]) => roles);
    return { person, granted: [...new Set(granted)], bound: [...new Set(Object.values(settings.role_mapping).flat())] };
  }
}
