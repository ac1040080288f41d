import { expect } from 'chai';
import { escalationRefusal, heldRights, shortfalls } from './escalation';
import { ADMIN_ROLE, adminPermissions, RoleGrant } from './permissions';

describe('identity: the escalation rule', () => {
  const role = (
    code: string,
    permissions: RoleGrant['permissions'],
    projects: string[] = [],
    limitTo?: string[],
  ): RoleGrant => ({
    code,
    permissions,
    systemScopes: projects.map((p) => `project:${p}`),
    ...(limitTo ? { limitTo } : {}),
  });
  const admin = role(ADMIN_ROLE, {});
  const issuesWriter = role('writer', { 'issues.issues': ['r', 'w'] });
  const refusal = (caller: RoleGrant[], granted: RoleGrant[]) =>
    escalationRefusal({ kind: 'grant' }, shortfalls(heldRights(caller), heldRights(granted)));

  const table: { name: string; caller: RoleGrant[]; granted: RoleGrant[]; refused: string | undefined }[] = [
    { name: 'granting nothing needs nothing', caller: [], granted: [], refused: undefined },
    { name: 'the same letters on every project', caller: [issuesWriter], granted: [issuesWriter], refused: undefined },
    {
      name: 'a letter the caller lacks',
      caller: [role('reader', { 'issues.issues': ['r'] })],
      granted: [issuesWriter],
      refused: 'Granting issues.issues:w on every project requires holding it on every project; you do not hold it',
    },
    {
      name: 'on every project, held on one',
      caller: [role('a-writer', { 'issues.issues': ['r', 'w'] }, ['A'])],
      granted: [issuesWriter],
      refused:
        'Granting issues.issues:r on every project requires holding it on every project; you hold it on project A (also missing: issues.issues:w)',
    },
    {
      name: 'on project A, held on A and B',
      caller: [role('ab', { 'issues.issues': ['r', 'w'] }, ['A', 'B'])],
      granted: [role('a', { 'issues.issues': ['w'] }, ['A'])],
      refused: undefined,
    },
    {
      name: 'on project B, held on A',
      caller: [role('a', { 'issues.issues': ['w'] }, ['A'])],
      granted: [role('b', { 'issues.issues': ['w'] }, ['B'])],
      refused: 'Granting issues.issues:w on project B requires holding it on project B; you hold it on project A',
    },
    {
      name: 'a letter held through a group limited to A does not cover every project',
      caller: [role('writer', { 'issues.issues': ['w'] }, [], ['A'])],
      granted: [role('w', { 'issues.issues': ['w'] })],
      refused:
        'Granting issues.issues:w on every project requires holding it on every project; you hold it on project A',
    },
    {
      name: 'a group limit that leaves a role no project grants nothing',
      caller: [],
      granted: [role('a', { 'issues.issues': ['w'] }, ['A'], ['B'])],
      refused: undefined,
    },
    {
      name: 'the admin role needs the admin role, even of a holder of every key',
      caller: [role('everything', adminPermissions())],
      granted: [admin],
      refused:
        'Granting the built-in admin role requires holding that role: only administrators give, take or act on it',
    },
    { name: 'an administrator grants the admin role', caller: [admin], granted: [admin], refused: undefined },
    {
      name: 'an administrator grants any letter on any project',
      caller: [admin],
      granted: [issuesWriter, role('b', { 'catalog.projects': ['d'] }, ['B'])],
      refused: undefined,
    },
    {
      name: 'more than five missing: the first named with its scope, five more by name, the rest counted',
      caller: [],
      granted: [role('many', { 'issues.issues': ['r', 'w', 'x', 'd'], 'catalog.projects': ['r', 'w', 'x', 'd'] })],
      refused:
        'Granting issues.issues:r on every project requires holding it on every project; you do not hold it (also missing: issues.issues:w, issues.issues:x, issues.issues:d, catalog.projects:r, catalog.projects:w and 2 more)',
    },
  ];
  for (const row of table) {
    it(row.name, () => {
      expect(refusal(row.caller, row.granted)).to.equal(row.refused);
    });
  }

  it('names the object changed or the user acted on', () => {
    const missing = shortfalls(heldRights([]), heldRights([role('b', { 'issues.issues': ['w'] }, ['B'])]));
    expect(escalationRefusal({ kind: 'grantor', action: 'Changing', what: 'role b' }, missing)).to.equal(
      'Changing role b, which grants issues.issues:w on project B, requires holding it on project B; you do not hold it',
    );
    expect(escalationRefusal({ kind: 'user', action: 'Deleting', username: 'bob' }, missing)).to.equal(
      'Deleting user bob, who holds issues.issues:w on project B, requires holding it on project B; you do not hold it',
    );
    expect(
      escalationRefusal(
        { kind: 'user', action: 'Deleting', username: 'root' },
        shortfalls(heldRights([]), heldRights([admin])),
      ),
    ).to.equal(
      'Deleting user root, who holds the built-in admin role, requires holding that role: only administrators give, take or act on it',
    );
  });

  it('names only the projects the caller sees, and counts the others', () => {
    const missing = shortfalls(
      heldRights([role('a', { 'issues.issues': ['w'] }, ['A'])]),
      heldRights([role('abc', { 'issues.issues': ['w'] }, ['A', 'B', 'C'])]),
    );
    expect(escalationRefusal({ kind: 'user', action: 'Deleting', username: 'bob' }, missing, ['A'])).to.equal(
      'Deleting user bob, who holds issues.issues:w on projects A and 2 projects outside yours, requires holding it on projects A and 2 projects outside yours; you hold it on project A',
    );
    expect(escalationRefusal({ kind: 'grant' }, missing, ['Z'])).to.contain('on 3 projects outside yours');
  });

  it('reads each letter on its own projects, never the union of the caller’s projects', () => {
    const held = heldRights([
      role('everywhere', { 'catalog.projects': ['r'] }),
      role('a', { 'issues.issues': ['w'] }, ['A']),
    ]);
    expect(held.letters.get('catalog.projects:r')).to.equal(null);
    expect(held.letters.get('issues.issues:w')).to.deep.equal(['A']);
    expect(held.admin).to.equal(false);
  });
});
