import type { EventPayload, ISSUE_EVENTS } from '@bulwark/contracts';
import type { IssueRecord } from './store/issues/issue-store';
import type { SlaBreach } from './store/sla-clock';

/** The payload of issue.status_changed, built here only: people and trackers change statuses alike. */
export const statusChanged = (
  issue: IssueRecord,
  to: number,
  by: string,
  comment: string | null,
): EventPayload<typeof ISSUE_EVENTS.issueStatusChanged> => ({
  issue_id: issue.id,
  project_code: issue.projectCode,
  from_status_id: issue.statusId,
  to_status_id: to,
  by,
  comment,
});

/** The payload of issue.sla_breached. */
export const slaBreached = (b: SlaBreach): EventPayload<typeof ISSUE_EVENTS.issueSlaBreached> => ({
  issue_id: b.id,
  project_code: b.projectCode,
  title: b.title,
  severity: b.severity,
  known_exploited: b.knownExploited,
  sla_due_at: b.slaDueAt,
});
