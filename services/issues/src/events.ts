import type { EventPayload, ISSUE_EVENTS } from '@bulwark/contracts';
import type { IssueRecord } from './store/issues/issue-store';

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
