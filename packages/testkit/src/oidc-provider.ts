import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';

/** A person the test provider knows: the login name is the subject. */
export interface OidcPerson {
  email: string;
  name: string;
  groups: string[];
  emailVerified?: boolean;
}

export interface OidcClientRegistration {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}

export interface TestOidcProvider {
  issuer: string;
  client: OidcClientRegistration;
  /**
   * Plays the browser from a URL of the provider (the Location of GET /api/v1/sso/login) through
   * its login and consent pages as `login`, and answers the URL it finally sends the browser back to.
   */
  signIn(authorizationUrl: string, login: string): Promise<string>;
  stop(): Promise<void>;
}

/**
 * A real OpenID Connect provider (the `oidc-provider` package) on 127.0.0.1, for the single sign-on
 * tests: authorization code flow with PKCE required, its own development login page (any password),
 * the `groups` claim from the people given.
 */
export async function startOidcProvider(
  people: Record<string, OidcPerson>,
  redirectUri: string,
): Promise<TestOidcProvider> {
  const { default: Provider } = await import('oidc-provider');
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = { clientId: 'bulwark', clientSecret: randomBytes(24).toString('hex'), redirectUri };
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: client.clientId,
        client_secret: client.clientSecret,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    pkce: { required: () => true },
    claims: {
      openid: ['sub'],
      email: ['email', 'email_verified'],
      profile: ['name', 'preferred_username'],
      groups: ['groups'],
    },
    scopes: ['openid', 'email', 'profile', 'groups'],
    cookies: { keys: [randomBytes(16).toString('hex')] },
    findAccount: async (_ctx: unknown, id: string) => {
      const person = people[id];
      if (!person) return undefined;
      return {
        accountId: id,
        claims: async () => ({
          sub: id,
          preferred_username: id,
          name: person.name,
          email: person.email,
          email_verified: person.emailVerified ?? true,
          groups: person.groups,
        }),
      };
    },
  });
  server.on('request', provider.callback());

  async function signIn(authorizationUrl: string, login: string): Promise<string> {
    const cookies = new Map<string, string>();
    const remember = (res: Response) => {
      for (const line of res.headers.getSetCookie()) {
        const [pair] = line.split(';');
        const eq = pair.indexOf('=');
        cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
      }
    };
    const cookieHeader = () => [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    let url = authorizationUrl;
    for (let step = 0; step < 12; step++) {
      if (!url.startsWith(issuer)) return url;
      let res = await fetch(url, { redirect: 'manual', headers: { cookie: cookieHeader() } });
      remember(res);
      if (res.status === 200) {
        const page = await res.text();
        const prompt = /name="prompt" value="(\w+)"/.exec(page)?.[1];
        const action = /action="([^"]+)"/.exec(page)?.[1];
        if (!prompt || !action) throw new Error(`the provider answered a page without a form: ${page.slice(0, 300)}`);
        const form = new URLSearchParams(prompt === 'login' ? { prompt, login, password: 'any' } : { prompt });
        res = await fetch(new URL(action.replace(/&amp;/g, '&'), issuer), {
          method: 'POST',
          redirect: 'manual',
          body: form,
          headers: { cookie: cookieHeader(), 'content-type': 'application/x-www-form-urlencoded' },
        });
        remember(res);
      }
      const next = res.headers.get('location');
      if (!next)
        throw new Error(`the provider answered ${res.status} without a redirect: ${(await res.text()).slice(0, 300)}`);
      url = new URL(next, issuer).href;
    }
    throw new Error('the provider did not send the browser back within 12 steps');
  }

  return {
    issuer,
    client,
    signIn,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
