import { expect } from 'chai';
import { Api, LdapServer, requireInfra, SystemUnderTest, uniqueSuffix, type Json } from '@bulwark/testkit';

const PASSWORD = 'group-member-password-1';

interface Res {
  status: number;
  body: Json;
}

function ok(res: Res) {
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body;
}

function fieldError(res: Res, status: number, field: string): string {
  expect(res.status, JSON.stringify(res.body)).to.equal(status);
  expect(
    res.body.error.details.map((d: { field: string }) => d.field),
    JSON.stringify(res.body),
  ).to.include(field);
  return res.body.error.message as string;
}

/** Waits until `probe` holds: project tags reach identity through the catalog's events, asynchronously. */
async function eventually(what: string, probe: () => Promise<boolean>, ms = 30000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * User groups (GET/POST/PUT /group..., GET and DELETE /groups): CRUD, search, bulk delete, and rights
 * that members get through a group, limited to the projects it covers, enforced by the catalog.
 */
export function groupsSuite(t: SystemUnderTest): void {
  const sfx = uniqueSuffix();
  const tagX = `pci-${sfx}`;
  const tagY = `web-${sfx}`;
  const projA = `ga-${sfx}`;
  const projB = `gb-${sfx}`;
  const projC = `gc-${sfx}`;
  let projectReader: string;
  let layerWriter: string;

  const createGroup = (body: Record<string, unknown>) => t.admin.post('/api/v1/group', body);
  const newUser = async (roles: string[] = []): Promise<{ id: string; username: string; api: Api }> => {
    const username = `gm_${uniqueSuffix()}`;
    const res = ok(
      await t.admin.post('/api/v1/user', { username, password: PASSWORD, password_confirmation: PASSWORD, roles }),
    );
    return { id: res.id, username, api: t.anon.as(await t.anon.login(username, PASSWORD)) };
  };
  const visibleProjects = async (api: Api) => {
    const res = await api.get(`/api/v1/projects?limit=1000&search[code]=${sfx}`);
    return res.status === 200 ? (res.body.items as { code: string }[]).map((p) => p.code).sort() : res.status;
  };

  before(async () => {
    ok(await t.admin.post('/api/v1/project', { code: projA, name: 'Group A', description: '', tags: [tagX] }));
    ok(await t.admin.post('/api/v1/project', { code: projB, name: 'Group B', description: '', tags: [tagY] }));
    ok(await t.admin.post('/api/v1/project', { code: projC, name: 'Group C', description: '', tags: [] }));
    projectReader = `greader_${sfx}`;
    ok(
      await t.admin.post('/api/v1/role', {
        role_code: projectReader,
        role_name: 'Project reader',
        roles: { 'catalog.projects': ['r'] },
      }),
    );
    layerWriter = `glayers_${sfx}`;
    ok(
      await t.admin.post('/api/v1/role', {
        role_code: layerWriter,
        role_name: 'Layer writer',
        roles: { 'catalog.layers': ['r', 'w'] },
      }),
    );
  });

  describe('the operations', () => {
    it('are in the OpenAPI document with their permissions; DELETE /group/{id} is gone (410)', async () => {
      const doc = (await t.anon.get('/api/v1/swagger/doc.json')).body;
      const perm = (path: string, method: string) => doc.paths[path][method]['x-permission'];
      const routes: [string, string, string][] = [
        ['/api/v1/group', 'post', 'w'],
        ['/api/v1/groups', 'get', 'r'],
        ['/api/v1/groups', 'delete', 'd'],
        ['/api/v1/group/{id}', 'get', 'r'],
        ['/api/v1/group/{id}', 'put', 'w'],
      ];
      for (const [path, method, letter] of routes)
        expect(perm(path, method)).to.deep.equal({ key: 'administration.groups', letter, project_scope: 'grants' });
      const params = doc.paths['/api/v1/groups'].get.parameters.map((p: { name: string }) => p.name);
      expect(params).to.include.members(['search[name]', 'search[project_tags]', 'page', 'limit']);
      expect(doc.components.schemas.GroupCreate.properties).to.include.keys(
        'user_ids',
        'domain_group',
        'roles',
        'project_tags',
        'project_codes',
      );
      expect((await t.admin.delete('/api/v1/group/00000000-0000-0000-0000-000000000000')).status).to.equal(410);
    });

    it('creates, gets and changes a group; lists left out keep their value, lists sent replace', async () => {
      const member = await newUser();
      const created = ok(
        await createGroup({
          name: `Appsec ${sfx}`,
          description: 'the team',
          user_ids: [member.id, member.id],
          domain_group: ['CN=AppSec,OU=Groups,DC=example,DC=com', 'appsec'],
          roles: [projectReader],
          project_tags: [tagX, tagX.toUpperCase()],
          project_codes: [projC],
        }),
      );
      expect(created).to.include({ name: `Appsec ${sfx}`, description: 'the team', all_projects: false });
      expect(created.id).to.be.a('string');
      expect(created.users).to.deep.equal([{ id: member.id, username: member.username }]);
      expect(created.roles).to.deep.equal([projectReader]);
      expect(created.project_tags).to.deep.equal([tagX]);
      expect(created.project_codes).to.deep.equal([projC]);
      expect(created.domain_group).to.deep.equal(['CN=AppSec,OU=Groups,DC=example,DC=com', 'appsec']);

      expect(ok(await t.admin.get(`/api/v1/group/${created.id}`))).to.deep.equal(created);
      const renamed = ok(await t.admin.put(`/api/v1/group/${created.id}`, { description: 'the appsec team' }));
      expect(renamed).to.include({ description: 'the appsec team', name: created.name });
      expect(renamed.users).to.deep.equal(created.users);
      expect(renamed.roles).to.deep.equal(created.roles);
      const everywhere = ok(
        await t.admin.put(`/api/v1/group/${created.id}`, {
          user_ids: [],
          project_tags: [],
          project_codes: [],
          domain_group: ['other'],
        }),
      );
      expect(everywhere).to.include({ all_projects: true });
      expect(everywhere.users).to.deep.equal([]);
      expect(everywhere.domain_group).to.deep.equal(['other']);
      expect(everywhere.roles).to.deep.equal([projectReader]);
    });

    it('refuses bad input with 4xx naming the field, and changes nothing', async () => {
      const name = `Bad ${sfx}`;
      fieldError(await createGroup({}), 400, 'name');
      fieldError(await createGroup({ name: '   ' }), 400, 'name');
      fieldError(await createGroup({ name, surprise: 1 }), 400, 'surprise');
      fieldError(await createGroup({ name, user_ids: ['00000000-0000-0000-0000-000000000000'] }), 400, 'user_ids[0]');
      fieldError(await createGroup({ name, user_ids: ['not-a-uuid'] }), 400, 'user_ids[0]');
      const someone = await newUser();
      fieldError(await createGroup({ name, user_ids: [someone.id, someone.id, 'not-a-uuid'] }), 400, 'user_ids[2]');
      fieldError(await createGroup({ name, roles: [projectReader, 'no-such-role'] }), 400, 'roles[1]');
      fieldError(await createGroup({ name, project_codes: ['bad code'] }), 400, 'project_codes[0]');
      fieldError(await createGroup({ name, project_tags: [''] }), 400, 'project_tags[0]');
      fieldError(await createGroup({ name, domain_group: 'cn=x' }), 400, 'domain_group');
      const adminMessage = fieldError(
        await createGroup({ name, roles: ['admin'], project_tags: [tagX] }),
        400,
        'roles',
      );
      expect(adminMessage).to.contain('admin');
      expect(ok(await t.admin.get(`/api/v1/groups?search[name]=${encodeURIComponent(name)}`)).total).to.equal(0);

      const taken = ok(await createGroup({ name: `Taken ${sfx}` }));
      fieldError(await createGroup({ name: `TAKEN ${sfx}` }), 409, 'name');
      const other = ok(await createGroup({ name: `Other ${sfx}` }));
      fieldError(await t.admin.put(`/api/v1/group/${other.id}`, { name: `taken ${sfx}` }), 409, 'name');
      fieldError(
        await t.admin.put(`/api/v1/group/${taken.id}`, { roles: ['admin'], project_codes: [projA] }),
        400,
        'roles',
      );
      expect((await t.admin.get('/api/v1/group/not-a-uuid')).status).to.equal(404);
      expect(
        (await t.admin.put('/api/v1/group/00000000-0000-0000-0000-000000000000', { description: 'x' })).status,
      ).to.equal(404);
      fieldError(await t.admin.get('/api/v1/groups?search[size]=1'), 400, 'search[size]');
      fieldError(await t.admin.get('/api/v1/groups?limit=1001'), 400, 'limit');
    });

    it('lists groups by search[name] and search[project_tags], paged', async () => {
      const names = ['Alpha', 'Beta', 'Gamma'].map((n) => `${n} list ${sfx}`);
      ok(await createGroup({ name: names[0], project_tags: [`red-${sfx}`] }));
      ok(await createGroup({ name: names[1], project_tags: [`Blue-${sfx}`, `green-${sfx}`] }));
      ok(await createGroup({ name: names[2] }));
      const list = async (query: string) => ok(await t.admin.get(`/api/v1/groups?${query}`));
      const all = await list(`search[name]=${encodeURIComponent(`list ${sfx}`)}`);
      expect(all.items.map((g: { name: string }) => g.name)).to.deep.equal(names);
      expect(all).to.include({ total: 3, page: 1, limit: 50 });
      const page2 = await list(`search[name]=${encodeURIComponent(`LIST ${sfx}`)}&limit=2&page=2`);
      expect(page2.items.map((g: { name: string }) => g.name)).to.deep.equal([names[2]]);
      expect(page2).to.include({ total: 3, page: 2, limit: 2 });
      expect((await list(`search[project_tags]=blue-${sfx}`)).items.map((g: { name: string }) => g.name)).to.deep.equal(
        [names[1]],
      );
      expect(
        (await list(`search[project_tags]=${sfx}&search[name]=alpha`)).items.map((g: { name: string }) => g.name),
      ).to.deep.equal([names[0]]);
      expect((await list(`search[project_tags]=nothing-${sfx}`)).total).to.equal(0);
    });

    it('deletes groups in bulk, answering per id', async () => {
      const a = ok(await createGroup({ name: `Gone A ${sfx}` }));
      const b = ok(await createGroup({ name: `Gone B ${sfx}` }));
      const res = ok(
        await t.admin.delete('/api/v1/groups', { ids: [a.id, b.id, '00000000-0000-0000-0000-000000000000', 'x'] }),
      );
      expect(res.results).to.deep.equal([
        { id: a.id, status: 'deleted' },
        { id: b.id, status: 'deleted' },
        { id: '00000000-0000-0000-0000-000000000000', status: 'not_found' },
        { id: 'x', status: 'not_found' },
      ]);
      expect((await t.admin.get(`/api/v1/group/${a.id}`)).status).to.equal(404);
      fieldError(await t.admin.delete('/api/v1/groups', { ids: [] }), 400, 'ids');
    });

    it('refuses to delete a role a group holds unless asked to detach it', async () => {
      const role = `gheld_${sfx}`;
      ok(
        await t.admin.post('/api/v1/role', {
          role_code: role,
          role_name: 'Held',
          roles: { 'catalog.projects': ['r'] },
        }),
      );
      const group = ok(await createGroup({ name: `Holder ${sfx}`, roles: [role, projectReader] }));
      const refused = ok(await t.admin.delete('/api/v1/roles', { ids: [role] })).results[0];
      expect(refused.status).to.equal('conflict');
      expect(refused.message).to.contain('1 user group(s)');
      expect(ok(await t.admin.delete('/api/v1/roles', { ids: [role], detach: true })).results[0].status).to.equal(
        'deleted',
      );
      expect(ok(await t.admin.get(`/api/v1/group/${group.id}`)).roles).to.deep.equal([projectReader]);
    });
  });

  describe('rights through a group', () => {
    it('grants the group\u2019s roles only on the projects it covers, by tag and by code, in another service', async () => {
      const member = await newUser();
      expect(await visibleProjects(member.api)).to.equal(403);
      const group = ok(
        await createGroup({
          name: `Scoped ${sfx}`,
          user_ids: [member.id],
          roles: [projectReader, layerWriter],
          project_tags: [tagX.toUpperCase()],
        }),
      );

      await eventually(
        `${projA} is covered through tag ${tagX}`,
        async () => JSON.stringify(await visibleProjects(member.api)) === JSON.stringify([projA]),
      );
      const me = ok(await member.api.get('/api/v1/auth/me'));
      expect(me.projects).to.deep.equal([projA]);
      expect(me.permissions).to.deep.equal({ 'catalog.layers': ['r', 'w'], 'catalog.projects': ['r'] });
      expect(me.groups).to.deep.equal([{ id: group.id, name: group.name }]);
      expect(me.user.roles).to.deep.equal([]);
      ok(await member.api.get(`/api/v1/project/${projA}`));
      expect((await member.api.get(`/api/v1/project/${projB}`)).status).to.equal(404);
      ok(
        await member.api.post('/api/v1/layer', {
          name: 'In A',
          description: '',
          project_code: projA,
          layer_type_id: 1,
          is_template: false,
        }),
      );
      const outside = await member.api.post('/api/v1/layer', {
        name: 'In B',
        description: '',
        project_code: projB,
        layer_type_id: 1,
        is_template: false,
      });
      expect(outside.status, JSON.stringify(outside.body)).to.be.oneOf([400, 404]);
      // What the group does not grant stays refused everywhere.
      expect((await member.api.put(`/api/v1/project/${projA}`, { description: 'changed' })).status).to.equal(403);

      ok(await t.admin.put(`/api/v1/group/${group.id}`, { project_codes: [projC] }));
      expect(await visibleProjects(member.api)).to.deep.equal([projA, projC].sort());

      // A project that gets the tag later is covered as soon as identity hears of it.
      ok(await t.admin.put(`/api/v1/project/${projB}`, { tags: [tagY, tagX] }));
      await eventually(
        `${projB} is covered once tagged ${tagX}`,
        async () => (await member.api.get(`/api/v1/project/${projB}`)).status === 200,
      );
      ok(await t.admin.put(`/api/v1/project/${projB}`, { tags: [tagY] }));
      await eventually(
        `${projB} is no longer covered once untagged`,
        async () => (await member.api.get(`/api/v1/project/${projB}`)).status === 404,
      );

      ok(await t.admin.put(`/api/v1/group/${group.id}`, { user_ids: [] }));
      expect(await visibleProjects(member.api)).to.equal(403);
      expect(ok(await member.api.get('/api/v1/auth/me')).groups).to.deep.equal([]);
    });

    it('adds group rights to the user\u2019s own; a group naming no projects covers every project; deleting the group takes its rights at once', async () => {
      const ownScoped = `gown_${sfx}`;
      ok(
        await t.admin.post('/api/v1/role', {
          role_code: ownScoped,
          role_name: 'Own scoped',
          roles: { 'catalog.projects': ['r'] },
          system_scopes: [`project:${projC}`],
        }),
      );
      const member = await newUser([ownScoped]);
      expect(await visibleProjects(member.api)).to.deep.equal([projC]);
      const byCode = ok(
        await createGroup({
          name: `By code ${sfx}`,
          user_ids: [member.id],
          roles: [projectReader],
          project_codes: [projB],
        }),
      );
      expect(await visibleProjects(member.api)).to.deep.equal([projB, projC].sort());
      const everywhere = ok(
        await createGroup({ name: `Everywhere ${sfx}`, user_ids: [member.id], roles: [layerWriter] }),
      );
      expect(ok(await member.api.get('/api/v1/auth/me')).projects).to.equal(null);
      // Listing projects takes catalog.projects:r, which only the own role (C) and the first group (B) give.
      expect(await visibleProjects(member.api)).to.deep.equal([projB, projC].sort());
      ok(
        await member.api.post('/api/v1/layer', {
          name: 'Everywhere, in A',
          description: '',
          project_code: projA,
          layer_type_id: 1,
          is_template: false,
        }),
      );
      ok(await t.admin.delete('/api/v1/groups', { ids: [everywhere.id, byCode.id] }));
      expect(await visibleProjects(member.api)).to.deep.equal([projC]);
    });

    it('keeps a group\u2019s role on the group\u2019s projects even when an own role covers every project', async () => {
      const member = await newUser([projectReader]);
      const group = ok(
        await createGroup({
          name: `Beside own ${sfx}`,
          user_ids: [member.id],
          roles: [layerWriter],
          project_tags: [tagX],
        }),
      );
      expect(ok(await member.api.get('/api/v1/auth/me')).projects).to.equal(null);
      ok(await member.api.get(`/api/v1/project/${projB}`));
      ok(
        await member.api.post('/api/v1/layer', {
          name: 'Beside own, in A',
          description: '',
          project_code: projA,
          layer_type_id: 1,
          is_template: false,
        }),
      );
      const outside = await member.api.post('/api/v1/layer', {
        name: 'Beside own, in B',
        description: '',
        project_code: projB,
        layer_type_id: 1,
        is_template: false,
      });
      expect(outside.status, JSON.stringify(outside.body)).to.be.oneOf([400, 404]);
      ok(await t.admin.delete('/api/v1/groups', { ids: [group.id] }));
    });

    it('keeps GET /issue/{id}/history\u2019s responsible_group_values: kinds of actor, not user groups', async () => {
      const unknownIssue = '00000000-0000-0000-0000-000000000000';
      for (const kind of ['user', 'scan', 'security_rule', 'system']) {
        expect(
          (await t.admin.get(`/api/v1/issue/${unknownIssue}/history?responsible_group_values=${kind}`)).status,
        ).to.equal(404);
      }
      const group = ok(await createGroup({ name: `History ${sfx}` }));
      fieldError(
        await t.admin.get(`/api/v1/issue/${unknownIssue}/history?responsible_group_values=${group.id}`),
        400,
        'responsible_group_values',
      );
    });
  });

  describe('directory members', () => {
    let ldap: LdapServer;

    before(async function () {
      ldap = requireInfra(this, 'ldap').ldap;
      ok(
        await t.admin.put('/api/v1/ldap/settings', {
          enabled: true,
          urls: [ldap.url],
          start_tls: false,
          ca_certificate: null,
          bind_dn: ldap.bindDn,
          bind_password: ldap.bindPassword,
          user_search_base: `ou=people,${ldap.base}`,
          user_filter: '(&(objectClass=inetOrgPerson)(uid={username}))',
          disabled_filter: '(pwdAccountLockedTime=*)',
          group_search_base: `ou=groups,${ldap.base}`,
          nested_groups: 'walk',
        }),
      );
    });

    after(async () => {
      await t.admin.put('/api/v1/ldap/settings', { enabled: false });
    });

    /** A directory person logged in, with no roles of its own left (other suites may have given some). */
    const directoryLogin = async (username: string): Promise<Api> => {
      const res = await t.anon.post('/api/v1/auth/login', { username, password: ldap.userPassword });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      const api = t.anon.as(res.body.access_token);
      const me = ok(await api.get('/api/v1/auth/me'));
      ok(await t.admin.put(`/api/v1/user/${me.user.id}`, { roles: [] }));
      return api;
    };

    it('gives a directory user the rights of a group whose member is their LDAP group (by DN, or by name through a nested group)', async () => {
      const group = ok(
        await createGroup({
          name: `Developers ${sfx}`,
          domain_group: [`CN=Developers, ou=groups,${ldap.base}`],
          roles: [projectReader],
          project_codes: [projA],
        }),
      );
      const bob = await directoryLogin('bob');
      const me = ok(await bob.get('/api/v1/auth/me'));
      expect(me.user.active_directory).to.equal(true);
      expect(me.groups).to.deep.equal([{ id: group.id, name: group.name }]);
      expect(me.projects).to.deep.equal([projA]);
      ok(await bob.get(`/api/v1/project/${projA}`));
      expect((await bob.get(`/api/v1/project/${projB}`)).status).to.equal(404);

      // alice is in security-admins only (erin, in no group, is left alone: the directory suite throttles her logins).
      const alice = await directoryLogin('alice');
      expect(ok(await alice.get('/api/v1/auth/me')).groups).to.deep.equal([]);
      expect((await alice.get(`/api/v1/project/${projA}`)).status).to.equal(403);

      // dave is in team-leads, itself in developers: matched by the name of the outer group.
      ok(await t.admin.put(`/api/v1/group/${group.id}`, { domain_group: ['developers'] }));
      const dave = await directoryLogin('dave');
      ok(await dave.get(`/api/v1/project/${projA}`));

      // A change of the group applies at once, without a new login.
      ok(await t.admin.put(`/api/v1/group/${group.id}`, { domain_group: ['security-admins'] }));
      expect((await bob.get(`/api/v1/project/${projA}`)).status).to.equal(403);
      expect(ok(await bob.get('/api/v1/auth/me')).groups).to.deep.equal([]);
      ok(await alice.get(`/api/v1/project/${projA}`));
    });
  });
}
