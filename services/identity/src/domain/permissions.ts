import type { PermissionLetter } from '@bulwark/platform';
import { ALL_LETTERS, PERMISSION_KEYS } from '@bulwark/contracts';

export const ADMIN_ROLE = 'admin';

export interface RoleGrant {
  code: string;
  permissions: Record<string, PermissionLetter[]>;
  systemScopes: string[];
}

/** The built-in admin role holds every key of the catalogue, including keys added after it was stored. */
export function adminPermissions(): Record<string, PermissionLetter[]> {
  return Object.fromEntries(PERMISSION_KEYS.map((k) => [k.key, [...ALL_LETTERS]]));
}

const PROJECT_SCOPE = 'project:';

/**
 * A user's effective rights: the union of its roles' letters per key. Project scope: a role without
 * `project:` scopes covers every project; otherwise the union of the listed projects.
 */
export function effectiveRights(roles: RoleGrant[]): { permissions: Record<string, PermissionLetter[]>; projects: string[] | null } {
  const permissions: Record<string, Set<PermissionLetter>> = {};
  let projects: Set<string> | null = new Set();
  for (const role of roles) {
    const grants = role.code === ADMIN_ROLE ? adminPermissions() : role.permissions;
    for (const [key, letters] of Object.entries(grants)) {
      permissions[key] ??= new Set();
      for (const l of letters) permissions[key].add(l);
    }
    const scoped = role.systemScopes.filter((s) => s.startsWith(PROJECT_SCOPE)).map((s) => s.slice(PROJECT_SCOPE.length));
    if (role.code === ADMIN_ROLE || scoped.length === 0) projects = null;
    else if (projects) for (const p of scoped) projects.add(p);
  }
  return {
    permissions: Object.fromEntries(Object.entries(permissions).map(([k, v]) => [k, ALL_LETTERS.filter((l) => v.has(l))])),
    projects: projects ? [...projects].sort() : null,
  };
}
