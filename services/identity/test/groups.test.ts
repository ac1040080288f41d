import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { AUTH_EPOCH_KEY, createLogger, MemoryCache, PermissionLetter } from '@bulwark/platform';
import { DATABASE_BACKENDS, TestDatabase, testServiceData } from '@bulwark/testkit';
import { claimGroupKeys, directoryKey, groupGrants, ldapGroupKeys } from '../src/domain/groups';
import { effectiveRights, RoleGrant } from '../src/domain/permissions';
import { copyProjectTags } from '../src/events/project-tags';
import { migrations } from '../src/migrations';
import { groupStore } from '../src/store/groups';
import { roleStore } from '../src/store/roles';
import { userStore } from '../src/store/users';

describe('identity: rights through user groups', () => {
  type Role = { permissions: Record<string, PermissionLetter[]>; systemScopes: string[] };
  const reader: Role = { permissions: { 'catalog.projects': ['r'] }, systemScopes: [] };
  const writer: Role = { permissions: { 'catalog.layers': ['w'] }, systemScopes: [] };
  const scoped: Role = { permissions: { 'issues.issues': ['r'] }, systemScopes: ['project:a', 'project:b'] };
  const roles = new Map<string, Role>([
    ['reader', reader],
    ['writer', writer],
    ['scoped', scoped],
  ]);
  const tagged = new Map([
    ['pci', ['a', 'c']],
    ['web', ['b']],
  ]);
  const rightsOf = (own: RoleGrant[], groups: Parameters<typeof groupGrants>[0]) =>
    effectiveRights([...own, ...groupGrants(groups, roles, tagged)]);
  const group = (r: string[], projectTags: string[] = [], projectCodes: string[] = []) => ({
    roles: r,
    projectTags,
    projectCodes,
  });

  const table: {
    name: string;
    own: RoleGrant[];
    groups: Parameters<typeof groupGrants>[0];
    projects: string[] | null;
    keys: string[];
  }[] = [
    { name: 'no roles, no groups: nothing, no project', own: [], groups: [], projects: [], keys: [] },
    {
      name: 'a group naming no projects covers every project',
      own: [],
      groups: [group(['reader'])],
      projects: null,
      keys: ['catalog.projects'],
    },
    {
      name: 'project tags become the projects having them (any case)',
      own: [],
      groups: [group(['reader'], ['PCI'])],
      projects: ['a', 'c'],
      keys: ['catalog.projects'],
    },
    {
      name: 'tags and codes add up',
      own: [],
      groups: [group(['reader'], ['web'], ['z'])],
      projects: ['b', 'z'],
      keys: ['catalog.projects'],
    },
    {
      name: 'a tag no project has covers nothing',
      own: [],
      groups: [group(['reader'], ['none'])],
      projects: [],
      keys: ['catalog.projects'],
    },
    {
      name: 'a scoped role in a group: the projects in both',
      own: [],
      groups: [group(['scoped'], ['pci'])],
      projects: ['a'],
      keys: ['issues.issues'],
    },
    {
      name: 'a scoped role in a group naming no projects keeps its own scope',
      own: [],
      groups: [group(['scoped'])],
      projects: ['a', 'b'],
      keys: ['issues.issues'],
    },
    {
      name: 'own scoped role and a group: the union of projects and keys',
      own: [{ code: 'scoped', ...scoped }],
      groups: [group(['writer'], [], ['c'])],
      projects: ['a', 'b', 'c'],
      keys: ['catalog.layers', 'issues.issues'],
    },
    {
      name: 'own unscoped role: every project, as before groups',
      own: [{ code: 'reader', ...reader }],
      groups: [group(['writer'], ['web'])],
      projects: null,
      keys: ['catalog.layers', 'catalog.projects'],
    },
    {
      name: 'two groups: each with its projects',
      own: [],
      groups: [group(['reader'], ['web']), group(['writer'], [], ['x'])],
      projects: ['b', 'x'],
      keys: ['catalog.layers', 'catalog.projects'],
    },
    {
      name: 'a role the group names that no longer exists grants nothing',
      own: [],
      groups: [group(['gone'], ['pci'])],
      projects: [],
      keys: [],
    },
  ];
  for (const row of table) {
    it(row.name, () => {
      const rights = rightsOf(row.own, row.groups);
      expect(rights.projects).to.deep.equal(row.projects);
      expect(Object.keys(rights.permissions).sort()).to.deep.equal(row.keys);
    });
  }

  it('keeps each permission to the projects of the grants holding it: a group\u2019s role stays on its projects beside an own role on every project', () => {
    const both = { permissions: { 'catalog.projects': ['r', 'w'] as PermissionLetter[] }, systemScopes: [] };
    const withBoth = new Map<string, Role>([...roles, ['both', both]]);
    const rights = effectiveRights([
      { code: 'reader', ...reader },
      ...groupGrants([group(['writer', 'both'], ['web'])], withBoth, tagged),
    ]);
    expect(rights.projects).to.equal(null);
    expect(rights.permissions).to.deep.equal({ 'catalog.projects': ['r', 'w'], 'catalog.layers': ['w'] });
    // catalog.projects:r comes from the own role too (every project): no narrower scope.
    expect(rights.scopes).to.deep.equal({ 'catalog.projects:w': ['b'], 'catalog.layers:w': ['b'] });
    expect(
      rightsOf([], [group(['reader'], ['pci'])]).scopes,
      'one grant: its scope is the principal\u2019s',
    ).to.deep.equal({});
    const two = rightsOf([], [group(['reader'], ['web']), group(['writer'], [], ['x'])]);
    expect([two.projects, two.scopes]).to.deep.equal([
      ['b', 'x'],
      { 'catalog.projects:r': ['b'], 'catalog.layers:w': ['x'] },
    ]);
  });

  it('compares directory entries like domain_group: DNs normalized, names and claim values in lower case', () => {
    expect(directoryKey('CN=Developers, OU=Groups,DC=example,DC=com')).to.equal(
      'dn:cn=developers,ou=groups,dc=example,dc=com',
    );
    expect(directoryKey(' AppSec ')).to.equal('name:appsec');
    expect(ldapGroupKeys([{ dn: 'cn=Developers,ou=groups,dc=example,dc=com', name: 'Developers' }])).to.deep.equal([
      'dn:cn=developers,ou=groups,dc=example,dc=com',
      'name:developers',
    ]);
    expect(claimGroupKeys(['AppSec', 'cn=x,dc=y'])).to.deep.equal(['name:appsec', 'name:cn=x,dc=y', 'dn:cn=x,dc=y']);
  });
});

for (const backend of DATABASE_BACKENDS) {
  describe(`identity group store on ${backend.name}`, function () {
    let t: TestDatabase;
    before(async function () {
      t = await backend.open(this, 'identity', migrations);
      await roleStore.insert(
        t.db,
        'admin',
        { name: 'Administrator', permissions: {}, description: '', domainGroup: [], systemScopes: [] },
        true,
      );
      await roleStore.insert(t.db, 'reader', {
        name: 'Reader',
        permissions: { 'catalog.projects': ['r'] },
        description: '',
        domainGroup: [],
        systemScopes: [],
      });
    });
    after(async () => t?.close());

    const write = (name: string, extra: Partial<Parameters<typeof groupStore.insert>[2]> = {}) => ({
      name,
      description: '',
      userIds: [],
      domainGroup: [],
      roles: [],
      projectTags: [],
      projectCodes: [],
      ...extra,
    });

    it('finds a user\u2019s groups by direct membership and by the directory groups of its last login', async () => {
      const [named, directory, other] = [randomUUID(), randomUUID(), randomUUID()];
      for (const [i, id] of [named, directory, other].entries())
        await userStore.insert(t.db, id, `member${i}`, { passwordHash: 'h' });
      const g1 = randomUUID();
      const g2 = randomUUID();
      await groupStore.insert(t.db, g1, write('Named', { userIds: [named], roles: ['reader'], projectTags: ['PCI'] }));
      await groupStore.insert(
        t.db,
        g2,
        write('By directory', { domainGroup: ['CN=Devs,DC=x', 'appsec'], roles: ['reader'] }),
      );
      await groupStore.setDirectoryGroups(t.db, directory, [...ldapGroupKeys([{ dn: 'cn=devs, dc=x', name: 'devs' }])]);
      expect((await groupStore.grantsOf(t.db, named)).map((g) => [g.name, g.roles, g.projectTags])).to.deep.equal([
        ['Named', ['reader'], ['PCI']],
      ]);
      expect((await groupStore.grantsOf(t.db, directory)).map((g) => g.name)).to.deep.equal(['By directory']);
      expect(await groupStore.grantsOf(t.db, other)).to.deep.equal([]);
      await groupStore.setDirectoryGroups(t.db, directory, claimGroupKeys(['AppSec']));
      expect((await groupStore.grantsOf(t.db, directory)).map((g) => g.name)).to.deep.equal(['By directory']);
      await groupStore.setDirectoryGroups(t.db, directory, []);
      expect(await groupStore.grantsOf(t.db, directory)).to.deep.equal([]);
    });

    it('keeps project tags, telling when a change may concern a group', async () => {
      // A group names "pci" (as PCI, above).
      expect(await groupStore.putProjectTags(t.db, 'shop', ['PCI', 'web'])).to.equal(true);
      expect(await groupStore.putProjectTags(t.db, 'shop', ['web', 'pci'])).to.equal(false);
      expect(await groupStore.putProjectTags(t.db, 'blog', ['web'])).to.equal(false);
      expect(await groupStore.putProjectTags(t.db, 'shop', ['web'])).to.equal(true);
      expect(await groupStore.putProjectTags(t.db, 'shop', ['pci'], true)).to.equal(false);
      expect(await groupStore.putProjectTags(t.db, 'pay', ['pci'], true)).to.equal(true);
      expect(Object.fromEntries(await groupStore.projectsTagged(t.db, ['PCI', 'WEB']))).to.deep.equal({
        pci: ['pay'],
        web: ['blog', 'shop'],
      });
    });

    it('lists by name and project tag, paged', async () => {
      const page = await groupStore.list(t.db, { page: 1, limit: 1, searchProjectTags: 'pc' });
      expect(page.items.map((g) => g.name)).to.deep.equal(['Named']);
      expect(page.total).to.equal(1);
      expect((await groupStore.list(t.db, { page: 2, limit: 1 })).items.map((g) => g.name)).to.deep.equal(['Named']);
      expect(
        (await groupStore.list(t.db, { page: 1, limit: 50, searchName: 'DIRECT' })).items.map((g) => g.name),
      ).to.deep.equal(['By directory']);
    });

    it('copies the catalog’s pages of project tags once, adding only the projects it lacks, and moves the auth epoch', async () => {
      const catalog = Array.from({ length: 1203 }, (_, i) => ({
        code: `p${String(i).padStart(4, '0')}`,
        tags: i % 2 ? ['pci'] : ['other'],
      }));
      catalog.push({ code: 'shop', tags: ['other'] });
      const asked: string[] = [];
      const list = async (req: { afterCode: string; limit: number }) => {
        asked.push(req.afterCode);
        return {
          projects: catalog
            .filter((p) => p.code > req.afterCode)
            .sort((a, b) => a.code.localeCompare(b.code))
            .slice(0, req.limit),
        };
      };
      const cache = new MemoryCache();
      expect(await copyProjectTags(list, testServiceData(t.db), cache, createLogger('test'))()).to.equal(true);
      expect(asked).to.deep.equal(['', 'p0499', 'p0999']);
      expect(await cache.get(AUTH_EPOCH_KEY)).to.equal('1');
      const pci = (await groupStore.projectsTagged(t.db, ['pci'])).get('pci')!;
      expect(pci).to.include.members(['p0001', 'p1201', 'pay']);
      expect(pci).not.to.include('p0002');
      // "shop" was kept from an event (tags ["web"]): the older page does not overwrite it.
      expect((await groupStore.projectsTagged(t.db, ['web'])).get('web')).to.include('shop');
    });

    it('counts administrators through a group, named or by directory group', async () => {
      const [local, dirUser] = [randomUUID(), randomUUID()];
      await userStore.insert(t.db, local, 'local_admin', { passwordHash: 'h' });
      await userStore.insert(t.db, dirUser, 'dir_admin', { activeDirectory: true });
      await groupStore.insert(
        t.db,
        randomUUID(),
        write('Admins', { userIds: [local], domainGroup: ['admins'], roles: ['admin'] }),
      );
      await groupStore.setDirectoryGroups(t.db, dirUser, claimGroupKeys(['Admins']));
      expect([...(await userStore.workingAdminIds(t.db, 'admin', false))]).to.deep.equal([local]);
      expect([...(await userStore.workingAdminIds(t.db, 'admin', true))].sort()).to.deep.equal([local, dirUser].sort());
    });
  });
}
