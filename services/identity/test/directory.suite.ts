import fs from 'node:fs';
import { expect } from 'chai';
import { LdapServer, requireInfra, SystemUnderTest, uniqueSuffix } from '@bulwark/testkit';

/**
 * Directory (LDAP) login against the real slapd of deploy/local/infra.sh: people alice (in
 * security-admins), bob (in developers), dave (in team-leads, itself in developers), erin (in no
 * group), carol (disabled), all with the same password.
 */
export function directorySuite(t: SystemUnderTest): void {
  let ldap: LdapServer;
  const people = () => `ou=people,${ldap.base}`;
  const groups = () => `ou=groups,${ldap.base}`;
  const settingsFor = (extra: Record<string, unknown> = {}) => ({
    enabled: true,
    urls: [ldap.url],
    start_tls: false,
    ca_certificate: null,
    bind_dn: ldap.bindDn,
    bind_password: ldap.bindPassword,
    user_search_base: people(),
    user_filter: '(&(objectClass=inetOrgPerson)(uid={username}))',
    disabled_filter: '(pwdAccountLockedTime=*)',
    group_search_base: groups(),
    nested_groups: 'walk',
    ...extra,
  });
  const login = (username: string, password = ldap.userPassword) =>
    t.anon.post('/api/v1/auth/login', { username, password });
  const userNamed = async (username: string) =>
    (
      await t.admin.get(`/api/v1/users?search[username]=${encodeURIComponent(username)}&filter[with_deleted]=true`)
    ).body.items.filter((u: { username: string }) => u.username.toLowerCase() === username.toLowerCase());
  const put = (body: Record<string, unknown>) => t.admin.put('/api/v1/ldap/settings', body);
  const ldapTest = async (body: Record<string, unknown> = {}) => {
    const res = await t.admin.post('/api/v1/ldap/test', body);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body as { ok: boolean; stage: string; message: string };
  };

  before(function () {
    ldap = requireInfra(this, 'ldap').ldap;
  });

  after(async () => {
    await put({ enabled: false });
  });

  describe('settings', () => {
    it('are in the OpenAPI document with their permissions, the bind password write-only', async () => {
      const doc = (await t.anon.get('/api/v1/swagger/doc.json')).body;
      const perm = (path: string, method: string) => doc.paths[path][method]['x-permission'];
      // Login settings are the whole organisation's: a caller limited to some projects gets 403.
      const settingsPermission = (letter: string) => ({
        key: 'settings.authentication',
        letter,
        project_scope: 'unscoped',
      });
      expect(perm('/api/v1/ldap/settings', 'get')).to.deep.equal(settingsPermission('r'));
      expect(perm('/api/v1/ldap/settings', 'put')).to.deep.equal(settingsPermission('w'));
      expect(perm('/api/v1/ldap/test', 'post')).to.deep.equal(settingsPermission('x'));
      expect(doc.components.schemas.LdapSettingsUpdate.properties).to.have.property('bind_password');
      expect(doc.components.schemas.LdapSettings.properties).not.to.have.property('bind_password');
    });

    it('refuses to enable incomplete settings, naming each missing field', async () => {
      const res = await put({ enabled: true, urls: [ldap.url] });
      expect(res.status, JSON.stringify(res.body)).to.equal(400);
      expect(res.body.error.details.map((d: { field: string }) => d.field)).to.include.members([
        'bind_dn',
        'bind_password',
        'user_search_base',
      ]);
      expect((await t.anon.get('/api/v1/ldap/allowed')).body).to.deep.equal({ allowed: false });
    });

    it('names a malformed url, filter or unknown field with 400', async () => {
      for (const [body, field] of [
        [{ urls: ['http://example.com'] }, 'urls.0'],
        [{ user_filter: '(uid=x)' }, 'user_filter'],
        [{ nested_groups: 'deep' }, 'nested_groups'],
        [{ surprise: 1 }, 'surprise'],
      ] as const) {
        const res = await put(body);
        expect(res.status, JSON.stringify(res.body)).to.equal(400);
        expect(JSON.stringify(res.body.error.details)).to.contain(field.split('.')[0]);
      }
    });

    it('saves complete settings, seals the bind password and never returns it', async () => {
      const res = await put(settingsFor());
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.include({ enabled: true, complete: true, bind_password_set: true, bind_dn: ldap.bindDn });
      expect(res.body).not.to.have.any.keys('bind_password');
      const got = await t.admin.get('/api/v1/ldap/settings');
      expect(got.status).to.equal(200);
      expect(JSON.stringify(got.body)).not.to.contain(ldap.bindPassword);
      expect(got.body.urls).to.deep.equal([ldap.url]);
      // Left out, the stored password stays.
      expect((await put({ timeout_seconds: 5 })).body).to.include({ bind_password_set: true, timeout_seconds: 5 });
    });

    it('keeps the stored bind password for the directories it was stored for: other urls without it are a 400 naming urls', async () => {
      expect((await put(settingsFor())).status).to.equal(200);
      const other = ldap.url.replace(/:(\d+)$/, (_, port: string) => `:${Number(port) + 1}`);
      try {
        for (const urls of [
          [other],
          [ldap.url.replace('ldap://', 'ldaps://')],
          [ldap.url, 'ldap://directory.example'],
        ]) {
          const res = await put({ urls });
          expect(res.status, JSON.stringify(res.body)).to.equal(400);
          expect(res.body.error.details.map((d: { field: string }) => d.field)).to.deep.equal(['urls']);
        }
        expect((await t.admin.get('/api/v1/ldap/settings')).body.urls).to.deep.equal([ldap.url]);
        // The same directory, or another with the password given again, is fine.
        expect((await put({ urls: [ldap.url], timeout_seconds: 6 })).status).to.equal(200);
        expect((await put({ urls: [other], bind_password: ldap.bindPassword })).status).to.equal(200);
      } finally {
        // The tests after this one use the working settings.
        expect((await put(settingsFor())).status).to.equal(200);
      }
    });

    it('says allowed only once the service account binds', async () => {
      expect((await t.anon.get('/api/v1/ldap/allowed')).body).to.deep.equal({ allowed: true });
      expect((await put({ bind_password: 'not-the-service-password' })).status).to.equal(200);
      expect((await t.anon.get('/api/v1/ldap/allowed')).body).to.deep.equal({ allowed: false });
      expect((await put({ bind_password: ldap.bindPassword })).status).to.equal(200);
      expect((await t.anon.get('/api/v1/ldap/allowed')).body).to.deep.equal({ allowed: true });
    });
  });

  describe('POST /api/v1/ldap/test', () => {
    afterEach(async () => {
      expect((await put(settingsFor())).status).to.equal(200);
    });

    it('succeeds, and finds a person by name', async () => {
      expect(await ldapTest()).to.include({ ok: true, stage: 'done' });
      expect(await ldapTest({ username: 'bob' })).to.include({ ok: true, stage: 'done' });
    });

    // Each change of urls gives the bind password again: a stored one goes only to the directories it was stored for.
    it('says the server is unreachable: a closed port, or an address the outbound policy refuses', async () => {
      await put({ urls: ['ldap://127.0.0.1:1'], bind_password: ldap.bindPassword });
      expect(await ldapTest()).to.deep.equal({
        ok: false,
        stage: 'connect',
        message: 'Host unreachable: could not connect to 127.0.0.1',
      });
      await put({ urls: ['ldap://169.254.169.254'], bind_password: ldap.bindPassword });
      expect(await ldapTest()).to.deep.equal({
        ok: false,
        stage: 'connect',
        message: 'Host unreachable: could not connect to 169.254.169.254',
      });
    });

    it('tries the next server when one cannot be reached', async () => {
      await put({ urls: ['ldap://127.0.0.1:1', ldap.url], bind_password: ldap.bindPassword });
      expect(await ldapTest({ username: 'bob' })).to.include({ ok: true });
    });

    it('says TLS failed for a certificate it cannot verify, and works with the CA given (ldaps and StartTLS)', async () => {
      await put({ urls: [ldap.ldapsUrl], bind_password: ldap.bindPassword });
      const failed = await ldapTest();
      expect(failed).to.include({ ok: false, stage: 'tls' });
      expect(failed.message).to.match(/^TLS failure with 127\.0\.0\.1/);
      const ca = fs.readFileSync(ldap.caFile, 'utf8');
      await put({ urls: [ldap.ldapsUrl], bind_password: ldap.bindPassword, ca_certificate: ca });
      expect(await ldapTest({ username: 'bob' })).to.include({ ok: true });
      await put({ urls: [ldap.url], bind_password: ldap.bindPassword, start_tls: true, ca_certificate: ca });
      expect(await ldapTest({ username: 'bob' })).to.include({ ok: true });
      await put({ urls: [ldap.url], bind_password: ldap.bindPassword, start_tls: true, ca_certificate: null });
      expect(await ldapTest()).to.include({ ok: false, stage: 'tls' });
    });

    it('says the bind was refused, the search base is not there, or the filter matched nobody', async () => {
      await put({ bind_password: 'wrong-service-password' });
      expect(await ldapTest()).to.include({ ok: false, stage: 'bind' });
      await put({ bind_password: ldap.bindPassword, user_search_base: `ou=nowhere,${ldap.base}` });
      expect(await ldapTest()).to.deep.equal({
        ok: false,
        stage: 'search_base',
        message: `Search base not found: ou=nowhere,${ldap.base}`,
      });
      await put({ user_search_base: people() });
      expect(await ldapTest({ username: 'nobody-here' })).to.deep.equal({
        ok: false,
        stage: 'user',
        message: 'The user filter matched nothing for "nobody-here"',
      });
    });
  });

  describe('login of a directory user', () => {
    let developers: string;
    let admins: string;
    let manual: string;

    before(async () => {
      expect((await put(settingsFor())).status).to.equal(200);
      const role = async (domain_group: string[], roles: Record<string, string[]>) => {
        const code = `dir_${uniqueSuffix()}`;
        const res = await t.admin.post('/api/v1/role', { role_code: code, role_name: code, roles, domain_group });
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        return code;
      };
      developers = await role(['Developers'], { 'catalog.sources': ['r'] });
      admins = await role([`CN=security-admins, ${groups().toUpperCase()}`], { 'administration.users': ['r'] });
      manual = await role([], { 'catalog.tools': ['r'] });
    });

    it('refuses a wrong password of a person never seen, and creates nothing', async () => {
      expect((await login('dave', 'wrong-directory-password')).status).to.equal(401);
      expect(await userNamed('dave')).to.deep.equal([]);
    });

    it('creates the user on first login with active_directory, the directory name and e-mail, and the roles of its groups', async () => {
      const res = await login('bob');
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.token_type).to.equal('Bearer');
      const me = (await t.anon.as(res.body.access_token).get('/api/v1/auth/me')).body;
      expect(me.user).to.include({
        username: 'bob',
        active_directory: true,
        display_name: 'Bob Builder',
        email: 'bob@bulwark.test',
      });
      expect(me.user.roles).to.deep.equal([developers]);
      expect(me.permissions['catalog.sources']).to.deep.equal(['r']);
    });

    it('grants a role bound by group DN (case and spaces do not matter), and one through a nested group', async () => {
      const alice = await login('alice');
      expect((await t.anon.as(alice.body.access_token).get('/api/v1/auth/me')).body.user.roles).to.deep.equal([admins]);
      const dave = await login('dave');
      expect((await t.anon.as(dave.body.access_token).get('/api/v1/auth/me')).body.user.roles).to.deep.equal([
        developers,
      ]);
      const erin = await login('erin');
      expect((await t.anon.as(erin.body.access_token).get('/api/v1/auth/me')).body.user.roles).to.deep.equal([]);
    });

    it('keeps the user in step at each login: a role whose group binding went away is removed, a role set by hand stays', async () => {
      const [bob] = await userNamed('bob');
      expect((await t.admin.put(`/api/v1/user/${bob.id}`, { roles: [developers, manual] })).status).to.equal(200);
      expect((await t.admin.put(`/api/v1/role/${developers}`, { domain_group: ['some-other-group'] })).status).to.equal(
        200,
      );
      const res = await login('bob');
      expect(res.status).to.equal(200);
      expect((await t.anon.as(res.body.access_token).get('/api/v1/auth/me')).body.user.roles).to.deep.equal([manual]);
      expect(await userNamed('bob')).to.have.length(1);
      expect((await t.admin.put(`/api/v1/role/${developers}`, { domain_group: ['developers'] })).status).to.equal(200);
      const again = await login('bob');
      expect((await t.anon.as(again.body.access_token).get('/api/v1/auth/me')).body.user.roles).to.have.members([
        developers,
        manual,
      ]);
    });

    it('refuses a disabled account even with the right password, and creates nothing', async () => {
      const res = await login('carol');
      expect(res.status).to.equal(401);
      expect(res.body.error.message).to.match(/disabled/);
      expect(await userNamed('carol')).to.deep.equal([]);
    });

    it('escapes the username in the filter: LDAP injection finds nobody', async () => {
      for (const username of ['*', 'bo*', 'bob)(uid=*', '*)(objectClass=*']) {
        const res = await login(username);
        expect(res.status, username).to.equal(401);
        expect(await userNamed(username)).to.deep.equal([]);
      }
    });

    it('never uses a local password for a directory user, and throttles failed directory logins like local ones', async () => {
      for (let i = 0; i < 5; i++) expect((await login('erin', 'wrong-directory-password')).status).to.equal(401);
      const blocked = await login('erin');
      expect(blocked.status).to.equal(429);
      expect(Number(blocked.headers.get('retry-after'))).to.be.greaterThan(0);
    });
  });
}
