import { projectSet, type ProjectSet } from '@bulwark/platform';

/** Days from the first detection to the due date, per severity (null: no SLA for that severity). */
export interface SlaDays {
  critical: number | null;
  high: number | null;
  medium: number | null;
  low: number | null;
  info: number | null;
}

/** The projects an SLA policy applies to: those it names, those carrying one of its tags, or every project when it has neither. */
export function slaPolicyProjects(p: { projectTags: readonly string[]; projectCodes: readonly string[] }): ProjectSet {
  return projectSet({
    every: p.projectTags.length === 0 && p.projectCodes.length === 0,
    codes: p.projectCodes,
    tags: p.projectTags,
  });
}
