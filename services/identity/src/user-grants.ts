import type { Queryable } from '@bulwark/platform';
import { groupGrants } from './domain/groups';
import type { RoleGrant } from './domain/permissions';
import { groupStore } from './store/groups';
import { roleStore } from './store/roles';

/**
 * The grants a user holds now: its own roles, and the roles of its user groups limited to the
 * projects each group covers (tags turned into project codes from identity's copy of the catalog's
 * tags). Authentication and the escalation rule both read a user's rights from here.
 */
export async function userGrants(db: Queryable, user: { id: string; roles: string[] }): Promise<RoleGrant[]> {
  const groups = await groupStore.grantsOf(db, user.id);
  const roles = await roleStore.grants(db, [...new Set([...user.roles, ...groups.flatMap((g) => g.roles)])]);
  const tagged = await groupStore.projectsTagged(
    db,
    groups.flatMap((g) => g.projectTags),
  );
  const own = new Set(user.roles);
  return [
    ...roles.filter((r) => own.has(r.code)),
    ...groupGrants(groups, new Map(roles.map((r) => [r.code, r])), tagged),
  ];
}
