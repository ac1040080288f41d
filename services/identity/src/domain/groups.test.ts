import { expect } from 'chai';
import type { PermissionLetter } from '@bulwark/platform';
import { claimGroupKeys, directoryKey, groupGrants, ldapGroupKeys } from './groups';
import { effectiveRights, RoleGrant } from './permissions';

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
