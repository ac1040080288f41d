import { json, pgArray, Queryable } from '@bulwark/platform';
import { retryQueue } from './retry-queue';

/** The gate's verdict as ingestion stored it: what the comment and the commit status say. */
export interface StoredVerdict {
  status: 'passed' | 'failed';
  conditions: {
    quality_gate_name: string;
    condition_type: string;
    condition_value: string;
    operator: string;
    value: number;
    measured: number;
    passed: boolean;
  }[];
}

/** A decoration waiting for delivery, as claimed. */
export interface DecorationRecord {
  id: string;
  scanId: string;
  checkId: string;
  projectCode: string;
  sourceId: string;
  prNumber: number;
  headSha: string | null;
  baseBranch: string | null;
  verdict: StoredVerdict | null;
  attempts: number;
}

export type DecorationWrite = Omit<DecorationRecord, 'id' | 'attempts'>;

interface DecorationRow {
  id: string;
  scan_id: string;
  check_id: string;
  project_code: string;
  source_id: string;
  pr_number: number;
  head_sha: string | null;
  base_branch: string | null;
  verdict: unknown;
  attempts: number;
}

/** An issue as a pull request's comment shows it. */
export interface IssueOfScan {
  id: string;
  severity: string;
  title: string;
  path: string | null;
  line: number | null;
}

const toRecord = (r: DecorationRow): DecorationRecord => ({
  id: r.id,
  scanId: r.scan_id,
  checkId: r.check_id,
  projectCode: r.project_code,
  sourceId: r.source_id,
  prNumber: r.pr_number,
  headSha: r.head_sha,
  baseBranch: r.base_branch,
  verdict: r.verdict === null ? null : json<StoredVerdict>(r.verdict),
  attempts: r.attempts,
});

interface IssueRow {
  id: string;
  severity: string;
  title: string;
  file_path: string | null;
  start_line: number | null;
}

const toIssue = (r: IssueRow): IssueOfScan => ({
  id: r.id,
  severity: r.severity,
  title: r.title,
  path: r.file_path,
  line: r.start_line,
});

/** Issues of one scan, the first `limit` by severity, and how many there are. */
export interface IssuesOfScan {
  listed: IssueOfScan[];
  total: number;
}

async function issuesWhere(
  db: Queryable,
  where: string,
  bindings: (string | number)[],
  limit: number,
): Promise<IssuesOfScan> {
  const { rows } = await db.raw<{ rows: (IssueRow & { total: string })[] }>(
    `select id, severity, title, file_path, start_line, count(*) over () as total from issue_records r
     where ${where} order by severity_rank desc, id limit ?`,
    [...bindings, limit],
  );
  return { listed: rows.map(toIssue), total: Number(rows[0]?.total ?? 0) };
}

/** The scans of one pull request: those decorated for the same source and number (bindings: source id, number). */
const PR_SCANS = 'select scan_id from pull_request_decorations where source_id = ? and pr_number = ?';

type PullRequestOf = Pick<DecorationRecord, 'checkId' | 'sourceId' | 'prNumber'>;

export const pullRequestDecorationStore = {
  /** Written by the scan's ingestion: once per scan (a redelivered event adds nothing). */
  async enqueue(db: Queryable, w: DecorationWrite): Promise<void> {
    await db('pull_request_decorations')
      .insert({
        scan_id: w.scanId,
        check_id: w.checkId,
        project_code: w.projectCode,
        source_id: w.sourceId,
        pr_number: w.prNumber,
        head_sha: w.headSha,
        base_branch: w.baseBranch,
        verdict: w.verdict === null ? null : JSON.stringify(w.verdict),
      })
      .onConflict('scan_id')
      .ignore();
  },

  /**
   * Closes, as superseded, the waiting decorations of a pull request that a later scan of it also
   * decorates: a retry of an older scan must not overwrite the newer verdict.
   */
  async supersede(db: Queryable): Promise<void> {
    await db.raw(
      `update pull_request_decorations d set done_at = now(), outcome = 'superseded'
       where d.done_at is null and exists (select 1 from pull_request_decorations n
         where n.source_id = d.source_id and n.pr_number = d.pr_number and n.id > d.id)`,
    );
  },

  ...retryQueue(
    'pull_request_decorations',
    'id::text, scan_id, check_id, project_code, source_id, pr_number, head_sha, base_branch, verdict, attempts',
    toRecord,
  ),

  /**
   * The open issues the pull request brought: found first or reopened by one of its scans (those
   * decorated for the same source and number), so a later push keeps listing what an earlier one
   * brought.
   */
  newIssues(db: Queryable, d: PullRequestOf, openStatuses: number[], limit: number) {
    return issuesWhere(
      db,
      `r.check_id = ? and r.status_id = any(?::int[]) and r.duplicate_of is null and (r.first_scan_id in (${PR_SCANS})
        or exists (select 1 from issue_history h where h.issue_id = r.id and h.reason->>'kind' = 'reopened'
          and h.reason->>'scan_id' in (${PR_SCANS})))`,
      [d.checkId, pgArray(openStatuses), d.sourceId, d.prNumber, d.sourceId, d.prNumber],
      limit,
    );
  },

  /** The issues one of the pull request's scans set fixed that were there before it (not brought by it). */
  fixedIssues(db: Queryable, d: PullRequestOf, fixed: number, limit: number) {
    return issuesWhere(
      db,
      `r.check_id = ? and r.status_id = ? and r.first_scan_id not in (${PR_SCANS}) and exists (select 1 from
        issue_history h where h.issue_id = r.id and h.reason->>'kind' = 'fixed' and h.reason->>'scan_id' in (${PR_SCANS}))`,
      [d.checkId, fixed, d.sourceId, d.prNumber, d.sourceId, d.prNumber],
      limit,
    );
  },
};
