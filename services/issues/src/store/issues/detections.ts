import type { Knex } from 'knex';
import { json, pgArray, Queryable, unnestRows } from '@bulwark/platform';
import type { IssueStatus } from './records';
import type { Suppression } from '@bulwark/findings';
import type { IssueRecord, IssueRow } from './rows';

/** What ingestion writes of a new issue, with the SQL type of each column. */
const NEW_ISSUE_COLUMNS = {
  id: 'uuid',
  project_code: 'text',
  scope_id: 'text',
  match_key: 'text',
  layer_id: 'text',
  check_id: 'text',
  scan_id: 'text',
  first_scan_id: 'text',
  tool_id: 'text',
  tool_name: 'text',
  scanner: 'text',
  category: 'text',
  title: 'text',
  description: 'text',
  severity: 'text',
  severity_rank: 'smallint',
  rule_id: 'text',
  status_id: 'int',
  cve: 'text',
  vulnerability_ids: 'text[]',
  cwes: 'int[]',
  lib_name: 'text',
  lib_version: 'text',
  file_path: 'text',
  start_line: 'int',
  cvss_v2: 'float8',
  cvss_v3: 'float8',
  cvss_v4: 'float8',
  cvss_unknown: 'float8',
  cvss_max: 'float8',
  epss: 'float8',
  known_exploited: 'boolean',
  fingerprint: 'text',
  occurrences: 'int',
  suppression: 'jsonb',
  security_rule_id: 'uuid',
  findings: 'int',
  first_detected_at: 'timestamptz',
  last_detected_at: 'timestamptz',
  updated_at: 'timestamptz',
} as const;
/** The columns of issue_detection_state: what each detection rewrites (the rest of an issue is in issue_records). */
const STATE_COLUMNS = new Set(['scan_id', 'detections', 'findings', 'last_detected_at', 'updated_at']);
const RECORD_COLUMNS = Object.keys(NEW_ISSUE_COLUMNS)
  .filter((c) => !STATE_COLUMNS.has(c))
  .join(', ');

const DETECTION_COLUMNS = {
  id: 'uuid',
  scan_id: 'text',
  check_id: 'text',
  layer_id: 'text',
  new_scan: 'boolean',
  occurrences: 'int',
  findings: 'int',
  status_id: 'int',
  severity: 'text',
  severity_rank: 'smallint',
  start_line: 'int',
  suppression: 'jsonb',
  security_rule_id: 'uuid',
} as const;

/** What ingestion writes of a new issue; `findings`: how many of the scan's findings detected it. */
export type NewIssue = Omit<
  IssueRecord,
  | 'assignee'
  | 'detections'
  | 'duplicateOf'
  | 'assigneeType'
  | 'assigneeId'
  | 'analysis'
  | 'epssPercentile'
  | 'kevDueDate'
  | 'riskScore'
  | 'projectCriticality'
  | 'slaDueAt'
  | 'slaState'
> & { findings: number };

type NewIssueRow = Omit<
  IssueRow,
  | 'assignee'
  | 'detections'
  | 'duplicate_of'
  | 'assignee_type'
  | 'assignee_id'
  | `analysis_${'state' | 'justification' | 'response' | 'detail' | 'by' | 'at'}`
  | 'epss_percentile'
  | 'kev_due_date'
  | 'risk_score'
  | 'project_criticality'
  | 'sla_due_at'
  | 'sla_state'
> & { findings: number };

const toNewIssueRow = (i: NewIssue): NewIssueRow => ({
  id: i.id,
  project_code: i.projectCode,
  scope_id: i.scopeId,
  match_key: i.matchKey,
  layer_id: i.layerId,
  check_id: i.checkId,
  scan_id: i.scanId,
  first_scan_id: i.firstScanId,
  tool_id: i.toolId,
  tool_name: i.toolName,
  scanner: i.scanner,
  category: i.category,
  title: i.title,
  description: i.description,
  severity: i.severity,
  severity_rank: i.severityRank,
  rule_id: i.ruleId,
  status_id: i.statusId,
  cve: i.cve,
  vulnerability_ids: i.vulnerabilityIds,
  cwes: i.cwes,
  lib_name: i.libName,
  lib_version: i.libVersion,
  file_path: i.filePath,
  start_line: i.startLine,
  cvss_v2: i.cvssV2,
  cvss_v3: i.cvssV3,
  cvss_v4: i.cvssV4,
  cvss_unknown: i.cvssUnknown,
  cvss_max: i.cvssMax,
  epss: i.epss,
  known_exploited: i.knownExploited,
  fingerprint: i.fingerprint,
  occurrences: i.occurrences,
  suppression: i.suppression,
  security_rule_id: i.securityRuleId,
  findings: i.findings,
  first_detected_at: i.firstDetectedAt,
  last_detected_at: i.lastDetectedAt,
  updated_at: i.updatedAt,
});

/** What a scan's finding writes of an issue it detects again. */
export interface Detection {
  id: string;
  scanId: string;
  checkId: string;
  layerId: string;
  /** Detections count scans: a second finding of the same scan adds occurrences only. */
  newScan: boolean;
  occurrences: number;
  /** How many of the scan's findings these are (they add up like occurrences). */
  findings: number;
  statusId: number;
  severity: string;
  severityRank: number;
  startLine: number | null;
  suppression: Suppression | null;
  securityRuleId: string | null;
}

const toDetectionRow = (d: Detection) => ({
  id: d.id,
  scan_id: d.scanId,
  check_id: d.checkId,
  layer_id: d.layerId,
  new_scan: d.newScan,
  occurrences: d.occurrences,
  findings: d.findings,
  status_id: d.statusId,
  severity: d.severity,
  severity_rank: d.severityRank,
  start_line: d.startLine,
  suppression: d.suppression,
  security_rule_id: d.securityRuleId,
});

/** What ingestion needs of an issue a finding matches: its status, last scan and security rule. */
export interface IssueMatch {
  id: string;
  statusId: number;
  scanId: string;
  securityRuleId: string | null;
}

type IssueMatchRow = Pick<IssueRow, 'id' | 'status_id' | 'scan_id' | 'security_rule_id' | 'scope_id' | 'match_key'>;

/** An issue a re-import may change the status of: its status and the suppression its finding carried. */
export interface RedetectionCandidate {
  id: string;
  statusId: number;
  suppression: Suppression | null;
}

type RedetectionCandidateRow = Pick<IssueRow, 'id' | 'status_id' | 'suppression'>;

/** A statement with its parameters, encoded ahead of running it. */
export interface Statement {
  sql: string;
  bindings: readonly (string | number | boolean | null)[];
}

export async function runStatement(db: Queryable, statement: Statement | undefined): Promise<void> {
  if (statement) await db.raw(statement.sql, statement.bindings as Knex.RawBinding[]);
}

export const issueDetections = {
  /**
   * The issues of a project with these identities (scope, key), locked for the ingestion that
   * updates them; `lock: false` reads them only (outside a transaction a lock would end with the statement).
   */
  async byKeys(
    db: Queryable,
    projectCode: string,
    keys: { scope: string; key: string }[],
    { lock = true }: { lock?: boolean } = {},
  ): Promise<Map<string, IssueMatch>> {
    const out = new Map<string, IssueMatch>();
    if (keys.length === 0) return out;
    // One identity-index probe per key (the lateral `limit 1` keeps it a nested loop): a join the
    // planner costs from stale statistics, mid-ingestion, would rather scan the project's issues.
    const k = unnestRows(keys, { scope: 'text', key: 'text' }, 'k');
    const { rows } = await db.raw<{ rows: IssueMatchRow[] }>(
      `select i.*, d.scan_id from ${k.sql} cross join lateral (
           select id, status_id, security_rule_id, scope_id, match_key from issue_records
           where project_code = ? and scope_id = k.scope and match_key = k.key limit 1${lock ? ' for update' : ''}
         ) i join issue_detection_state d on d.issue_id = i.id`,
      [...k.bindings, projectCode],
    );
    for (const r of rows)
      out.set(`${r.scope_id}\u0000${r.match_key}`, {
        id: r.id,
        statusId: r.status_id,
        scanId: r.scan_id,
        securityRuleId: r.security_rule_id,
      });
    return out;
  },

  async anyInProject(db: Queryable, projectCode: string): Promise<boolean> {
    return Boolean(await db('issue_records').where('project_code', projectCode).first('id'));
  },

  async insertMany(db: Queryable, rows: NewIssue[]): Promise<void> {
    await runStatement(db, issueDetections.insertStatement(rows));
  },

  /** The statement of {@link insertMany}, encoded now and run later (ingestion encodes a chunk while the previous one is written). */
  insertStatement(rows: NewIssue[]): Statement | undefined {
    if (rows.length === 0) return undefined;
    const v = unnestRows(rows.map(toNewIssueRow), NEW_ISSUE_COLUMNS);
    return {
      sql: `with v as (select * from ${v.sql}), records as (insert into issue_records (${RECORD_COLUMNS}) select ${RECORD_COLUMNS} from v)
        insert into issue_detection_state (issue_id, scan_id, findings, last_detected_at, updated_at) select id, scan_id, findings, last_detected_at, updated_at from v`,
      bindings: v.bindings,
    };
  },

  /**
   * Records a scan's detection of existing issues, all in one statement. The `any` condition lets
   * the planner find the batch's rows by primary key whatever its statistics say about the table.
   * An issue's record is written only when the finding changes it (a finding seen again as it was
   * changes only the detection state).
   */
  async detectMany(db: Queryable, at: string, rows: Detection[]): Promise<void> {
    await runStatement(db, issueDetections.detectStatement(at, rows));
  },

  /** The statement of {@link detectMany}, encoded now and run later. */
  detectStatement(at: string, rows: Detection[]): Statement | undefined {
    if (rows.length === 0) return undefined;
    const v = unnestRows(rows.map(toDetectionRow), DETECTION_COLUMNS);
    const ids = pgArray(rows.map((r) => r.id));
    return {
      sql: `with v as (select * from ${v.sql}),
       records as (
         update issue_records i set check_id = v.check_id, layer_id = v.layer_id,
           occurrences = case when v.new_scan then v.occurrences else i.occurrences + v.occurrences end,
           status_id = v.status_id, severity = v.severity, severity_rank = v.severity_rank, start_line = v.start_line,
           suppression = v.suppression, security_rule_id = v.security_rule_id
         from v where i.id = v.id and i.id = any(?::uuid[])
           and (i.check_id, i.layer_id, i.occurrences, i.status_id, i.severity, i.severity_rank, i.start_line, i.suppression, i.security_rule_id) is distinct from
             (v.check_id, v.layer_id, case when v.new_scan then v.occurrences else i.occurrences + v.occurrences end, v.status_id, v.severity, v.severity_rank, v.start_line, v.suppression, v.security_rule_id))
       update issue_detection_state d set scan_id = v.scan_id, last_detected_at = ?, updated_at = ?, detections = d.detections + case when v.new_scan then 1 else 0 end,
         findings = case when v.new_scan then v.findings else d.findings + v.findings end
       from v where d.issue_id = v.id and d.issue_id = any(?::uuid[])`,
      bindings: [...v.bindings, ids, at, at, ids],
    };
  },

  /** How many issues scan `scanId` detected last. */
  async countDetectedBy(db: Queryable, scanId: string): Promise<number> {
    const [{ n }] = await db('issue_detection_state').where('scan_id', scanId).count<{ n: string }[]>({ n: '*' });
    return Number(n);
  },

  /**
   * The issues last detected by `scanId`, a scan of `projectCode`, whose status a detection may change
   * (see statusOnDetection): the fixed ones and those whose finding carried a suppression; locked until
   * the re-detection commits. They are read from the project's few such issues
   * (issues_status_may_change), not from every issue.
   */
  async redetectionCandidates(
    db: Queryable,
    projectCode: string,
    scanId: string,
    fixed: number,
  ): Promise<RedetectionCandidate[]> {
    const { rows } = await db.raw<{ rows: RedetectionCandidateRow[] }>(
      `select r.id, r.status_id, r.suppression from issue_records r join issue_detection_state d on d.issue_id = r.id
         where r.project_code = ? and d.scan_id = ? and (r.status_id = ? or r.suppression is not null) for update of r`,
      [projectCode, scanId, fixed],
    );
    return rows.map((r) => ({
      id: r.id,
      statusId: r.status_id,
      suppression: r.suppression === null ? null : json<Suppression>(r.suppression),
    }));
  },

  /**
   * A scan detects again every issue that scan `previous` detected last, with the same findings: what
   * `detectMany` would write for each, set-wise. Occurrences, severity, line and suppression come from
   * identical findings, so they stay; so do the check and layer (the previous scan is the same
   * check's, keyed for the same layer). `changed` are the issues whose status the detection changes:
   * only their records are written, every other write is to issue_detection_state. `except`: issues
   * a rescan's diff changed, which are not re-detected set-wise. Returns how many it re-detected.
   */
  async redetect(
    db: Queryable,
    previous: string,
    scanId: string,
    at: string,
    changed: IssueStatus[],
    except: string[] = [],
  ): Promise<number> {
    if (changed.length > 0) {
      const v = unnestRows(
        changed.map((c) => ({ id: c.id, status_id: c.statusId })),
        { id: 'uuid', status_id: 'int' },
      );
      await db.raw(
        `update issue_records i set status_id = v.status_id, security_rule_id = null from ${v.sql} where i.id = v.id and i.id = any(?::uuid[])`,
        [...v.bindings, pgArray(changed.map((c) => c.id))],
      );
    }
    const { rowCount } = await db.raw<{ rowCount: number }>(
      `update issue_detection_state set scan_id = ?, last_detected_at = ?, updated_at = ?, detections = detections + 1
         where scan_id = ? and issue_id <> all(?::uuid[])`,
      [scanId, at, at, previous, pgArray(except)],
    );
    return rowCount;
  },

  /** How many findings of its last scan detected each issue (null where unknown: detected before this was kept). */
  async findingsOf(db: Queryable, ids: string[]): Promise<Map<string, number | null>> {
    if (ids.length === 0) return new Map();
    const rows: { issue_id: string; findings: number | null }[] = await db('issue_detection_state')
      .where('issue_id', '=', db.raw('any(?::uuid[])', [pgArray(ids)]))
      .select('issue_id', 'findings');
    return new Map(rows.map((r) => [r.issue_id, r.findings]));
  },

  /**
   * Open issues that the check found before but its complete scan `scanId` did not: they are fixed.
   * Every issue has its detection row (written with it), so this joins each of the check's issues
   * to its row by the key and keeps those another scan detected last. Asked as "no detection row of
   * this scan" (`not exists … scan_id = ?`) instead, the planner estimated the scan's rows from
   * statistics that cannot know a scan still being ingested (one row), and once the table held a
   * second scan it chose a nested loop over that materialized "one row": after a set-wise
   * re-detection of 100,000 issues that was 100,000 × 100,000 comparisons, minutes in one statement.
   */
  async markFixed(
    db: Queryable,
    checkId: string,
    scanId: string,
    openStatuses: number[],
    fixed: number,
    at: string,
  ): Promise<{ id: string; old: number }[]> {
    const { rows } = await db.raw<{ rows: { id: string; old: number }[] }>(
      `with gone as (
           select r.id, r.status_id from issue_records r join issue_detection_state d on d.issue_id = r.id
           where r.check_id = ? and r.status_id = any(?::int[]) and d.scan_id <> ?
           for update of r),
         fixed as (update issue_records i set status_id = ? from gone where i.id = gone.id returning i.id, gone.status_id as old),
         touched as (update issue_detection_state d set updated_at = ? from fixed where d.issue_id = fixed.id)
         select id, old from fixed`,
      [checkId, pgArray(openStatuses), scanId, fixed, at],
    );
    return rows;
  },
};
