import type { Principal } from './auth';
import { forbidden } from './errors';
import type { RouteAccess } from './http/routes';

/**
 * The projects an organisation-wide object applies to: every project, the projects carrying one of
 * `tags`, and the projects named in `codes`. Rules, gates, policies, trackers, notifiers, sources,
 * tools and reports each describe theirs as one, and one set of functions decides who may see and
 * change them.
 */
export interface ProjectSet {
  every: boolean;
  codes: readonly string[];
  tags: readonly string[];
}

export function projectSet(of: { every?: boolean; codes?: readonly string[]; tags?: readonly string[] }): ProjectSet {
  return { every: of.every ?? false, codes: [...new Set(of.codes ?? [])], tags: [...new Set(of.tags ?? [])] };
}

/**
 * A caller limited to some projects changes (creates, edits, deletes, runs) an object only when its
 * set lies within those projects. A set that can grow on its own (every project, a tag that any
 * project may be given later) needs a caller whose scope is every project.
 */
export function mayChangeProjectSet(p: Principal, set: ProjectSet): boolean {
  if (p.projects === null) return true;
  const mine = p.projects;
  return !set.every && set.tags.length === 0 && set.codes.every((c) => mine.includes(c));
}

/**
 * Why the caller may not change `what` (undefined when it may), naming no project outside its scope:
 * the message of {@link assertMayChangeProjectSet}'s 403 and of a bulk operation's `forbidden` result.
 */
export function projectSetRefusal(p: Principal, set: ProjectSet, what: string): string | undefined {
  if (mayChangeProjectSet(p, set)) return undefined;
  const reason = set.every
    ? 'it applies to every project'
    : set.tags.length > 0
      ? 'it applies to projects by tag, which any project may carry'
      : 'it applies to projects outside your scope';
  return `Your rights cover only some projects, so you cannot change ${what}: ${reason}`;
}

/** {@link mayChangeProjectSet}, or a 403 saying why without naming any project outside the caller's scope. */
export function assertMayChangeProjectSet(p: Principal, set: ProjectSet, what: string): void {
  const refusal = projectSetRefusal(p, set, what);
  if (refusal) throw forbidden(refusal);
}

/** Whether the set holds a project (with `projectTags`, the tags it carries): e.g. whether a check of it may use a source. */
export function projectSetIncludes(set: ProjectSet, projectCode: string, projectTags: readonly string[] = []): boolean {
  return set.every || set.codes.includes(projectCode) || set.tags.some((t) => projectTags.includes(t));
}

/**
 * Whether the object touches the caller's projects, so that lists and reads show it.
 * `callerTags`: the tags the caller's projects carry (needed only for sets given by tag).
 */
export function touchesProjectSet(p: Principal, set: ProjectSet, callerTags: readonly string[] = []): boolean {
  if (p.projects === null || set.every) return true;
  const mine = p.projects;
  return set.codes.some((c) => mine.includes(c)) || set.tags.some((t) => callerTags.includes(t));
}

/**
 * Whether lists and reads show the object to the caller: it touches the caller's projects, or it
 * applies to no project at all (a gate linked nowhere, a tracker mapping no project), which any
 * holder of the letter may change and so must see. Another project's object answers 404.
 */
export function maySeeProjectSet(p: Principal, set: ProjectSet, callerTags: readonly string[] = []): boolean {
  return touchesProjectSet(p, set, callerTags) || mayChangeProjectSet(p, set);
}

/** Whether the caller sees an object of a set and, if it does, why it may not change it (`refusal`). */
export type ProjectSetAccess = { sees: false } | { sees: true; refusal: string | undefined };

export function projectSetAccess(
  p: Principal,
  set: ProjectSet,
  what: string,
  callerTags: readonly string[] = [],
): ProjectSetAccess {
  return maySeeProjectSet(p, set, callerTags)
    ? { sees: true, refusal: projectSetRefusal(p, set, what) }
    : { sees: false };
}

/**
 * One id of a bulk operation under project scope: `not_found` for an object that does not exist
 * (`access` undefined) or that the caller does not see, `forbidden` saying why for one it sees but may
 * not change, undefined when the operation may go ahead.
 */
export function bulkRefusal(
  id: string,
  access: ProjectSetAccess | undefined,
): { id: string; status: 'not_found' } | { id: string; status: 'forbidden'; message: string } | undefined {
  if (!access?.sees) return { id, status: 'not_found' };
  return access.refusal ? { id, status: 'forbidden', message: access.refusal } : undefined;
}

/** The set as the caller may see it: never another project's codes or tags. */
export function visibleProjectSet(p: Principal, set: ProjectSet, callerTags: readonly string[] = []): ProjectSet {
  if (p.projects === null) return set;
  const mine = p.projects;
  return {
    every: set.every,
    codes: set.codes.filter((c) => mine.includes(c)),
    tags: set.tags.filter((t) => callerTags.includes(t)),
  };
}

/**
 * The route-level half of project scope, applied by the gateway and again by the owning service:
 * objects of the whole organisation are changed, and its settings read or changed, only by a caller
 * whose letter covers every project. `p` is the principal as the route sees it ({@link scopedTo}).
 */
export function assertRouteScope(p: Principal, access: RouteAccess): void {
  if (access.kind !== 'permission' || p.projects === null) return;
  const needsEveryProject = access.scope === 'unscoped' || (access.scope === 'organisation' && access.letter !== 'r');
  if (needsEveryProject)
    throw forbidden(
      `Requires permission ${access.key}:${access.letter} on every project: this applies to the whole organisation, and your ${access.key}:${access.letter} covers only some projects`,
    );
}
