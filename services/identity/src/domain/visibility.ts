import { Principal, projectSet, touchesProjectSet } from '@bulwark/platform';

/**
 * What a caller limited to some projects sees of roles and user groups: those of every project or
 * touching one of its projects, and of their projects only its own (never another project's code or
 * tag). `undefined`: the object is not the caller's to see.
 */

const PROJECT_SCOPE = 'project:';

export function visibleSystemScopes(p: Principal, systemScopes: string[]): string[] | undefined {
  const codes = systemScopes.filter((s) => s.startsWith(PROJECT_SCOPE)).map((s) => s.slice(PROJECT_SCOPE.length));
  if (!touchesProjectSet(p, projectSet({ every: codes.length === 0, codes }))) return undefined;
  const mine = p.projects;
  if (mine === null) return systemScopes;
  return systemScopes.filter((s) => mine.includes(s.slice(PROJECT_SCOPE.length)));
}

/** `callerTags`: the tags (lower case) the caller's projects carry; a group's tags match in any case. */
export function visibleGroupProjects(
  p: Principal,
  group: { projectTags: string[]; projectCodes: string[] },
  callerTags: string[],
): { projectTags: string[]; projectCodes: string[] } | undefined {
  const every = group.projectTags.length === 0 && group.projectCodes.length === 0;
  const tags = group.projectTags.map((t) => t.toLowerCase());
  if (!touchesProjectSet(p, projectSet({ every, codes: group.projectCodes, tags }), callerTags)) return undefined;
  if (p.projects === null) return group;
  const mine = p.projects;
  return {
    projectTags: group.projectTags.filter((t) => callerTags.includes(t.toLowerCase())),
    projectCodes: group.projectCodes.filter((c) => mine.includes(c)),
  };
}
