import { expect } from 'chai';
import {
  ADMIN_PASSWORD,
  startOidcProvider,
  SystemUnderTest,
  TestOidcProvider,
  uniqueSuffix,
  type Json,
} from '@bulwark/testkit';

/**
 * Single sign-on through a real OpenID Connect provider (oidc-provider) on 127.0.0.1, the whole
 * redirect flow driven over HTTP: the gateway's GET /sso/login, the provider's login and consent
 * pages, and the gateway's callback.
 */
export function ssoSuite(t: SystemUnderTest): void {
  let provider: TestOidcProvider;
  let appsec: string;
  const run = uniqueSuffix();
  // Login names unique to this run: the provider's subjects become Bulwark usernames.
  const olivia = `olivia${run}`;
  const nina = `nina${run}`;
  const mallory = `mallory${run}`;
  const pat = `pat${run}`;
  const gina = `gina${run}`;

  const put = (body: Record<string, unknown>) => t.admin.put('/api/v1/sso/settings', body);
  const gateway = () => t.anon.baseUrl;
  const startLogin = async () => {
    const res = await fetch(`${gateway()}/api/v1/sso/login`, { redirect: 'manual' });
    expect(res.status, await res.clone().text()).to.equal(302);
    return res.headers.get('location')!;
  };
  const callback = async (url: string) => {
    const res = await fetch(url, { redirect: 'manual' });
    return { status: res.status, body: (await res.json()) as { access_token?: string; error?: { message: string } } };
  };
  const usersNamed = async (username: string) =>
    (await t.admin.get(`/api/v1/users?search[username]=${encodeURIComponent(username)}&filter[with_deleted]=true`)).body
      .items.length as number;

  before(async () => {
    provider = await startOidcProvider(
      {
        [olivia]: { email: `${olivia}@corp.test`, name: 'Olivia Owner', groups: ['appsec', 'everyone'] },
        [nina]: { email: `${nina}@corp.test`, name: 'Nina New', groups: ['appsec'] },
        [mallory]: { email: `${mallory}@elsewhere.test`, name: 'Mallory', groups: ['appsec'] },
        [pat]: { email: `${pat}@corp.test`, name: 'Pat Local', groups: [] },
        [gina]: { email: `${gina}@corp.test`, name: 'Gina Group', groups: [`Platform-${run}`] },
      },
      `${gateway()}/api/v1/sso/callback`,
    );
    appsec = `sso_${run}`;
    const role = await t.admin.post('/api/v1/role', {
      role_code: appsec,
      role_name: 'AppSec',
      roles: { 'catalog.sources': ['r'] },
    });
    expect(role.status, JSON.stringify(role.body)).to.equal(200);
  });

  after(async () => {
    await put({ enabled: false });
    await provider?.stop();
  });

  const complete = () => ({
    enabled: true,
    issuer: provider.issuer,
    allow_insecure_http: true,
    client_id: provider.client.clientId,
    client_secret: provider.client.clientSecret,
    redirect_uri: provider.client.redirectUri,
    scopes: ['openid', 'email', 'profile', 'groups'],
    groups_claim: 'groups',
    role_mapping: { appsec: [appsec] },
    allowed_email_domains: [],
  });

  describe('settings', () => {
    it('are in the OpenAPI document; the login answers a redirect, the callback the login JSON', async () => {
      const doc = (await t.anon.get('/api/v1/swagger/doc.json')).body;
      expect(doc.paths['/api/v1/sso/settings'].put['x-permission']).to.deep.equal({
        key: 'settings.authentication',
        letter: 'w',
        project_scope: 'unscoped',
      });
      expect(doc.paths['/api/v1/sso/login'].get.responses).to.have.property('302').and.not.to.have.property('200');
      expect(doc.paths['/api/v1/sso/callback'].get.responses['200'].content['application/json'].schema.$ref).to.equal(
        '#/components/schemas/LoginResponse',
      );
      expect(doc.components.schemas.SsoSettings.properties).not.to.have.property('client_secret');
    });

    it('refuses incomplete settings, an http issuer without allow_insecure_http and unknown role codes, naming the field', async () => {
      const fields = async (body: Record<string, unknown>) => {
        const res = await put(body);
        expect(res.status, JSON.stringify(res.body)).to.equal(400);
        return res.body.error.details.map((d: { field: string }) => d.field);
      };
      expect(await fields({ enabled: true, issuer: 'https://login.example.com' })).to.include.members([
        'client_id',
        'client_secret',
        'redirect_uri',
      ]);
      expect(await fields({ ...complete(), allow_insecure_http: false })).to.include('issuer');
      expect(await fields({ ...complete(), role_mapping: { appsec: ['no_such_role'] } })).to.include('role_mapping');
      expect(await fields({ ...complete(), issuer: 'not a url' })).to.include('issuer');
      expect((await t.anon.get('/api/v1/sso/allowed')).body).to.deep.equal({ allowed: false });
    });

    it('saves complete settings, seals the client secret and never returns it; allowed once discovery answers', async () => {
      const res = await put(complete());
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.include({ enabled: true, complete: true, client_secret_set: true });
      const got = await t.admin.get('/api/v1/sso/settings');
      expect(JSON.stringify(got.body)).not.to.contain(provider.client.clientSecret);
      expect((await t.anon.get('/api/v1/sso/allowed')).body).to.deep.equal({ allowed: true });
    });
  });

  describe('the stored client secret', () => {
    it('goes only to the provider it was stored for: another issuer without it is a 400 naming issuer', async () => {
      expect((await put(complete())).status).to.equal(200);
      for (const issuer of [
        provider.issuer.replace('http://', 'https://'),
        'http://127.0.0.1:1/oidc',
        'https://login.example.com',
      ]) {
        const res = await put({ issuer });
        expect(res.status, JSON.stringify(res.body)).to.equal(400);
        expect(res.body.error.details.map((d: { field: string }) => d.field)).to.deep.equal(['issuer']);
      }
      expect((await t.admin.get('/api/v1/sso/settings')).body.issuer).to.equal(provider.issuer);
      const { client_secret: _kept, ...withoutSecret } = complete();
      expect((await put(withoutSecret)).status, 'the same issuer keeps the stored secret').to.equal(200);
      const elsewhere = await put({ ...complete(), issuer: 'https://login.example.com' });
      expect(elsewhere.status, 'another issuer with the secret given again').to.equal(200);
      expect((await put(complete())).status).to.equal(200);
    });
  });

  describe('the redirect flow', () => {
    before(async () => {
      expect((await put(complete())).status).to.equal(200);
    });

    it('redirects to the provider with the code flow, PKCE (S256), state and nonce', async () => {
      const location = new URL(await startLogin());
      expect(location.origin).to.equal(provider.issuer);
      expect(Object.fromEntries(location.searchParams)).to.include({
        response_type: 'code',
        client_id: provider.client.clientId,
        code_challenge_method: 'S256',
      });
      for (const p of ['state', 'nonce', 'code_challenge'])
        expect(location.searchParams.get(p)).to.have.length.greaterThan(20);
    });

    let used: string;
    it('ends with the login JSON of POST /auth/login; the user is created just in time with the roles of its groups', async () => {
      used = await provider.signIn(await startLogin(), olivia);
      expect(used).to.match(/\/api\/v1\/sso\/callback\?/);
      const res = await callback(used);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.include.keys('access_token', 'token_type', 'expires_at', 'need_password_change');
      const me = (await t.anon.as(res.body.access_token).get('/api/v1/auth/me')).body;
      expect(me.user).to.include({
        username: olivia,
        display_name: 'Olivia Owner',
        email: `${olivia}@corp.test`,
        active_directory: true,
      });
      expect(me.user.roles).to.deep.equal([appsec]);
    });

    it('gives the rights of a user group whose domain_group names a group-claim value, on its projects only', async () => {
      const ok = (res: { status: number; body: Json }) => {
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        return res.body;
      };
      const [mine, other] = [`sso-a-${run}`, `sso-b-${run}`];
      for (const code of [mine, other])
        ok(await t.admin.post('/api/v1/project', { code, name: code, description: '', tags: [] }));
      const reader = `sso_reader_${run}`;
      ok(
        await t.admin.post('/api/v1/role', {
          role_code: reader,
          role_name: 'Reader',
          roles: { 'catalog.projects': ['r'] },
        }),
      );
      const group = ok(
        await t.admin.post('/api/v1/group', {
          name: `Platform ${run}`,
          domain_group: [`platform-${run}`],
          roles: [reader],
          project_codes: [mine],
        }),
      );

      const res = await callback(await provider.signIn(await startLogin(), gina));
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      const api = t.anon.as(res.body.access_token);
      const me = ok(await api.get('/api/v1/auth/me'));
      expect(me.user.roles).to.deep.equal([]);
      expect(me.groups).to.deep.equal([{ id: group.id, name: group.name }]);
      expect(me.projects).to.deep.equal([mine]);
      ok(await api.get(`/api/v1/project/${mine}`));
      expect((await api.get(`/api/v1/project/${other}`)).status).to.equal(404);
    });

    it('refuses a replayed callback (state and code used once)', async () => {
      const again = await callback(used);
      expect(again.status).to.equal(401);
      expect(again.body.error!.message).to.match(/state/);
    });

    it('a sign-on the console starts (GET /auth/session/sso) ends in the session cookie and a redirect to /; a failed one back at / with its reason', async () => {
      const start = await fetch(`${gateway()}/api/v1/auth/session/sso`, { redirect: 'manual' });
      expect(start.status).to.equal(302);
      expect(start.headers.get('location')).to.equal('/api/v1/sso/login');
      const mark = start.headers.getSetCookie().find((c) => c.startsWith('bulwark_sso='))!;
      expect(mark)
        .to.match(/HttpOnly/i)
        .and.to.match(/SameSite=Lax/i)
        .and.to.match(/Path=\/api\/v1\/sso\/callback/);
      const marked = { cookie: mark.slice(0, mark.indexOf(';')) };

      const back = await fetch(await provider.signIn(await startLogin(), olivia), {
        redirect: 'manual',
        headers: marked,
      });
      expect(back.status, await back.clone().text()).to.equal(302);
      expect(back.headers.get('location')).to.equal('/');
      const set = new Map(back.headers.getSetCookie().map((c) => [c.slice(0, c.indexOf('=')), c]));
      expect(set.get('bulwark_session'))
        .to.match(/HttpOnly/i)
        .and.to.match(/SameSite=Strict/i);
      expect(set.get('bulwark_sso')).to.match(/Expires=Thu, 01 Jan 1970/);
      const session = set.get('bulwark_session')!;
      const me = await t.anon.withHeaders({ cookie: session.slice(0, session.indexOf(';')) }).get('/api/v1/auth/me');
      expect(me.body.user.username).to.equal(olivia);

      const wrongState = new URL(await provider.signIn(await startLogin(), olivia));
      wrongState.searchParams.set('state', 'not-the-state-that-was-sent');
      const failed = await fetch(wrongState, { redirect: 'manual', headers: marked });
      expect(failed.status).to.equal(302);
      const location = new URL(failed.headers.get('location')!, gateway());
      expect(location.pathname).to.equal('/');
      expect(location.searchParams.get('sso_error')).to.match(/state/);
      expect(failed.headers.getSetCookie().some((c) => c.startsWith('bulwark_session='))).to.equal(false);
    });

    it('refuses a wrong state and an answer naming a foreign issuer, and creates nothing', async () => {
      const back = new URL(await provider.signIn(await startLogin(), nina));
      const wrongState = new URL(back);
      wrongState.searchParams.set('state', 'not-the-state-that-was-sent');
      expect((await callback(wrongState.href)).status).to.equal(401);
      const foreign = new URL(await provider.signIn(await startLogin(), nina));
      foreign.searchParams.set('iss', 'https://evil.example.com');
      const refused = await callback(foreign.href);
      expect(refused.status, JSON.stringify(refused.body)).to.equal(401);
      expect(await usersNamed(nina)).to.equal(0);
    });

    it('refuses an e-mail outside the allowed domains, and never logs into a local user of the same name', async () => {
      expect((await put({ allowed_email_domains: ['corp.test'] })).status).to.equal(200);
      const outside = await callback(await provider.signIn(await startLogin(), mallory));
      expect(outside.status, JSON.stringify(outside.body)).to.equal(403);
      expect(await usersNamed(mallory)).to.equal(0);
      const local = await t.admin.post('/api/v1/user', {
        username: pat,
        password: ADMIN_PASSWORD,
        password_confirmation: ADMIN_PASSWORD,
      });
      expect(local.status).to.equal(200);
      const takeover = await callback(await provider.signIn(await startLogin(), pat));
      expect(takeover.status, JSON.stringify(takeover.body)).to.equal(409);
    });
  });
}
