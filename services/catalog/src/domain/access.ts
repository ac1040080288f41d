import { FieldProblem, Principal } from '@bulwark/platform';

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

/** A scoped caller sees global resources and those of at least one of its projects. */
export function visibleTo(p: Principal, a: Access): boolean {
  return p.projects === null || a.accessType === 'global' || a.projectCodes.some((c) => p.projects!.includes(c));
}

/** A scoped caller changes only project resources that lie wholly within its projects. */
export function changeableBy(p: Principal, a: Access): boolean {
  return p.projects === null || (a.accessType === 'project' && a.projectCodes.every((c) => p.projects!.includes(c)));
}

/** Whether a project's checks may use the resource. */
export function usableIn(a: Access, projectCode: string): boolean {
  return a.accessType === 'global' || a.projectCodes.includes(projectCode);
}
