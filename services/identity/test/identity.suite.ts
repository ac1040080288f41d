import { expect } from 'chai';
import { Api, ADMIN_PASSWORD, SystemUnderTest, TEST_LIMITS, uniqueSuffix, type Json } from '@bulwark/testkit';

const GOOD_PASSWORD = 'correct-horse-battery';
const inDays = (d: number) => new Date(Date.now() + d * 86400000).toISOString();

function expectFieldError(res: { status: number; body: Json }, status: number, field: string): void {
  expect(res.status, JSON.stringify(res.body)).to.equal(status);
  expect(res.body.error.code).to.be.a('string');
  expect(res.body.error.details.map((d: { field: string }) => d.field)).to.include(field);
}

export function identitySuite(t: SystemUnderTest): void {
  const name = (base: string) => `${base}_${uniqueSuffix()}`;

  async function makeUser(
    roles: string[] = [],
    extra: Record<string, unknown> = {},
  ): Promise<{ id: string; username: string; api: Api }> {
    const username = name('user');
    const res = await t.admin.post('/api/v1/user', {
      username,
      password: GOOD_PASSWORD,
      password_confirmation: GOOD_PASSWORD,
      roles,
      ...extra,
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return { id: res.body.id, username, api: t.anon.as(await t.anon.login(username, GOOD_PASSWORD)) };
  }

  async function makeRole(roles: Record<string, string[]>, extra: Record<string, unknown> = {}): Promise<string> {
    const code = name('role');
    const res = await t.admin.post('/api/v1/role', { role_code: code, role_name: `Role ${code}`, roles, ...extra });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return code;
  }

  describe('POST /api/v1/auth/login', () => {
    it('accepts the password as a string and answers a Bearer JWT valid for 9 hours', async () => {
      const res = await t.anon.post('/api/v1/auth/login', { username: 'admin', password: ADMIN_PASSWORD });
      expect(res.status).to.equal(200);
      expect(res.body.token_type).to.equal('Bearer');
      expect(res.body.access_token.split('.')).to.have.length(3);
      const hours = (Date.parse(res.body.expires_at) - Date.now()) / 3600000;
      expect(hours).to.be.within(8.95, 9.01);
    });

    it('accepts the release 1.5 object form { value }', async () => {
      const res = await t.anon.post('/api/v1/auth/login', { username: 'admin', password: { value: ADMIN_PASSWORD } });
      expect(res.status).to.equal(200);
      expect((await t.anon.as(res.body.access_token).get('/api/v1/auth/me')).body.user.username).to.equal('admin');
    });

    it('refuses a wrong password and an unknown user with the same 401', async () => {
      const wrong = await t.anon.post('/api/v1/auth/login', { username: 'admin', password: 'not-the-password' });
      const unknown = await t.anon.post('/api/v1/auth/login', {
        username: name('nobody'),
        password: 'whatever-password',
      });
      expect(wrong.status).to.equal(401);
      expect(unknown.status).to.equal(401);
      expect(wrong.body.error.message).to.equal(unknown.body.error.message);
    });

    it('names missing and mistyped fields', async () => {
      expectFieldError(await t.anon.post('/api/v1/auth/login', { password: 'x' }), 400, 'username');
      expectFieldError(
        await t.anon.post('/api/v1/auth/login', { username: 'admin', password: 12345 }),
        400,
        'password',
      );
      const notJson = await t.anon.request('POST', '/api/v1/auth/login', undefined, '{"username":');
      expect(notJson.status).to.equal(400);
      expect(notJson.body.error.details[0].field).to.equal('body');
    });

    it('throttles failed logins per user, even for the right password, with Retry-After', async () => {
      const u = await makeUser();
      for (let i = 0; i < 5; i++)
        expect(
          (await t.anon.post('/api/v1/auth/login', { username: u.username, password: 'wrong-password' })).status,
        ).to.equal(401);
      const blocked = await t.anon.post('/api/v1/auth/login', { username: u.username, password: GOOD_PASSWORD });
      expect(blocked.status).to.equal(429);
      expect(Number(blocked.headers.get('retry-after'))).to.be.greaterThan(0);
    });

    it('refuses a local password for a directory user', async () => {
      const username = name('ad');
      expect((await t.admin.post('/api/v1/user', { username, active_directory: true })).status).to.equal(200);
      const res = await t.anon.post('/api/v1/auth/login', { username, password: 'anything-at-all' });
      expect(res.status).to.equal(401);
      expect(res.body.error.message).to.match(/directory/i);
    });

    it('says LDAP and SSO are not configured, without a token', async () => {
      expect((await t.anon.get('/api/v1/ldap/allowed')).body).to.deep.equal({ allowed: false });
      expect((await t.anon.get('/api/v1/sso/allowed')).body).to.deep.equal({ allowed: false });
    });
  });

  describe('bearer tokens', () => {
    it('refuses a missing, malformed or forged token with 401', async () => {
      expect((await t.anon.get('/api/v1/auth/me')).status).to.equal(401);
      expect(
        (await t.anon.withHeaders({ authorization: 'Basic YWRtaW46YWRtaW4=' }).get('/api/v1/auth/me')).status,
      ).to.equal(401);
      expect((await t.anon.as('not-a-token').get('/api/v1/auth/me')).status).to.equal(401);
      const forged = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4IiwidHlwIjoibG9naW4ifQ.c2lnbmF0dXJl';
      expect((await t.anon.as(forged).get('/api/v1/auth/me')).status).to.equal(401);
      expect((await t.anon.as('bwk_unknownunknownunknown').get('/api/v1/auth/me')).status).to.equal(401);
    });
  });

  describe('API tokens', () => {
    it('creates a token shown once that authenticates, and lists it without the secret', async () => {
      const created = await t.admin.post('/api/v1/token', { name: 'ci pipeline', expires_at: inDays(30) });
      expect(created.status).to.equal(200);
      expect(created.body).to.have.all.keys('id', 'name', 'token', 'expires_at');
      const me = await t.anon.as(created.body.token).get('/api/v1/auth/me');
      expect(me.status).to.equal(200);
      expect(me.body.user.username).to.equal('admin');
      const list = await t.admin.get('/api/v1/tokens');
      const item = list.body.items.find((i: { id: string }) => i.id === created.body.id);
      expect(item.name).to.equal('ci pipeline');
      expect(JSON.stringify(list.body)).not.to.contain(created.body.token);
      expect(item).not.to.have.any.keys('token', 'token_hash', 'hash');
    });

    it('validates name and expires_at', async () => {
      expectFieldError(await t.admin.post('/api/v1/token', { expires_at: inDays(1) }), 400, 'name');
      expectFieldError(await t.admin.post('/api/v1/token', { name: 'x', expires_at: 'tomorrow' }), 400, 'expires_at');
      expectFieldError(await t.admin.post('/api/v1/token', { name: 'x', expires_at: inDays(-1) }), 400, 'expires_at');
    });

    it('refuses an expired token', async () => {
      const created = await t.admin.post('/api/v1/token', {
        name: 'short',
        expires_at: new Date(Date.now() + 1500).toISOString(),
      });
      expect((await t.anon.as(created.body.token).get('/api/v1/auth/me')).status).to.equal(200);
      await new Promise((r) => setTimeout(r, 2000));
      expect((await t.anon.as(created.body.token).get('/api/v1/auth/me')).status).to.equal(401);
    });

    it('refuses a revoked token at once on every gateway, including one that just used it', async () => {
      const created = await t.admin.post('/api/v1/token', { name: 'to revoke', expires_at: inDays(1) });
      for (const gw of t.sys.gateways)
        expect((await gw.as(created.body.token).get('/api/v1/auth/me')).status).to.equal(200);
      const revoked = await t.sys.gateways[t.sys.gateways.length - 1]
        .as(await t.anon.login('admin', ADMIN_PASSWORD))
        .delete('/api/v1/tokens', { ids: [created.body.id] });
      expect(revoked.body.results).to.deep.equal([{ id: created.body.id, status: 'revoked' }]);
      for (const gw of t.sys.gateways)
        expect((await gw.as(created.body.token).get('/api/v1/auth/me')).status).to.equal(401);
    });

    it('lets a user revoke only their own tokens', async () => {
      const u = await makeUser();
      const adminToken = await t.admin.post('/api/v1/token', { name: 'admin only', expires_at: inDays(1) });
      const res = await u.api.delete('/api/v1/tokens', { ids: [adminToken.body.id] });
      expect(res.body.results[0].status).to.equal('not_found');
      expect((await t.anon.as(adminToken.body.token).get('/api/v1/auth/me')).status).to.equal(200);
    });

    it('rate-limits one token with 429 and Retry-After', async () => {
      const created = await t.admin.post('/api/v1/token', { name: 'busy', expires_at: inDays(1) });
      const api = t.anon.as(created.body.token);
      let limited: { status: number; headers: Headers } | undefined;
      const attempts = Number(TEST_LIMITS.RATE_LIMIT_PER_TOKEN_PER_MINUTE) + 100;
      for (let i = 0; i < attempts && !limited; i++) {
        const res = await api.get('/api/v1/permissions');
        if (res.status === 429) limited = res;
        else expect(res.status).to.equal(200);
      }
      expect(limited, `no 429 within ${attempts} requests`).to.not.equal(undefined);
      expect(Number(limited!.headers.get('retry-after'))).to.be.greaterThan(0);
    });
  });

  describe('roles', () => {
    it('creates, reads, searches, updates a role', async () => {
      const code = await makeRole(
        { 'administration.users': ['r'] },
        { description: 'readers', domain_group: ['cn=sec,dc=corp'] },
      );
      const got = await t.admin.get(`/api/v1/role/${code}`);
      expect(got.body).to.include({ id: code, role_code: code, description: 'readers', builtin: false });
      expect(got.body.roles).to.deep.equal({ 'administration.users': ['r'] });
      expect(got.body.domain_group).to.deep.equal(['cn=sec,dc=corp']);
      const byId = await t.admin.get(`/api/v1/roles?search[id]=${code}`);
      expect(byId.body.items.map((r: { id: string }) => r.id)).to.deep.equal([code]);
      const byName = await t.admin.get(`/api/v1/roles?search[name]=${encodeURIComponent(`Role ${code}`)}`);
      expect(byName.body.total).to.equal(1);
      const upd = await t.admin.put(`/api/v1/role/${code}`, {
        role_name: 'Renamed',
        roles: { 'administration.users': ['r', 'w'] },
      });
      expect(upd.status).to.equal(200);
      expect(upd.body.role_name).to.equal('Renamed');
      expect(upd.body.roles['administration.users']).to.deep.equal(['r', 'w']);
    });

    it('refuses a duplicate role_code with 409 and bad content with 400 naming the field', async () => {
      const code = await makeRole({});
      const dup = await t.admin.post('/api/v1/role', { role_code: code, role_name: 'again', roles: {} });
      expect(dup.status).to.equal(409);
      expectFieldError(await t.admin.post('/api/v1/role', { role_code: name('r'), roles: {} }), 400, 'role_name');
      expectFieldError(
        await t.admin.post('/api/v1/role', { role_code: name('r'), role_name: 'x', roles: { 'no.such.key': ['r'] } }),
        400,
        'roles.no.such.key',
      );
      expectFieldError(
        await t.admin.post('/api/v1/role', {
          role_code: name('r'),
          role_name: 'x',
          roles: { 'administration.users': ['z'] },
        }),
        400,
        'roles.administration.users[0]',
      );
      expectFieldError(
        await t.admin.post('/api/v1/role', { role_code: 'has space', role_name: 'x', roles: {} }),
        400,
        'role_code',
      );
      expect((await t.admin.get(`/api/v1/role/${name('missing')}`)).status).to.equal(404);
    });

    it('answers concurrent creations of one role, user or group name with one success and 409s, never a 500', async () => {
      // Each request checks the name before it inserts; the ones that lose the race between the check
      // and the insert meet the unique index and must answer like the check.
      const tries = 6;
      const role = name('race');
      const user = name('race');
      const group = name('race');
      const answers = await Promise.all([
        ...Array.from({ length: tries }, () =>
          t.admin.post('/api/v1/role', { role_code: role, role_name: 'race', roles: {} }),
        ),
        ...Array.from({ length: tries }, () =>
          t.admin.post('/api/v1/user', {
            username: user,
            password: GOOD_PASSWORD,
            password_confirmation: GOOD_PASSWORD,
          }),
        ),
        ...Array.from({ length: tries }, () => t.admin.post('/api/v1/group', { name: group })),
      ]);
      for (let i = 0; i < 3; i++) {
        const statuses = answers.slice(i * tries, (i + 1) * tries).map((a) => a.status);
        expect(
          statuses.filter((s) => s === 200),
          JSON.stringify(statuses),
        ).to.have.length(1);
        expect(
          statuses.filter((s) => s === 409),
          JSON.stringify(statuses),
        ).to.have.length(tries - 1);
      }
      for (const a of answers.filter((x) => x.status === 409)) {
        expect(a.body.error.code).to.equal('conflict');
        expect(a.body.error.details).to.be.an('array').that.is.not.empty;
      }
    });

    it('keeps the built-in admin role unchangeable', async () => {
      expect((await t.admin.put('/api/v1/role/admin', { role_name: 'x' })).status).to.equal(409);
      const del = await t.admin.delete('/api/v1/roles', { ids: ['admin'] });
      expect(del.body.results[0].status).to.equal('conflict');
    });

    it('refuses to delete a role held by users unless asked to detach it', async () => {
      const code = await makeRole({ 'administration.users': ['r'] });
      const u = await makeUser([code]);
      const refused = await t.admin.delete('/api/v1/roles', { ids: [code, name('unknown')] });
      expect(refused.body.results.map((r: { status: string }) => r.status)).to.deep.equal(['conflict', 'not_found']);
      const done = await t.admin.delete('/api/v1/roles', { ids: [code], detach: true });
      expect(done.body.results[0].status).to.equal('deleted');
      expect((await t.admin.get(`/api/v1/user/${u.id}`)).body.roles).to.deep.equal([]);
    });
  });

  describe('users', () => {
    it('creates a user with roles and never returns a password or hash', async () => {
      const code = await makeRole({ 'administration.users': ['r'] });
      const username = name('alice');
      const res = await t.admin.post('/api/v1/user', {
        username,
        password: GOOD_PASSWORD,
        password_confirmation: GOOD_PASSWORD,
        display_name: 'Alice',
        email: 'alice@example.com',
        need_password_change: true,
        active_directory: false,
        roles: [code],
      });
      expect(res.status).to.equal(200);
      expect(res.body).to.include({
        username,
        display_name: 'Alice',
        email: 'alice@example.com',
        need_password_change: true,
        active_directory: false,
      });
      expect(res.body.roles).to.deep.equal([code]);
      expect(JSON.stringify(res.body)).not.to.match(/password_hash|argon2|correct-horse/);
      const login = await t.anon.post('/api/v1/auth/login', { username, password: GOOD_PASSWORD });
      expect(login.body.need_password_change).to.equal(true);
    });

    it('names every bad field: missing username, short password, mismatched confirmation, unknown role, bad email', async () => {
      expectFieldError(
        await t.admin.post('/api/v1/user', { password: GOOD_PASSWORD, password_confirmation: GOOD_PASSWORD }),
        400,
        'username',
      );
      expectFieldError(
        await t.admin.post('/api/v1/user', { username: name('u'), password: 'short', password_confirmation: 'short' }),
        400,
        'password',
      );
      expectFieldError(
        await t.admin.post('/api/v1/user', {
          username: name('u'),
          password: GOOD_PASSWORD,
          password_confirmation: 'different-password',
        }),
        400,
        'password_confirmation',
      );
      expectFieldError(
        await t.admin.post('/api/v1/user', {
          username: name('u'),
          password: GOOD_PASSWORD,
          password_confirmation: GOOD_PASSWORD,
          roles: ['no-such-role'],
        }),
        400,
        'roles[0]',
      );
      expectFieldError(
        await t.admin.post('/api/v1/user', {
          username: name('u'),
          password: GOOD_PASSWORD,
          password_confirmation: GOOD_PASSWORD,
          email: 'not-an-email',
        }),
        400,
        'email',
      );
      expectFieldError(
        await t.admin.post('/api/v1/user', {
          username: name('u'),
          password: GOOD_PASSWORD,
          password_confirmation: GOOD_PASSWORD,
          need_password_change: 'yes',
        }),
        400,
        'need_password_change',
      );
    });

    it('refuses a duplicate username (any case) with 409', async () => {
      const u = await makeUser();
      const res = await t.admin.post('/api/v1/user', {
        username: u.username.toUpperCase(),
        password: GOOD_PASSWORD,
        password_confirmation: GOOD_PASSWORD,
      });
      expect(res.status).to.equal(409);
      expect(res.body.error.details[0].field).to.equal('username');
    });

    it('lists with filters and searches', async () => {
      const code = await makeRole({});
      const u = await makeUser([code], { need_password_change: true, display_name: 'Findable Person' });
      const byRole = await t.admin.get(`/api/v1/users?filter[role]=${code}`);
      expect(byRole.body.items.map((i: { id: string }) => i.id)).to.deep.equal([u.id]);
      const bySearch = await t.admin.get(
        `/api/v1/users?search[username]=${u.username}&filter[need_password_change]=true`,
      );
      expect(bySearch.body.total).to.equal(1);
      const byName = await t.admin.get(`/api/v1/users?search[display_name]=findable&filter[role]=${code}`);
      expect(byName.body.total).to.equal(1);
      const paged = await t.admin.get('/api/v1/users?page=1&limit=1');
      expect(paged.body).to.include({ page: 1, limit: 1 });
      expect(paged.body.items).to.have.length(1);
      expect(paged.body.total).to.be.greaterThan(1);
      expectFieldError(await t.admin.get('/api/v1/users?limit=1001'), 400, 'limit');
      expectFieldError(await t.admin.get('/api/v1/users?filter[nonsense]=1'), 400, 'filter[nonsense]');
    });

    it('updates a user; a new password ends the old sessions', async () => {
      const u = await makeUser();
      const renamed = await t.admin.put(`/api/v1/user/${u.id}`, { display_name: 'New Name' });
      expect(renamed.body.display_name).to.equal('New Name');
      expectFieldError(
        await t.admin.put(`/api/v1/user/${u.id}`, { password: 'another-long-password' }),
        400,
        'password_confirmation',
      );
      const changed = await t.admin.put(`/api/v1/user/${u.id}`, {
        password: 'another-long-password',
        password_confirmation: 'another-long-password',
      });
      expect(changed.status).to.equal(200);
      expect((await u.api.get('/api/v1/auth/me')).status).to.equal(401);
      expect(
        (await t.anon.post('/api/v1/auth/login', { username: u.username, password: 'another-long-password' })).status,
      ).to.equal(200);
      expect((await t.admin.get('/api/v1/user/00000000-0000-0000-0000-000000000000')).status).to.equal(404);
    });

    it('lets a user change their own password', async () => {
      const u = await makeUser();
      expectFieldError(
        await u.api.put('/api/v1/auth/password', {
          current_password: 'wrong-one',
          password: 'brand-new-password',
          password_confirmation: 'brand-new-password',
        }),
        400,
        'current_password',
      );
      const ok = await u.api.put('/api/v1/auth/password', {
        current_password: GOOD_PASSWORD,
        password: 'brand-new-password',
        password_confirmation: 'brand-new-password',
      });
      expect(ok.status).to.equal(200);
      expect(
        (await t.anon.post('/api/v1/auth/login', { username: u.username, password: 'brand-new-password' })).status,
      ).to.equal(200);
    });

    it('soft-deletes (tokens stop at once, login refused) and restores', async () => {
      const u = await makeUser();
      const token = await u.api.post('/api/v1/token', { name: 'mine', expires_at: inDays(1) });
      expect(token.status).to.equal(200);
      const del = await t.admin.delete('/api/v1/users', { ids: [u.id] });
      expect(del.body.results).to.deep.equal([{ id: u.id, status: 'deleted' }]);
      expect((await t.anon.as(token.body.token).get('/api/v1/auth/me')).status).to.equal(401);
      expect((await u.api.get('/api/v1/auth/me')).status).to.equal(401);
      expect(
        (await t.anon.post('/api/v1/auth/login', { username: u.username, password: GOOD_PASSWORD })).status,
      ).to.equal(401);
      const listed = await t.admin.get(`/api/v1/users?search[username]=${u.username}`);
      expect(listed.body.total).to.equal(0);
      const deletedOnly = await t.admin.get(`/api/v1/users?search[username]=${u.username}&filter[deleted_only]=true`);
      expect(deletedOnly.body.items[0].deleted_at).to.be.a('string');
      expect(
        (await t.admin.get(`/api/v1/users?search[username]=${u.username}&filter[with_deleted]=true`)).body.total,
      ).to.equal(1);
      const restored = await t.admin.put('/api/v1/restore-users', { ids: [u.id] });
      expect(restored.body.results[0].status).to.equal('restored');
      expect(
        (await t.anon.post('/api/v1/auth/login', { username: u.username, password: GOOD_PASSWORD })).status,
      ).to.equal(200);
    });

    it('answers 403 to a caller without the permission and lets a reader read', async () => {
      const reader = await makeUser([await makeRole({ 'administration.users': ['r'] })]);
      expect((await reader.api.get('/api/v1/users')).status).to.equal(200);
      const create = await reader.api.post('/api/v1/user', {
        username: name('x'),
        password: GOOD_PASSWORD,
        password_confirmation: GOOD_PASSWORD,
      });
      expect(create.status).to.equal(403);
      expect(create.body.error.code).to.equal('forbidden');
      expect(
        (await reader.api.post('/api/v1/role', { role_code: name('r'), role_name: 'x', roles: {} })).status,
      ).to.equal(403);
    });

    it('applies a role change to a logged-in user at once', async () => {
      const code = await makeRole({});
      const u = await makeUser([code]);
      expect((await u.api.get('/api/v1/users')).status).to.equal(403);
      await t.admin.put(`/api/v1/role/${code}`, { roles: { 'administration.users': ['r'] } });
      expect((await u.api.get('/api/v1/users')).status).to.equal(200);
    });
  });

  describe('permissions', () => {
    it('lists the catalogue with the keys of the guide and the four letters', async () => {
      const res = await t.admin.get('/api/v1/permissions');
      const keys = res.body.keys.map((k: { key: string }) => k.key);
      expect(keys).to.include.members([
        'settings.authentication',
        'administration.roles',
        'administration.users',
        'catalog.sources',
        'issues.issues',
      ]);
      expect(Object.keys(res.body.letters)).to.deep.equal(['r', 'w', 'x', 'd']);
    });

    it('answers whether the caller holds a key and letter', async () => {
      const u = await makeUser([await makeRole({ 'administration.users': ['r'] })]);
      expect((await u.api.get('/api/v1/permissions/check?key=administration.users&letter=r')).body.allowed).to.equal(
        true,
      );
      expect((await u.api.get('/api/v1/permissions/check?key=administration.users&letter=w')).body.allowed).to.equal(
        false,
      );
      expect((await t.admin.get('/api/v1/permissions/check?key=administration.users&letter=w')).body.allowed).to.equal(
        true,
      );
      expectFieldError(await t.admin.get('/api/v1/permissions/check?key=administration.users&letter=q'), 400, 'letter');
    });

    it('limits a role to projects through system_scopes', async () => {
      const scoped = await makeUser([
        await makeRole({ 'catalog.projects': ['r'] }, { system_scopes: ['project:web', 'project:api'] }),
      ]);
      expect((await scoped.api.get('/api/v1/auth/me')).body.projects).to.deep.equal(['api', 'web']);
      expect((await t.admin.get('/api/v1/auth/me')).body.projects).to.equal(null);
      expectFieldError(
        await t.admin.post('/api/v1/role', {
          role_code: name('r'),
          role_name: 'x',
          roles: {},
          system_scopes: ['everything'],
        }),
        400,
        'system_scopes[0]',
      );
    });
  });
}
