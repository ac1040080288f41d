import { projectSet, type ProjectSet } from '@bulwark/platform';
import { SEVERITY_RANK } from './severities';
import { STATUS } from './statuses';

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

/** Statuses without a due date: closed, or paused (README "Issues", SLAs). */
export const UNDATED_STATUSES: readonly number[] = [
  STATUS.fixed,
  STATUS.falsePositive,
  STATUS.riskAccepted,
  STATUS.suppressed,
];

/** A project's applicable days as resolved from the policies (sla_project_days). */
export interface SlaProjectDays extends SlaDays {
  /** Days of an issue in the KEV catalog, in place of its severity's when set. */
  knownExploited: number | null;
}

/** A project whose applicable days changed: null before or after when no policy applied to it. */
export interface SlaDaysChange {
  projectCode: string;
  before: SlaProjectDays | null;
  after: SlaProjectDays | null;
}

/** Open issues of a project whose due dates a change may move: those of one severity, or only its known-exploited ones. */
export interface SlaRedate {
  projectCode: string;
  severityRank: number;
  knownExploitedOnly: boolean;
}

// SlaDays has a field per severity, named as the ranks are.
const RANKS = Object.entries(SEVERITY_RANK) as [keyof SlaDays, number][];

/**
 * The issues a change of a project's days can re-date, and no others: an issue's date reads its
 * severity's days, and a known-exploited one also the KEV days. A project gaining or losing its days
 * re-dates every severity (without days a known-exploited issue has no date either; with them, at
 * least its catalog due date).
 */
export function slaRedates({ projectCode, before, after }: SlaDaysChange): SlaRedate[] {
  return RANKS.flatMap(([severity, severityRank]): SlaRedate[] => {
    if (!before || !after || before[severity] !== after[severity])
      return [{ projectCode, severityRank, knownExploitedOnly: false }];
    if (before.knownExploited !== after.knownExploited)
      return [{ projectCode, severityRank, knownExploitedOnly: true }];
    return [];
  });
}
