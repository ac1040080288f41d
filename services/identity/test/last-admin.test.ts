import { expect } from 'chai';
import { ADMIN_PASSWORD, Api, RunningSystem, startAllMode, type Json } from '@bulwark/testkit';

const PASSWORD = 'correct-horse-battery';

// A system of its own: these tests need the built-in admin to be the only administrator, which the
// shared suites cannot promise.
describe('identity: no change locks out the last administrator who can log in [TARGET=all]', function () {
  this.timeout(120000);
  let sys: RunningSystem;
  let admin: Api;
  let adminId: string;
  let operator: Api;

  before(async () => {
    sys = await startAllMode();
    admin = sys.api.as(await sys.api.login('admin', ADMIN_PASSWORD));
    adminId = (await admin.get('/api/v1/auth/me')).body.user.id;
    // A user manager who is not an administrator: the escalation rule keeps them off administrators.
    const role = await admin.post('/api/v1/role', {
      role_code: 'user_managers',
      role_name: 'User managers',
      roles: { 'administration.users': ['r', 'w', 'd'] },
    });
    expect(role.status, JSON.stringify(role.body)).to.equal(200);
    await admin.createUser('operator', PASSWORD, ['user_managers']);
    operator = sys.api.as(await sys.api.login('operator', PASSWORD));
  });

  after(async () => sys?.stop());

  const adminCanLogIn = async () =>
    (await sys.api.post('/api/v1/auth/login', { username: 'admin', password: ADMIN_PASSWORD })).status;

  it('refuses to make oneself a directory user while no directory login is configured (409 naming active_directory)', async () => {
    const res = await admin.put(`/api/v1/user/${adminId}`, { active_directory: true });
    expect(res.status, JSON.stringify(res.body)).to.equal(409);
    expect(res.body.error.details.map((d: { field: string }) => d.field)).to.include('active_directory');
    expect((await admin.get('/api/v1/auth/me')).status).to.equal(200);
    expect(await adminCanLogIn()).to.equal(200);
  });

  it('refuses a user manager who is not an administrator to turn the last administrator into a directory user or take the admin role away', async () => {
    // Only administrators act on administrators (the escalation rule), before the last-admin rule is asked.
    const directory = await operator.put(`/api/v1/user/${adminId}`, { active_directory: true });
    expect(directory.status, JSON.stringify(directory.body)).to.equal(403);
    expect(directory.body.error.message).to.match(/who holds the built-in admin role/);
    const roles = await operator.put(`/api/v1/user/${adminId}`, { roles: [] });
    expect(roles.status, JSON.stringify(roles.body)).to.equal(403);
    const me = await admin.get('/api/v1/auth/me');
    expect(me.body.user.roles ?? me.body.roles ?? []).to.satisfy((r: unknown) => JSON.stringify(r).includes('admin'));
    expect(await adminCanLogIn()).to.equal(200);
  });

  it('refuses to delete the last administrator, and allows it once another one can log in', async () => {
    const forbidden = await operator.delete('/api/v1/users', { ids: [adminId] });
    expect(forbidden.body.results[0].status, JSON.stringify(forbidden.body)).to.equal('forbidden');

    // An administrator who cannot log in any more (a directory user while no directory login is
    // configured) still holds an API token: deleting the last one who can is refused.
    const secondId = await admin.createUser('second_admin', PASSWORD, ['admin']);
    const token = await sys.api
      .as(await sys.api.login('second_admin', PASSWORD))
      .post('/api/v1/token', { name: 'kept', expires_at: new Date(Date.now() + 86400000).toISOString() });
    const secondByToken = sys.api.as(token.body.token);
    expect((await admin.put(`/api/v1/user/${secondId}`, { active_directory: true })).status).to.equal(200);
    const refused = await secondByToken.delete('/api/v1/users', { ids: [adminId] });
    expect(refused.status).to.equal(200);
    expect(refused.body.results).to.deep.equal([
      { id: adminId, status: 'conflict', message: refused.body.results[0].message },
    ]);
    expect(refused.body.results[0].message).to.match(/no administrator who can log in/);
    expect(await adminCanLogIn()).to.equal(200);

    const local = await admin.put(`/api/v1/user/${secondId}`, {
      active_directory: false,
      password: PASSWORD,
      password_confirmation: PASSWORD,
    });
    expect(local.status, JSON.stringify(local.body)).to.equal(200);
    const deleted = await secondByToken.delete('/api/v1/users', { ids: [adminId, secondId] });
    expect(deleted.body.results.map((r: { status: string }) => r.status)).to.deep.equal(['deleted', 'conflict']);
    const secondAdmin = sys.api.as(await sys.api.login('second_admin', PASSWORD));
    expect((await secondAdmin.get('/api/v1/users')).status).to.equal(200);
    const restored = await secondAdmin.put('/api/v1/restore-users', { ids: [adminId] });
    expect(restored.body.results[0].status).to.equal('restored');
  });

  it('counts an administrator through a user group, and refuses removing the last one through groups (409)', async () => {
    const ok = (res: { status: number; body: Json }) => {
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      return res.body;
    };
    // The deletion above ended the admin's sessions.
    admin = sys.api.as(await sys.api.login('admin', ADMIN_PASSWORD));
    ok(
      await admin.put('/api/v1/role/user_managers', {
        roles: { 'administration.users': ['r', 'w', 'd'], 'administration.groups': ['r', 'w', 'd'] },
      }),
    );
    const groupAdminId = ok(
      await admin.post('/api/v1/user', {
        username: 'group_admin',
        password: PASSWORD,
        password_confirmation: PASSWORD,
      }),
    ).id;
    // A group granting the admin role is an administrator's to make or change (the escalation rule).
    const notAdmin = await operator.post('/api/v1/group', { name: 'Administrators', roles: ['admin'] });
    expect(notAdmin.status, JSON.stringify(notAdmin.body)).to.equal(403);
    const group = ok(
      await admin.post('/api/v1/group', { name: 'Administrators', roles: ['admin'], user_ids: [groupAdminId] }),
    );
    const groupAdmin = sys.api.as(await sys.api.login('group_admin', PASSWORD));
    expect(ok(await groupAdmin.get('/api/v1/auth/me')).projects).to.equal(null);

    // With group_admin an administrator through the group, the others may go.
    const second = ok(await admin.get('/api/v1/users?search[username]=second_admin')).items[0];
    ok(await groupAdmin.put(`/api/v1/user/${adminId}`, { roles: [] }));
    expect(ok(await groupAdmin.delete('/api/v1/users', { ids: [second.id] })).results[0].status).to.equal('deleted');

    // The last administrator, through the group, cannot leave it, empty it or delete it.
    for (const change of [{ user_ids: [] }, { roles: [] }]) {
      const refused = await groupAdmin.put(`/api/v1/group/${group.id}`, change);
      expect(refused.status, JSON.stringify(refused.body)).to.equal(409);
      expect(refused.body.error.message).to.match(/no administrator who can log in/);
    }
    const kept = ok(await groupAdmin.delete('/api/v1/groups', { ids: [group.id] })).results;
    expect(kept).to.deep.equal([{ id: group.id, status: 'conflict', message: kept[0].message }]);
    expect(kept[0].message).to.match(/no administrator who can log in/);
    expect(ok(await operator.delete('/api/v1/users', { ids: [groupAdminId] })).results[0].status).to.equal('forbidden');
    expect(ok(await operator.get(`/api/v1/group/${group.id}`)).users).to.deep.equal([
      { id: groupAdminId, username: 'group_admin' },
    ]);
    expect((await groupAdmin.get('/api/v1/users')).status).to.equal(200);

    // Once another administrator can log in, the group may go.
    ok(await groupAdmin.put(`/api/v1/user/${adminId}`, { roles: ['admin'] }));
    expect(ok(await groupAdmin.delete('/api/v1/groups', { ids: [group.id] })).results[0].status).to.equal('deleted');
    expect((await groupAdmin.get('/api/v1/users')).status).to.equal(403);
    expect(await adminCanLogIn()).to.equal(200);
  });
});
