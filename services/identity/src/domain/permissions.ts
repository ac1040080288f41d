import type { PermissionLetter } from '@bulwark/platform';
import { ADMIN_ROLE, ALL_LETTERS, PERMISSION_KEYS } from '@bulwark/contracts';

export { ADMIN_ROLE };

export const LAST_ADMIN_MESSAGE =
  'This change would leave no administrator who can log in; make another user an administrator first';

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

/** Projects covered: `null` is every project. */
type Coverage = Set<string> | null;

function cover(into: Coverage | undefined, covered: string[] | null): Coverage {
  if (covered === null || into === null) return null;
  const set = into ?? new Set<string>();
  for (const p of covered) set.add(p);
  return set;
}

const listOf = (c: Coverage): string[] | null => (c ? [...c].sort() : null);

/**
 * A user's effective rights: the union of its roles' letters per key, the roles being its own and
 * those of its user groups. Project scope: a grant without `project:` scopes and without a group
 * limit covers every project; otherwise the projects it covers. `projects` is the union over all
 * grants (what the user may see at all); `scopes` holds, for each permission letter whose grants
 * cover less than that, the union over the grants holding that letter, so a role from a group
 * limited to project A gives its letters on A only even when an own role covers every project.
 */
export function effectiveRights(roles: RoleGrant[]): {
  permissions: Record<string, PermissionLetter[]>;
  projects: string[] | null;
  scopes: Record<string, string[] | null>;
} {
  const byLetter = new Map<string, Coverage>();
  let projects: Coverage = new Set();
  for (const role of roles) {
    const grants = role.code === ADMIN_ROLE ? adminPermissions() : role.permissions;
    const covered = grantProjects(role);
    projects = cover(projects, covered);
    for (const [key, letters] of Object.entries(grants)) {
      for (const l of letters) byLetter.set(`${key}:${l}`, cover(byLetter.get(`${key}:${l}`), covered));
    }
  }
  const all = listOf(projects);
  const permissions: Record<string, PermissionLetter[]> = {};
  const scopes: Record<string, string[] | null> = {};
  for (const [keyLetter, coverage] of byLetter) {
    const [key, letter] = keyLetter.split(':') as [string, PermissionLetter];
    (permissions[key] ??= []).push(letter);
    const scope = listOf(coverage);
    if (JSON.stringify(scope) !== JSON.stringify(all)) scopes[keyLetter] = scope;
  }
  return {
    permissions: Object.fromEntries(
      Object.entries(permissions).map(([k, v]) => [k, ALL_LETTERS.filter((l) => v.includes(l))]),
    ),
    projects: all,
    scopes,
  };
}

/** The projects one grant covers; `null`: every project. */
function grantProjects(role: RoleGrant): string[] | null {
  const own =
    role.code === ADMIN_ROLE
      ? []
      : role.systemScopes.filter((s) => s.startsWith(PROJECT_SCOPE)).map((s) => s.slice(PROJECT_SCOPE.length));
  if (!role.limitTo) return own.length === 0 ? null : own;
  if (own.length === 0) return role.limitTo;
  const limit = new Set(role.limitTo);
  return own.filter((p) => limit.has(p));
}
