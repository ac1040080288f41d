/**
 * The issue store: one object over the issues' tables, assembled from the parts in ./issues by role
 * (ingestion's writes, single records, pages, counts, aggregates), with the filter they share.
 */
import { issueAggregates } from './aggregates';
import { issueCounts } from './counts';
import { issueDetections } from './detections';
import { issuePages } from './pages';
import { issueRecords } from './records';

export type { IssueRecord } from './rows';
export type { IssuePatch, IssueStatus } from './records';
export type { SummaryRecord } from './aggregates';
export { applyFilter, type IssueFilter } from './filter';
export { countSource } from './counts';
export {
  runStatement,
  type Detection,
  type IssueMatch,
  type NewIssue,
  type RedetectionCandidate,
  type Statement,
} from './detections';
export type { SortKey } from './pages';

export const issueStore = {
  ...issueDetections,
  ...issueRecords,
  ...issuePages,
  ...issueCounts,
  ...issueAggregates,
};
