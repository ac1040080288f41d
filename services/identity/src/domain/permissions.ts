import type { PermissionLetter } from '@bulwark/platform';
import { ALL_LETTERS, PERMISSION_KEYS } from '@bulwark/contracts';

export const ADMIN_ROLE = 'admin';

export const LAST_ADMIN_MESSAGE = 'This change would leave no administrator who can log in; make another user an administrator first';

export interface RoleGrant {
  code: string;
  permissions: Record<string, PermissionLetter[]>;
  systemScopes: string[];
  /**
   * Set when the role comes through a user group that covers only some projects: the grant is
   * limited to those (and, when the role has `project:` scopes of its own, to the ones in both).
   */
  limitTo?: string[];
}

/** The built-in admin role holds every key of the catalogue, including keys added after it was stored. */
export function adminPermissions(): Record<string, PermissionLetter[]> {
  return Object.fromEntries(PERMISSION_KEYS.map((k) => [k.key, [...ALL_LETTERS]]));
}

const PROJECT_SCOPE = 'project:';

/**
 * A user's effective rights: the union of its roles' letters per key, the roles being its own and
 * those of its user groups. Project scope: a grant without `project:` scopes and without a group
 * limit covers every project; otherwise the union of the projects each grant covers.
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
    const covered = grantProjects(role);
    if (covered === null) projects = null;
    else if (projects) for (const p of covered) projects.add(p);
  }
  return {
    permissions: Object.fromEntries(Object.entries(permissions).map(([k, v]) => [k, ALL_LETTERS.filter((l) => v.has(l))])),
    projects: projects ? [...projects].sort() : null,
  };
}

/** The projects one grant covers; `null`: every project. */
function grantProjects(role: RoleGrant): string[] | null {
  const own = role.code === ADMIN_ROLE ? [] : role.systemScopes.filter((s) => s.startsWith(PROJECT_SCOPE)).map((s) => s.slice(PROJECT_SCOPE.length));
  if (!role.limitTo) return own.length === 0 ? null : own;
  if (own.length === 0) return role.limitTo;
  const limit = new Set(role.limitTo);
  return own.filter((p) => limit.has(p));
}
