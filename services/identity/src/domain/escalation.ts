import { ADMIN_ROLE, effectiveRights, RoleGrant } from './permissions';

/**
 * The escalation rule (Kubernetes RBAC's `escalate` and `bind`): a principal grants, or acts on a
 * user who holds, only what it holds itself, letter by letter, on the same projects; the built-in
 * admin role only when it holds that role.
 */

/** The projects a permission letter covers: `null` is every project, including projects made later. */
export type LetterProjects = string[] | null;

export interface HeldRights {
  /** Holds the built-in admin role: every key, including keys added later, so only an admin covers it. */
  admin: boolean;
  /** `key:letter` -> the projects it covers. */
  letters: Map<string, LetterProjects>;
  /** Every project any of the letters covers: the projects whose codes a refusal may name. */
  projects: LetterProjects;
}

export type Shortfall =
  { kind: 'admin' } | { kind: 'letter'; permission: string; needed: LetterProjects; held: LetterProjects | undefined };

/** What a set of grants gives, per permission letter (a caller's own rights, or what a change hands out). */
export function heldRights(grants: RoleGrant[]): HeldRights {
  const rights = effectiveRights(grants);
  const letters = new Map<string, LetterProjects>();
  for (const [key, held] of Object.entries(rights.permissions)) {
    for (const letter of held) {
      const permission = `${key}:${letter}`;
      letters.set(permission, permission in rights.scopes ? rights.scopes[permission] : rights.projects);
    }
  }
  return { admin: grants.some((g) => g.code === ADMIN_ROLE), letters, projects: rights.projects };
}

function covers(held: LetterProjects | undefined, needed: LetterProjects): boolean {
  if (held === undefined) return false;
  if (held === null) return true;
  if (needed === null) return false;
  const have = new Set(held);
  return needed.every((p) => have.has(p));
}

/** What `needed` gives that `held` does not cover: the admin role first, then each letter not held on its projects. */
export function shortfalls(held: HeldRights, needed: HeldRights): Shortfall[] {
  const found: Shortfall[] = needed.admin && !held.admin ? [{ kind: 'admin' }] : [];
  for (const [permission, projects] of needed.letters) {
    if (projects !== null && projects.length === 0) continue;
    const have = held.letters.get(permission);
    if (!covers(have, projects)) found.push({ kind: 'letter', permission, needed: projects, held: have });
  }
  return found;
}

/**
 * Who is refused what, for the message: a grant (`Granting`), a change of something that grants
 * (`Changing role auditors, which grants`), or an action on a user (`Deleting user bob, who holds`).
 */
export type Refused =
  | { kind: 'grant' }
  | { kind: 'grantor'; action: string; what: string }
  | { kind: 'user'; action: string; username: string };

/** The projects in words, naming only those the caller sees (`seen`); others are counted, never named. */
function onProjects(p: LetterProjects, seen: LetterProjects): string {
  if (p === null) return 'on every project';
  if (p.length === 0) return 'on no project';
  const named = seen === null ? p : p.filter((c) => seen.includes(c));
  const hidden = p.length - named.length;
  const parts = [
    ...named,
    ...(hidden === 0 ? [] : [hidden === 1 ? 'a project outside yours' : `${hidden} projects outside yours`]),
  ];
  if (parts.length === 1) return named.length === 1 ? `on project ${named[0]}` : `on ${parts[0]}`;
  return `on projects ${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
}

const MORE_NAMED = 5;

/** The 403 message naming the first missing permission and its scope (the others by name), or undefined when nothing is missing. */
export function escalationRefusal(
  refused: Refused,
  found: Shortfall[],
  seen: LetterProjects = null,
): string | undefined {
  if (found.length === 0) return undefined;
  const lead = (what: string) =>
    refused.kind === 'grant'
      ? `Granting ${what}`
      : refused.kind === 'grantor'
        ? `${refused.action} ${refused.what}, which grants ${what},`
        : `${refused.action} user ${refused.username}, who holds ${what},`;
  if (found.some((s) => s.kind === 'admin'))
    return `${lead('the built-in admin role')} requires holding that role: only administrators give, take or act on it`;
  const letters = found.filter((s): s is Extract<Shortfall, { kind: 'letter' }> => s.kind === 'letter');
  const [first, ...rest] = letters;
  const held = first.held === undefined ? 'do not hold it' : `hold it ${onProjects(first.held, seen)}`;
  const named = rest.slice(0, MORE_NAMED).map((s) => s.permission);
  const more =
    rest.length === 0
      ? ''
      : ` (also missing: ${named.join(', ')}${rest.length > MORE_NAMED ? ` and ${rest.length - MORE_NAMED} more` : ''})`;
  return `${lead(`${first.permission} ${onProjects(first.needed, seen)}`)} requires holding it ${onProjects(first.needed, seen)}; you ${held}${more}`;
}
