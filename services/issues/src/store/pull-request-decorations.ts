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

/**
 * The issues a scan detected, while no later scan of its check was ingested: those of its check
 * whose last detection it is (ingestion sets every other open issue of the check fixed). The check
 * and the scan are SQL expressions: `?` for bindings, or columns.
 */
const detectedByScan = (check: string, scan: string) =>
  `select coalesce(array_agg(d.issue_id), '{}') from issue_detection_state d
  join issue_records r on r.id = d.issue_id where r.check_id = ${check} and d.scan_id = ${scan}`;

/**
 * The issue sets a pull request's comment compares (bindings: decoration id, check id): arrays, so
 * `any(...)` reads them as one value and not as a subquery's rows; empty when there is none.
 */
const PR_SET = "coalesce((select issue_ids from pull_request_decorations where id = ?), '{}')";
const BASE_SET = "coalesce((select issue_ids from branch_scans where check_id = ?), '{}')";

/** The check's latest scan outside any pull request, which the comment compares with. */
export interface BaseScan {
  scanId: string;
  ingestedAt: string;
}

type Compared = Pick<DecorationRecord, 'id' | 'checkId'>;

export const pullRequestDecorationStore = {
  /**
   * Written by the scan's ingestion, with the issues it detected: once per scan (a redelivered event
   * adds nothing).
   */
  async enqueue(db: Queryable, w: DecorationWrite): Promise<void> {
    await db('pull_request_decorations')
      .insert({
        issue_ids: db.raw(`(${detectedByScan('?', '?')})`, [w.checkId, w.scanId]),
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

  /**
   * Written by the ingestion of a scan outside any pull request: the check's base from now on. Its
   * detected issues are taken only when a pull request scan of the check comes ({@link keepBaseSet}).
   */
  async recordBranchScan(db: Queryable, checkId: string, scanId: string, at: string): Promise<void> {
    await db.raw(
      `insert into branch_scans (check_id, scan_id, issue_ids, ingested_at) values (?, ?, null, ?)
       on conflict (check_id) do update set scan_id = excluded.scan_id, issue_ids = null,
         ingested_at = excluded.ingested_at`,
      [checkId, scanId, at],
    );
  },

  /**
   * Takes the issues the check's base scan detected, if not taken yet: written by a pull request
   * scan's ingestion before it writes detections of its own. Until then the check's detections are
   * still the base scan's (scans of one check are ingested one at a time, and every scan after the
   * base is a pull request's, which takes the set first).
   */
  async keepBaseSet(db: Queryable, checkId: string): Promise<void> {
    await db.raw(
      `update branch_scans b set issue_ids = (${detectedByScan('b.check_id', 'b.scan_id')})
       where b.check_id = ? and b.issue_ids is null`,
      [checkId],
    );
  },

  async baseScan(db: Queryable, checkId: string): Promise<BaseScan | undefined> {
    const { rows } = await db.raw<{ rows: { scan_id: string; ingested_at: Date }[] }>(
      'select scan_id, ingested_at from branch_scans where check_id = ?',
      [checkId],
    );
    return rows[0] && { scanId: rows[0].scan_id, ingestedAt: new Date(rows[0].ingested_at).toISOString() };
  },

  ...retryQueue(
    'pull_request_decorations',
    'id::text, scan_id, check_id, project_code, source_id, pr_number, head_sha, base_branch, verdict, attempts',
    toRecord,
  ),

  /** The open issues the pull request's scan detected that the base scan did not. */
  newIssues(db: Queryable, d: Compared, openStatuses: number[], limit: number) {
    return issuesWhere(
      db,
      `r.id = any(${PR_SET}) and not r.id = any(${BASE_SET}) and r.status_id = any(?::int[]) and r.duplicate_of is null`,
      [d.id, d.checkId, pgArray(openStatuses)],
      limit,
    );
  },

  /** The issues the base scan detected that the pull request's scan no longer does. */
  fixedIssues(db: Queryable, d: Compared, limit: number) {
    return issuesWhere(
      db,
      `r.id = any(${BASE_SET}) and not r.id = any(${PR_SET}) and r.duplicate_of is null`,
      [d.checkId, d.id],
      limit,
    );
  },
};
