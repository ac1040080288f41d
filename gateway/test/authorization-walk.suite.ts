import { expect } from 'chai';
import { ROUTES } from '@bulwark/contracts';
import type { RouteSpec } from '@bulwark/platform';
import { ADMIN_PASSWORD, SystemUnderTest, uniqueSuffix } from '@bulwark/testkit';

const PASSWORD = 'walk-password-1234';

function concretePath(route: RouteSpec): string {
  return route.path.replace(/\{[^}]+\}/g, 'walk-probe');
}

/**
 * Walks the whole route table with four callers: nobody (401), a user whose role grants nothing
 * (403 where a permission is needed), a user with no role of its own whose user group grants every
 * permission key (never 401 or 403: rights through a group count like one's own), and the admin
 * (never 401 or 403). A route added to the table is walked without touching this test.
 */
export function authorizationWalk(t: SystemUnderTest): void {
  let nobody: ReturnType<SystemUnderTest['anon']['as']>;
  let throughGroup: ReturnType<SystemUnderTest['anon']['as']>;
  let usernames: { nobody: string; throughGroup: string };
  const routes = ROUTES.filter((r) => r.service !== 'gateway');

  before(async () => {
    const username = `norights_${uniqueSuffix()}`;
    const role = `empty_${uniqueSuffix()}`;
    expect(
      (await t.admin.post('/api/v1/role', { role_code: role, role_name: 'No rights', roles: {} })).status,
    ).to.equal(200);
    expect(
      (
        await t.admin.post('/api/v1/user', {
          username,
          password: PASSWORD,
          password_confirmation: PASSWORD,
          roles: [role],
        })
      ).status,
    ).to.equal(200);
    nobody = t.anon.as(await t.anon.login(username, PASSWORD));

    const keys: string[] = (await t.admin.get('/api/v1/permissions')).body.keys.map((k: { key: string }) => k.key);
    const everything = `every_key_${uniqueSuffix()}`;
    const roleRes = await t.admin.post('/api/v1/role', {
      role_code: everything,
      role_name: 'Every key',
      roles: Object.fromEntries(keys.map((k) => [k, ['r', 'w', 'x', 'd']])),
    });
    expect(roleRes.status, JSON.stringify(roleRes.body)).to.equal(200);
    const member = `grouped_${uniqueSuffix()}`;
    const userRes = await t.admin.post('/api/v1/user', {
      username: member,
      password: PASSWORD,
      password_confirmation: PASSWORD,
    });
    expect(userRes.status, JSON.stringify(userRes.body)).to.equal(200);
    const groupRes = await t.admin.post('/api/v1/group', {
      name: `Walk ${member}`,
      user_ids: [userRes.body.id],
      roles: [everything],
    });
    expect(groupRes.status, JSON.stringify(groupRes.body)).to.equal(200);
    throughGroup = t.anon.as(await t.anon.login(member, PASSWORD));
    usernames = { nobody: username, throughGroup: member };
  });

  // Logging out ends the caller's token: that route is walked with a session of each caller made for it.
  const callers = async (route: RouteSpec) => {
    if (route.operationId !== 'logout') return { nobody, throughGroup, admin: t.admin };
    const fresh = async (username: string, password: string) => t.anon.as(await t.anon.login(username, password));
    return {
      nobody: await fresh(usernames.nobody, PASSWORD),
      throughGroup: await fresh(usernames.throughGroup, PASSWORD),
      admin: await fresh('admin', ADMIN_PASSWORD),
    };
  };

  it('covers every route of the table', () => {
    expect(routes.length).to.be.greaterThan(20);
  });

  for (const route of routes) {
    const label = `${route.method.toUpperCase()} ${route.path} (${route.access.kind === 'permission' ? `${route.access.key}:${route.access.letter}` : route.access.kind})`;
    it(label, async () => {
      const path = concretePath(route);
      const send = (api: typeof t.anon) =>
        api.request(route.method.toUpperCase(), path, route.method === 'get' ? undefined : {});
      if (route.gone) {
        expect((await send(t.anon)).status).to.equal(410);
        return;
      }
      const who = await callers(route);
      const anon = await send(t.anon);
      if (route.access.kind === 'public') expect(anon.status).to.not.be.oneOf([401, 403]);
      else expect(anon.status, 'unauthenticated caller').to.equal(401);

      const weak = await send(who.nobody);
      if (route.access.kind === 'permission') {
        expect(weak.status, 'caller without rights').to.equal(403);
        expect(weak.body.error.message).to.contain(route.access.key);
      } else expect(weak.status, 'authenticated caller').to.not.be.oneOf([401, 403]);

      const grouped = await send(who.throughGroup);
      expect(grouped.status, `rights through a group: ${JSON.stringify(grouped.body)}`).to.not.be.oneOf([401, 403]);

      const admin = await send(who.admin);
      expect(admin.status, `admin: ${JSON.stringify(admin.body)}`).to.not.be.oneOf([401, 403]);
      expect(admin.status, `admin: ${JSON.stringify(admin.body)}`).to.be.below(500);
    });
  }
}
