import type { PermissionLetter } from '@bulwark/platform';
import { normalizeDn } from './ldap';
import type { RoleGrant } from './permissions';

/**
 * What a directory member entry of a group is compared by: an entry with "=" is an LDAP DN (compared
 * normalized), any other a group name or group-claim value (compared in lower case). The same rule as
 * a role's domain_group.
 */
export function directoryKey(entry: string): string {
  return entry.includes('=') ? `dn:${normalizeDn(entry)}` : `name:${entry.trim().toLowerCase()}`;
}

/** The keys of a directory person's LDAP groups: each by DN and by name. */
export function ldapGroupKeys(groups: { dn: string; name: string }[]): string[] {
  return [...new Set(groups.flatMap((g) => [`dn:${normalizeDn(g.dn)}`, `name:${g.name.trim().toLowerCase()}`]))];
}

/** The keys of a single sign-on person's group-claim values: by value, and by DN when it reads as one. */
export function claimGroupKeys(values: string[]): string[] {
  return [
    ...new Set(
      values.flatMap((v) =>
        v.includes('=') ? [`name:${v.trim().toLowerCase()}`, directoryKey(v)] : [directoryKey(v)],
      ),
    ),
  ];
}

export interface GroupGrantSource {
  roles: string[];
  projectTags: string[];
  projectCodes: string[];
}

/** The projects a group covers (its codes and the projects having one of its tags); `undefined`: every project. */
export function groupProjects(
  g: Pick<GroupGrantSource, 'projectTags' | 'projectCodes'>,
  taggedProjects: Map<string, string[]>,
): string[] | undefined {
  if (g.projectTags.length === 0 && g.projectCodes.length === 0) return undefined;
  return [
    ...new Set([...g.projectCodes, ...g.projectTags.flatMap((t) => taggedProjects.get(t.toLowerCase()) ?? [])]),
  ].sort();
}

/**
 * The grants a user gets from its groups: every role of every group, limited to the projects the
 * group covers (its project codes and the projects having one of its tags, `taggedProjects` mapping
 * a lower-case tag to them). A group naming neither tags nor codes covers every project.
 */
export function groupGrants(
  groups: GroupGrantSource[],
  roles: Map<string, { permissions: Record<string, PermissionLetter[]>; systemScopes: string[] }>,
  taggedProjects: Map<string, string[]>,
): RoleGrant[] {
  const grants: RoleGrant[] = [];
  for (const g of groups) {
    const covered = groupProjects(g, taggedProjects);
    for (const code of g.roles) {
      const role = roles.get(code);
      if (role)
        grants.push({
          code,
          permissions: role.permissions,
          systemScopes: role.systemScopes,
          ...(covered ? { limitTo: covered } : {}),
        });
    }
  }
  return grants;
}
