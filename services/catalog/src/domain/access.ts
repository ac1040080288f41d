import {
  FieldProblem,
  Principal,
  projectSet,
  ProjectSet,
  projectSetIncludes,
  touchesProjectSet,
  visibleProjectSet,
} from '@bulwark/platform';

export type AccessType = 'global' | 'project';

/** Who may use a source or tool: every project, or only the listed ones (release 1.5 access type). */
export interface Access {
  accessType: AccessType;
  projectCodes: string[];
}

/**
 * The access a write asks for, merged over the current one. A change of project_codes alone keeps the
 * access type; "project" needs at least one code and "global" takes none.
 */
export function resolveAccess(
  input: { access_type?: AccessType; project_codes?: string[] },
  current?: Access,
): { access: Access; problems: FieldProblem[] } {
  const accessType = input.access_type ?? current?.accessType ?? 'global';
  const projectCodes = [
    ...new Set(input.project_codes ?? (input.access_type === 'global' ? [] : (current?.projectCodes ?? []))),
  ].sort();
  const problems: FieldProblem[] = [];
  if (accessType === 'project' && projectCodes.length === 0)
    problems.push({ field: 'project_codes', problem: 'must list at least one project when access_type is "project"' });
  if (accessType === 'global' && projectCodes.length > 0)
    problems.push({ field: 'project_codes', problem: 'must be empty when access_type is "global"' });
  return { access: { accessType, projectCodes }, problems };
}

/** The projects a source or tool applies to, as platform's project-set rule reads them: global is every project. */
export function projectSetOf(a: Access): ProjectSet {
  return projectSet({ every: a.accessType === 'global', codes: a.projectCodes });
}

/** A scoped caller sees global resources and those of at least one of its projects. */
export function visibleTo(p: Principal, a: Access): boolean {
  return touchesProjectSet(p, projectSetOf(a));
}

/** A source or tool as the caller may see it: of one shared with other projects, only its own codes. */
export function seenBy<R extends { access: Access }>(p: Principal, r: R): R {
  const codes = visibleProjectSet(p, projectSetOf(r.access)).codes;
  return { ...r, access: { accessType: r.access.accessType, projectCodes: [...codes] } };
}

/** Whether a project's checks may use the resource. */
export function usableIn(a: Access, projectCode: string): boolean {
  return projectSetIncludes(projectSetOf(a), projectCode);
}
