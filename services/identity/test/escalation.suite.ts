import { expect } from 'chai';
import { Api, ADMIN_PASSWORD, SystemUnderTest, uniqueSuffix, type ApiResponse, type Json } from '@bulwark/testkit';

const PASSWORD = 'escalation-Password-7';
const inDays = (d: number) => new Date(Date.now() + d * 86400000).toISOString();

type Letters = Record<string, string[]>;
/** The rights every table test hands out: reading and writing issues. */
const X: Letters = { 'issues.issues': ['r', 'w'] };
/** What the principals of the table hold (on every project, or on project A only): the identity keys, and X. */
const MANAGE: Letters = {
  'administration.users': ['r', 'w', 'd'],
  'administration.groups': ['r', 'w', 'd'],
  'administration.roles': ['r', 'w', 'd'],
  'settings.authentication': ['r', 'w'],
  ...X,
};

/** What a refusal names: a permission key:letter, or the built-in admin role. */
const NAMES_WHAT = /[a-z_]+\.[a-z_]+:[rwxd]|the built-in admin role/;

/**
 * A refusal: a 403 naming what is missing, or a bulk answer's per-id `forbidden`. The escalation
 * rule's (`requires holding`), or for login settings, which are the whole organisation's, the route
 * scope's, which refuses a caller limited to some projects before the rule is asked.
 */
function outcome(res: ApiResponse): 'allowed' | 'refused' {
  if (res.status === 403) {
    expect(res.body.error.code, JSON.stringify(res.body)).to.equal('forbidden');
    expect(res.body.error.message).to.match(NAMES_WHAT);
    return 'refused';
  }
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  const result = res.body.results?.[0];
  if (!result) return 'allowed';
  if (result.status === 'forbidden') {
    expect(result.message).to.match(NAMES_WHAT);
    return 'refused';
  }
  expect(result.status, JSON.stringify(res.body)).to.be.oneOf(['deleted', 'restored', 'revoked']);
  return 'allowed';
}

/**
 * The escalation rule over HTTP: nobody grants what they do not hold, on the projects they hold it;
 * the built-in admin role only by admins; acting on a user needs holding all that user holds. The
 * cases of issue 28 first, then a table of grants (role, group, user, token, single sign-on mapping)
 * by principals of each kind, then the password policy and what a deletion or a reset ends.
 */
export function escalationSuite(t: SystemUnderTest): void {
  const name = (base: string) => `${base}_${uniqueSuffix()}`;
  const A = name('esc-a');
  const B = name('esc-b');
  // The suite makes many users: its own admin session keeps the shared one under the per-token limit.
  let admin: Api;
  // ...and deletes them at the end, so the suites after it stay under the license's users limit.
  const made: string[] = [];

  before(async () => {
    admin = t.anon.as(await t.anon.login('admin', ADMIN_PASSWORD));
  });
  after(async () => {
    const results = (await admin.delete('/api/v1/users', { ids: made })).body.results;
    expect(results.filter((r: Json) => !['deleted', 'unchanged'].includes(r.status))).to.deep.equal([]);
  });

  async function role(letters: Letters, projects: string[] = []): Promise<string> {
    const code = name('role');
    const res = await admin.post('/api/v1/role', {
      role_code: code,
      role_name: `Role ${code}`,
      roles: letters,
      system_scopes: projects.map((p) => `project:${p}`),
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return code;
  }

  async function user(roles: string[] = []): Promise<{ id: string; username: string }> {
    const username = name('esc');
    const id = await admin.createUser(username, PASSWORD, roles);
    made.push(id);
    return { id, username };
  }

  const loginAs = async (username: string) => t.anon.as(await t.anon.login(username, PASSWORD));

  async function group(body: Json): Promise<string> {
    const res = await admin.post('/api/v1/group', { name: name('Escalation group'), ...body });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.id;
  }

  async function principal(letters: Letters): Promise<{ id: string; username: string; api: Api; role: string }> {
    const code = await role(letters);
    const u = await user([code]);
    return { ...u, api: await loginAs(u.username), role: code };
  }

  describe('the escalations of issue 28', () => {
    it('a users manager cannot make themself admin; the refusal changes nothing', async () => {
      const manager = await principal({ 'administration.users': ['r', 'w'] });
      const res = await manager.api.put(`/api/v1/user/${manager.id}`, { roles: [manager.role, 'admin'] });
      expect(res.status, JSON.stringify(res.body)).to.equal(403);
      expect(res.body.error.message).to.equal(
        'Granting the built-in admin role requires holding that role: only administrators give, take or act on it',
      );
      expect((await admin.get(`/api/v1/user/${manager.id}`)).body.roles).to.deep.equal([manager.role]);
      const me = await manager.api.get('/api/v1/auth/me');
      expect(Object.keys(me.body.permissions)).to.deep.equal(['administration.users']);
    });

    it('a users manager cannot create an admin, reset an admin’s password or delete an admin', async () => {
      const manager = await principal({ 'administration.users': ['r', 'w', 'd'] });
      const created = await manager.api.post('/api/v1/user', {
        username: name('esc'),
        password: PASSWORD,
        password_confirmation: PASSWORD,
        roles: ['admin'],
      });
      expect(created.status, JSON.stringify(created.body)).to.equal(403);

      const other = await user(['admin']);
      const reset = await manager.api.put(`/api/v1/user/${other.id}`, {
        password: 'taken-over-Password-1',
        password_confirmation: 'taken-over-Password-1',
      });
      expect(reset.status, JSON.stringify(reset.body)).to.equal(403);
      expect(reset.body.error.message).to.equal(
        `Setting the password of user ${other.username}, who holds the built-in admin role, requires holding that role: only administrators give, take or act on it`,
      );
      const deleted = await manager.api.delete('/api/v1/users', { ids: [other.id] });
      expect(deleted.body.results).to.deep.equal([
        {
          id: other.id,
          status: 'forbidden',
          message: `Deleting user ${other.username}, who holds the built-in admin role, requires holding that role: only administrators give, take or act on it`,
        },
      ]);
      // Still an administrator with the old password.
      expect((await (await loginAs(other.username)).get('/api/v1/auth/me')).body.user.roles).to.deep.equal(['admin']);
    });

    it('a users manager cannot act on a user who holds more than they do', async () => {
      const manager = await principal({ 'administration.users': ['r', 'w', 'd'] });
      const writer = await user([await role(X)]);
      const res = await manager.api.put(`/api/v1/user/${writer.id}`, { display_name: 'Renamed' });
      expect(res.status).to.equal(403);
      expect(res.body.error.message).to.equal(
        `Changing user ${writer.username}, who holds issues.issues:r on every project, requires holding it on every project; you do not hold it (also missing: issues.issues:w)`,
      );
      // Acting on a user who holds nothing beyond the manager's rights stays allowed.
      const plain = await user();
      expect((await manager.api.put(`/api/v1/user/${plain.id}`, { display_name: 'Renamed' })).status).to.equal(200);
    });

    it('a groups manager cannot create a group that makes themself admin, or gives what they do not hold', async () => {
      const manager = await principal({ 'administration.groups': ['r', 'w'] });
      const admins = await manager.api.post('/api/v1/group', {
        name: name('Self admins'),
        user_ids: [manager.id],
        roles: ['admin'],
      });
      expect(admins.status, JSON.stringify(admins.body)).to.equal(403);
      expect(admins.body.error.message).to.match(/^Granting the built-in admin role requires holding that role/);
      const writers = await manager.api.post('/api/v1/group', {
        name: name('Self writers'),
        user_ids: [manager.id],
        roles: [await role(X)],
      });
      expect(writers.status).to.equal(403);
      expect(writers.body.error.message).to.match(/^Granting issues\.issues:r on every project/);
      expect((await manager.api.get('/api/v1/auth/me')).body.groups).to.deep.equal([]);
    });

    it('a roles manager cannot add a permission key to its own role', async () => {
      const manager = await principal({ 'administration.roles': ['r', 'w'] });
      const res = await manager.api.put(`/api/v1/role/${manager.role}`, {
        roles: { 'administration.roles': ['r', 'w'], 'administration.users': ['w'] },
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(403);
      expect(res.body.error.message).to.equal(
        'Granting administration.users:w on every project requires holding it on every project; you do not hold it',
      );
      expect((await admin.get(`/api/v1/role/${manager.role}`)).body.roles).to.deep.equal({
        'administration.roles': ['r', 'w'],
      });
    });

    it('a project-scoped roles manager grants only on its own projects', async () => {
      const code = await role({ 'administration.roles': ['r', 'w'], 'issues.issues': ['r', 'w'] }, [A]);
      const scoped = await user([code]);
      const api = await loginAs(scoped.username);
      const grant = (projects: string[]) =>
        api.post('/api/v1/role', {
          role_code: name('role'),
          role_name: 'Issue writers',
          roles: { 'issues.issues': ['w'] },
          system_scopes: projects.map((p) => `project:${p}`),
        });
      const everywhere = await grant([]);
      expect(everywhere.status).to.equal(403);
      expect(everywhere.body.error.message).to.equal(
        `Granting issues.issues:w on every project requires holding it on every project; you hold it on project ${A}`,
      );
      const other = await grant([B]);
      expect(other.status).to.equal(403);
      expect(other.body.error.message).to.equal(
        `Granting issues.issues:w on a project outside yours requires holding it on a project outside yours; you hold it on project ${A}`,
      );
      expect((await grant([A])).status).to.equal(200);
    });
  });

  describe('grants by principals of each kind', () => {
    type Kind = 'admin' | 'keys' | 'scoped' | 'grouped';
    const principals = {} as Record<Kind, Api>;
    let originalMapping: Json;

    before(async () => {
      principals.admin = admin;
      principals.keys = (await principal(MANAGE)).api;
      principals.scoped = await loginAs((await user([await role(MANAGE, [A])])).username);
      const member = await user();
      await group({ user_ids: [member.id], roles: [await role(MANAGE)] });
      principals.grouped = await loginAs(member.username);
      originalMapping = (await admin.get('/api/v1/sso/settings')).body.role_mapping;
    });

    after(async () => {
      expect((await admin.put('/api/v1/sso/settings', { role_mapping: originalMapping })).status).to.equal(200);
    });

    const writerOnA = () => role(X, [A]);
    const holderOf = async (letters: Letters | 'admin', projects: string[] = []) =>
      user([letters === 'admin' ? 'admin' : await role(letters, projects)]);

    // Each grant makes its own objects as admin, then lets the principal try it.
    const grants: {
      name: string;
      expect: Record<Kind, 'allowed' | 'refused'>;
      run: (api: Api) => Promise<ApiResponse>;
    }[] = [
      {
        name: 'create a role granting X on every project',
        expect: { admin: 'allowed', keys: 'allowed', scoped: 'refused', grouped: 'allowed' },
        run: (api) => api.post('/api/v1/role', { role_code: name('role'), role_name: 'X', roles: X }),
      },
      {
        name: 'create a role granting X on project A',
        expect: { admin: 'allowed', keys: 'allowed', scoped: 'allowed', grouped: 'allowed' },
        run: (api) =>
          api.post('/api/v1/role', {
            role_code: name('role'),
            role_name: 'X',
            roles: X,
            system_scopes: [`project:${A}`],
          }),
      },
      {
        name: 'update a role granting X on project A to every project',
        expect: { admin: 'allowed', keys: 'allowed', scoped: 'refused', grouped: 'allowed' },
        run: async (api) => api.put(`/api/v1/role/${await writerOnA()}`, { system_scopes: [] }),
      },
      {
        name: 'give a user a role granting X',
        expect: { admin: 'allowed', keys: 'allowed', scoped: 'refused', grouped: 'allowed' },
        run: async (api) => api.put(`/api/v1/user/${(await user()).id}`, { roles: [await role(X)] }),
      },
      {
        name: 'give a user the admin role',
        expect: { admin: 'allowed', keys: 'refused', scoped: 'refused', grouped: 'refused' },
        run: async (api) => api.put(`/api/v1/user/${(await user()).id}`, { roles: ['admin'] }),
      },
      {
        name: 'add a member to a group granting X',
        expect: { admin: 'allowed', keys: 'allowed', scoped: 'refused', grouped: 'allowed' },
        run: async (api) => {
          const id = await group({ roles: [await role(X)] });
          return api.put(`/api/v1/group/${id}`, { user_ids: [(await user()).id] });
        },
      },
      {
        name: 'create a group granting X on project A',
        expect: { admin: 'allowed', keys: 'allowed', scoped: 'allowed', grouped: 'allowed' },
        run: async (api) =>
          api.post('/api/v1/group', {
            name: name('Group'),
            user_ids: [(await user()).id],
            roles: [await role(X)],
            project_codes: [A],
          }),
      },
      {
        name: 'create a group granting the admin role',
        expect: { admin: 'allowed', keys: 'refused', scoped: 'refused', grouped: 'refused' },
        run: async (api) => api.post('/api/v1/group', { name: name('Group'), roles: ['admin'] }),
      },
      {
        name: 'map a single sign-on group to a role granting X',
        expect: { admin: 'allowed', keys: 'allowed', scoped: 'refused', grouped: 'allowed' },
        run: async (api) => api.put('/api/v1/sso/settings', { role_mapping: { [name('sso')]: [await role(X)] } }),
      },
      {
        name: 'revoke the API token of a user holding X',
        expect: { admin: 'allowed', keys: 'allowed', scoped: 'refused', grouped: 'allowed' },
        run: async (api) => {
          const holder = await holderOf(X);
          const token = await (
            await loginAs(holder.username)
          ).post('/api/v1/token', {
            name: 'ci',
            expires_at: inDays(30),
          });
          expect(token.status, JSON.stringify(token.body)).to.equal(200);
          return api.delete('/api/v1/tokens', { ids: [token.body.id] });
        },
      },
      {
        name: 'reset the password of a user holding X on project A',
        expect: { admin: 'allowed', keys: 'allowed', scoped: 'allowed', grouped: 'allowed' },
        run: async (api) =>
          api.put(`/api/v1/user/${(await holderOf(X, [A])).id}`, {
            password: 'another-Password-8',
            password_confirmation: 'another-Password-8',
          }),
      },
      {
        name: 'reset the password of a user holding X',
        expect: { admin: 'allowed', keys: 'allowed', scoped: 'refused', grouped: 'allowed' },
        run: async (api) =>
          api.put(`/api/v1/user/${(await holderOf(X)).id}`, {
            password: 'another-Password-8',
            password_confirmation: 'another-Password-8',
          }),
      },
      {
        name: 'reset the password of an administrator',
        expect: { admin: 'allowed', keys: 'refused', scoped: 'refused', grouped: 'refused' },
        run: async (api) =>
          api.put(`/api/v1/user/${(await holderOf('admin')).id}`, {
            password: 'another-Password-8',
            password_confirmation: 'another-Password-8',
          }),
      },
      {
        name: 'delete a user holding X',
        expect: { admin: 'allowed', keys: 'allowed', scoped: 'refused', grouped: 'allowed' },
        run: async (api) => api.delete('/api/v1/users', { ids: [(await holderOf(X)).id] }),
      },
      {
        name: 'restore a user holding X',
        expect: { admin: 'allowed', keys: 'allowed', scoped: 'refused', grouped: 'allowed' },
        run: async (api) => {
          const { id } = await holderOf(X);
          expect((await admin.delete('/api/v1/users', { ids: [id] })).body.results[0].status).to.equal('deleted');
          return api.put('/api/v1/restore-users', { ids: [id] });
        },
      },
    ];

    for (const grant of grants) {
      for (const kind of ['admin', 'keys', 'scoped', 'grouped'] as const) {
        it(`${kind}: ${grant.name}: ${grant.expect[kind]}`, async () => {
          expect(outcome(await grant.run(principals[kind]))).to.equal(grant.expect[kind]);
        });
      }
    }
  });

  describe('passwords (NIST SP 800-63B)', () => {
    const refusedBecause = (res: ApiResponse, why: RegExp) => {
      expect(res.status, JSON.stringify(res.body)).to.equal(400);
      const problem = res.body.error.details.find((d: { field: string }) => d.field === 'password');
      expect(problem?.problem, JSON.stringify(res.body)).to.match(why);
      expect(res.body.error.message).to.match(why);
    };
    const create = (password: string) =>
      admin.post('/api/v1/user', { username: name('esc'), password, password_confirmation: password });

    it('refuses twelve spaces, twelve digits in a row and a common password, naming the field and why', async () => {
      refusedBecause(await create('            '), /only whitespace/);
      refusedBecause(await create('123456789012'), /is in a list of commonly used passwords/);
      refusedBecause(await create('password1234'), /commonly used password/);
      const strong = await create('pale-otter-under-9-bridges');
      expect(strong.status).to.equal(200);
      made.push(strong.body.id);
    });

    it('applies wherever a password is set: a reset and one’s own change', async () => {
      const u = await user();
      refusedBecause(
        await admin.put(`/api/v1/user/${u.id}`, { password: '123456789012', password_confirmation: '123456789012' }),
        /commonly used/,
      );
      refusedBecause(
        await (
          await loginAs(u.username)
        ).put('/api/v1/auth/password', {
          current_password: PASSWORD,
          password: '            ',
          password_confirmation: '            ',
        }),
        /only whitespace/,
      );
    });
  });

  describe('what a deletion and a reset end', () => {
    it('a deleted user’s API tokens stay revoked when the user is restored', async () => {
      const u = await user();
      const token = await (await loginAs(u.username)).post('/api/v1/token', { name: 'ci', expires_at: inDays(30) });
      const byToken = t.anon.as(token.body.token);
      expect((await byToken.get('/api/v1/auth/me')).status).to.equal(200);
      expect((await admin.delete('/api/v1/users', { ids: [u.id] })).body.results[0].status).to.equal('deleted');
      expect((await byToken.get('/api/v1/auth/me')).status).to.equal(401);
      expect((await admin.put('/api/v1/restore-users', { ids: [u.id] })).body.results[0].status).to.equal('restored');
      expect((await byToken.get('/api/v1/auth/me')).status).to.equal(401);
      const listed = await (await loginAs(u.username)).get('/api/v1/tokens?filter[include_revoked]=true');
      expect(listed.body.items.map((i: Json) => [i.id, Boolean(i.revoked_at)])).to.deep.equal([[token.body.id, true]]);
    });

    it('an administrator’s reset of a password ends that user’s login sessions', async () => {
      const u = await user();
      const session = await loginAs(u.username);
      expect((await session.get('/api/v1/auth/me')).status).to.equal(200);
      const reset = await admin.put(`/api/v1/user/${u.id}`, {
        password: 'reset-by-admin-Password-3',
        password_confirmation: 'reset-by-admin-Password-3',
      });
      expect(reset.status).to.equal(200);
      expect((await session.get('/api/v1/auth/me')).status).to.equal(401);
    });
  });
}
