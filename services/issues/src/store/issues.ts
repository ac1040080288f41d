/**
 * The issue store: one object over the issues' tables, assembled from the parts in ./issues by role
 * (ingestion's writes, single records, pages, counts, aggregates), with the filter they share.
 */
import { issueAggregates } from './issues/aggregates';
import { issueCounts } from './issues/counts';
import { issueDetections } from './issues/detections';
import { issuePages } from './issues/pages';
import { issueRecords } from './issues/records';

export type { IssueRecord } from './issues/rows';
export type { IssuePatch, IssueStatus } from './issues/records';
export type { SummaryRecord } from './issues/aggregates';
export { applyFilter, SEVERITY_RANK, type IssueFilter } from './issues/filter';
export { countSource } from './issues/counts';
export {
  runStatement,
  type Detection,
  type IssueMatch,
  type NewIssue,
  type RedetectionCandidate,
  type Statement,
} from './issues/detections';
export type { SortKey } from './issues/pages';

export const issueStore = {
  ...issueDetections,
  ...issueRecords,
  ...issuePages,
  ...issueCounts,
  ...issueAggregates,
};
