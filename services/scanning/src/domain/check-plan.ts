/**
 * The API guide's rules for checks and check groups, as pure functions: the handler loads the current
 * state, asks for a plan, and applies it in one transaction.
 */
export interface TagInfo {
  tag_name: string;
  commit?: string;
}

export interface GroupedCheckInput {
  check_id?: string;
  taginfo: TagInfo;
}

export interface PlanProblem {
  field: string;
  problem: string;
}

export class PlanError extends Error {
  constructor(readonly problems: PlanProblem[]) {
    super(problems.map((p) => `${p.field} ${p.problem}`).join('; '));
  }
}

function assertUniqueTags(tags: TagInfo[], field: (i: number) => string): void {
  const seen = new Map<string, number>();
  const problems: PlanProblem[] = [];
  tags.forEach((t, i) => {
    const key = `${t.tag_name}\u0000${t.commit ?? ''}`;
    if (seen.has(key)) problems.push({ field: field(i), problem: `repeats the tag of element ${seen.get(key)}` });
    else seen.set(key, i);
  });
  if (problems.length > 0) throw new PlanError(problems);
}

/** Rules 1 and 2: more than one tag makes a group of one check per tag; one tag or none, a single check. */
export function planCheckCreate(tags: TagInfo[] | undefined): { group: boolean; tags: (TagInfo | undefined)[] } {
  const list = tags ?? [];
  assertUniqueTags(list, (i) => `tags[${i}].tag_name`);
  if (list.length > 1) return { group: true, tags: list };
  return { group: false, tags: [list[0]] };
}

export interface CurrentCheck {
  id: string;
  groupId: string | null;
}

export interface CheckUpdatePlan {
  /** Checks that receive the request's common parameters, each with its tag when one is given. */
  update: { checkId: string; tag?: TagInfo }[];
  /** New checks to create in the group, one per tag. */
  create: TagInfo[];
  /** Checks that leave the group (they stay as single checks). */
  detach: string[];
  /** What happens to the group: created for the path check, kept, dissolved (fewer than two left), or none. */
  group: 'create' | 'keep' | 'dissolve' | 'none';
}

/**
 * Rules 4 to 9 of PUT /check/{check_id}.
 * - no grouped_checks: only the path check (4);
 * - no group yet, more than one element: a group is created, the path check joins it (5, 8);
 * - no group yet, one element or none: only the path check, taking the element's tag (6);
 * - existing group: every element's check gets the common parameters and its own tag; elements
 *   without check_id become new checks; group checks absent from the list leave the group (7, 8, 9).
 * A group left with fewer than two checks is dissolved, as a single tag makes no group (2).
 */
export function planCheckUpdate(
  path: CurrentCheck,
  groupMembers: string[],
  grouped: GroupedCheckInput[] | undefined,
): CheckUpdatePlan {
  if (grouped === undefined) return { update: [{ checkId: path.id }], create: [], detach: [], group: 'none' };
  assertUniqueTags(
    grouped.map((g) => g.taginfo),
    (i) => `grouped_checks[${i}].taginfo`,
  );
  const allowed = new Set(path.groupId ? groupMembers : [path.id]);
  const problems: PlanProblem[] = [];
  const listed = new Set<string>();
  grouped.forEach((g, i) => {
    if (g.check_id === undefined) return;
    if (!allowed.has(g.check_id))
      problems.push({
        field: `grouped_checks[${i}].check_id`,
        problem: path.groupId ? 'is not a check of this group' : 'is not the check being updated',
      });
    else if (listed.has(g.check_id))
      problems.push({ field: `grouped_checks[${i}].check_id`, problem: 'is listed twice' });
    listed.add(g.check_id);
  });
  if (problems.length > 0) throw new PlanError(problems);

  if (!path.groupId) {
    if (grouped.length <= 1) {
      const only = grouped[0];
      return { update: [{ checkId: path.id, tag: only?.taginfo }], create: [], detach: [], group: 'none' };
    }
    const own = grouped.find((g) => g.check_id === path.id);
    return {
      update: [{ checkId: path.id, tag: own?.taginfo }],
      create: grouped.filter((g) => g.check_id === undefined).map((g) => g.taginfo),
      detach: [],
      group: 'create',
    };
  }

  const update = grouped.flatMap((g) => (g.check_id === undefined ? [] : [{ checkId: g.check_id, tag: g.taginfo }]));
  const create = grouped.filter((g) => g.check_id === undefined).map((g) => g.taginfo);
  const detach = groupMembers.filter((id) => !listed.has(id));
  const remaining = update.length + create.length;
  if (remaining < 2) {
    // Dissolving: the remaining check (if any) stays, without a group.
    return { update, create, detach, group: 'dissolve' };
  }
  return { update, create, detach, group: 'keep' };
}
