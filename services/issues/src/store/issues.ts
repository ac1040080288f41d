import type { Knex } from 'knex';
import { containing, iso, pgArray, Queryable, unnestRows } from '@bulwark/platform';
import { decodeCursor, encodeCursor, SortKey } from '../domain/cursor';
import { NOT_COUNTED_STATUSES } from '../domain/statuses';
import type { IssueCounts } from '../domain/gates';

export const SEVERITY_RANK: Record<string, number> = { critical: 5, high: 4, medium: 3, low: 2, info: 1 };

export interface IssueRow {
  id: string;
  project_code: string;
  scope_id: string;
  match_key: string;
  layer_id: string;
  check_id: string;
  scan_id: string;
  first_scan_id: string;
  tool_id: string;
  tool_name: string;
  scanner: string;
  category: string;
  title: string;
  description: string | null;
  severity: string;
  severity_rank: number;
  rule_id: string | null;
  status_id: number;
  assignee: string | null;
  cve: string | null;
  vulnerability_ids: string[];
  cwes: number[];
  lib_name: string | null;
  lib_version: string | null;
  file_path: string | null;
  start_line: number | null;
  cvss_v2: number | null;
  cvss_v3: number | null;
  cvss_v4: number | null;
  cvss_unknown: number | null;
  cvss_max: number | null;
  epss: number | null;
  known_exploited: boolean;
  fingerprint: string;
  occurrences: number;
  detections: number;
  suppression: unknown;
  security_rule_id: string | null;
  duplicate_of: string | null;
  first_detected_at: Date | string;
  last_detected_at: Date | string;
  updated_at: Date | string;
}

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
  first_detected_at: 'timestamptz',
  last_detected_at: 'timestamptz',
  updated_at: 'timestamptz',
} as const;
/** The columns of issue_detection_state: what each detection rewrites (the rest of an issue is in issue_records). */
const STATE_COLUMNS = new Set(['scan_id', 'detections', 'last_detected_at', 'updated_at']);
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
  status_id: 'int',
  severity: 'text',
  severity_rank: 'smallint',
  start_line: 'int',
  suppression: 'jsonb',
  security_rule_id: 'uuid',
} as const;

export type NewIssue = Omit<
  IssueRow,
  'assignee' | 'detections' | 'duplicate_of' | 'first_detected_at' | 'last_detected_at' | 'updated_at'
> & { first_detected_at: string; last_detected_at: string; updated_at: string };

export interface Detection {
  id: string;
  scan_id: string;
  check_id: string;
  layer_id: string;
  /** Detections count scans: a second finding of the same scan adds occurrences only. */
  new_scan: boolean;
  occurrences: number;
  status_id: number;
  severity: string;
  severity_rank: number;
  start_line: number | null;
  suppression: unknown;
  security_rule_id: string | null;
}

export interface IssueFilter {
  projects: string[] | null;
  tools?: string[];
  scanners?: string[];
  toolIds?: string[];
  projectCodes?: string[];
  layers?: string[];
  checks?: string[];
  scans?: string[];
  statuses?: number[];
  severities?: string[];
  assignees?: string[];
  categories?: string[];
  cves?: string[];
  cwes?: number[];
  libNames?: string[];
  exploitability?: ('known_exploited' | 'epss' | 'none')[];
  detectedFrom?: string;
  detectedTo?: string;
  lastDetectedFrom?: string;
  lastDetectedTo?: string;
  cvss?: { column: 'cvss_v2' | 'cvss_v3' | 'cvss_v4' | 'cvss_unknown' | 'cvss_max'; min?: number; max?: number }[];
  epssMin?: number;
  commentMessage?: string;
  excludeDuplicates?: boolean;
  duplicateOf?: string;
  invert?: boolean;
  search?: Partial<Record<'title' | 'file_path' | 'lib_name' | 'cve' | 'assignee' | 'rule_id', string>>;
}

export type { SortKey };
const SORT_COLUMN: Record<SortKey, string> = {
  last_detected_at: 'last_detected_at',
  first_detected_at: 'first_detected_at',
  severity: 'severity_rank',
  cvss: 'coalesce(cvss_max, -1)',
  status: 'status_id',
};

/** `(?, ?, ...)` for a list: the values reach the planner, which then knows how selective they are. */
const inList = (values: readonly unknown[]) => `(${values.map(() => '?').join(', ')})`;

/** The filter's conditions; filter_inversion negates each filter (a NULL attribute counts as not matching). */
export function applyFilter(q: Knex.QueryBuilder, f: IssueFilter): Knex.QueryBuilder {
  if (f.projects !== null) {
    if (f.projects.length === 0) q.whereRaw('false');
    else q.whereRaw(`issues.project_code in ${inList(f.projects)}`, f.projects);
  }
  const conds: [string, unknown[]][] = [];
  const oneOf = (col: string, v?: readonly (string | number)[]) =>
    v?.length && conds.push([`${col} in ${inList(v)}`, [...v]]);
  oneOf('issues.tool_name', f.tools);
  oneOf('issues.scanner', f.scanners);
  oneOf('issues.tool_id', f.toolIds);
  oneOf('issues.project_code', f.projectCodes);
  oneOf('issues.layer_id', f.layers);
  oneOf('issues.check_id', f.checks);
  oneOf('issues.scan_id', f.scans);
  // By rank, so the (project, status, rank) and (rank, status, project) indexes serve it.
  oneOf(
    'issues.severity_rank',
    f.severities?.map((v) => SEVERITY_RANK[v] ?? 0),
  );
  oneOf('issues.assignee', f.assignees);
  oneOf('issues.category', f.categories);
  oneOf('issues.lib_name', f.libNames);
  oneOf('issues.status_id', f.statuses);
  if (f.cves?.length)
    conds.push([`issues.vulnerability_ids && array[${f.cves.map(() => '?').join(', ')}]::text[]`, [...f.cves]]);
  if (f.cwes?.length) conds.push([`issues.cwes && array[${f.cwes.map(() => '?').join(', ')}]::int[]`, [...f.cwes]]);
  if (f.exploitability?.length) {
    const parts = f.exploitability.map((e) =>
      e === 'known_exploited'
        ? 'issues.known_exploited'
        : e === 'epss'
          ? 'issues.epss is not null'
          : '(not issues.known_exploited and issues.epss is null)',
    );
    conds.push([`(${parts.join(' or ')})`, []]);
  }
  if (f.detectedFrom) conds.push(['issues.first_detected_at >= ?', [f.detectedFrom]]);
  if (f.detectedTo) conds.push(['issues.first_detected_at <= ?', [f.detectedTo]]);
  if (f.lastDetectedFrom) conds.push(['issues.last_detected_at >= ?', [f.lastDetectedFrom]]);
  if (f.lastDetectedTo) conds.push(['issues.last_detected_at <= ?', [f.lastDetectedTo]]);
  for (const r of f.cvss ?? []) {
    if (r.min !== undefined) conds.push([`issues.${r.column} >= ?`, [r.min]]);
    if (r.max !== undefined) conds.push([`issues.${r.column} <= ?`, [r.max]]);
  }
  if (f.epssMin !== undefined) conds.push(['issues.epss >= ?', [f.epssMin]]);
  if (f.commentMessage)
    conds.push([
      "exists (select 1 from issue_comments c where c.issue_id = issues.id and c.message ilike ? escape '\\')",
      [containing(f.commentMessage)],
    ]);
  if (f.excludeDuplicates) conds.push(['issues.duplicate_of is null', []]);
  if (f.duplicateOf) conds.push(['issues.duplicate_of = ?', [f.duplicateOf]]);
  for (const [sql, bindings] of conds)
    q.whereRaw(f.invert ? `not coalesce((${sql}), false)` : sql, bindings as Knex.RawBinding[]);
  for (const [field, text] of Object.entries(f.search ?? {})) {
    if (text) q.whereRaw(`issues.${field} ilike ? escape '\\'`, [containing(text)]);
  }
  return q;
}

/** The filters issue_counts answers: each one's condition is on a column that table keeps. */
const COUNTED_FILTERS = new Set([
  'projects',
  'tools',
  'scanners',
  'toolIds',
  'projectCodes',
  'severities',
  'statuses',
  'categories',
  'invert',
]);
const unset = (v: unknown) =>
  v === undefined ||
  v === false ||
  (Array.isArray(v) && v.length === 0) ||
  (typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every((x) => !x));
export const countedByGroups = (f: IssueFilter) =>
  Object.entries(f).every(([k, v]) => COUNTED_FILTERS.has(k) || unset(v));
const COUNT_GROUP_COLUMNS = [
  'project_code',
  'tool_name',
  'scanner',
  'tool_id',
  'category',
  'severity_rank',
  'status_id',
];
const COUNT_GROUP = COUNT_GROUP_COLUMNS.join(', ');
const groupOf = (alias: string) => `(${COUNT_GROUP_COLUMNS.map((c) => `${alias}.${c}`).join(', ')})`;

/** A statement with its parameters, encoded ahead of running it. */
export interface Statement {
  sql: string;
  bindings: readonly (string | number | boolean | null)[];
}

export async function runStatement(db: Queryable, statement: Statement | undefined): Promise<void> {
  if (statement) await db.raw(statement.sql, statement.bindings as Knex.RawBinding[]);
}

export const issueStore = {
  /** The issues of a project with these identities (scope, key), locked for the ingestion that updates them. */
  async byKeys(
    db: Queryable,
    projectCode: string,
    keys: { scope: string; key: string }[],
  ): Promise<Map<string, Pick<IssueRow, 'id' | 'status_id' | 'scan_id' | 'security_rule_id'>>> {
    const out = new Map<string, Pick<IssueRow, 'id' | 'status_id' | 'scan_id' | 'security_rule_id'>>();
    if (keys.length === 0) return out;
    // One identity-index probe per key (the lateral `limit 1` keeps it a nested loop): a join the
    // planner costs from stale statistics, mid-ingestion, would rather scan the project's issues.
    const k = unnestRows(keys, { scope: 'text', key: 'text' }, 'k');
    const rows: Pick<IssueRow, 'id' | 'status_id' | 'scan_id' | 'security_rule_id' | 'scope_id' | 'match_key'>[] = (
      await db.raw(
        `select i.*, d.scan_id from ${k.sql} cross join lateral (
           select id, status_id, security_rule_id, scope_id, match_key from issue_records
           where project_code = ? and scope_id = k.scope and match_key = k.key limit 1 for update
         ) i join issue_detection_state d on d.issue_id = i.id`,
        [...k.bindings, projectCode],
      )
    ).rows;
    for (const r of rows) out.set(`${r.scope_id}\u0000${r.match_key}`, r);
    return out;
  },

  async anyInProject(db: Queryable, projectCode: string): Promise<boolean> {
    return Boolean(await db('issue_records').where('project_code', projectCode).first('id'));
  },

  async insertMany(db: Queryable, rows: NewIssue[]): Promise<void> {
    await runStatement(db, issueStore.insertStatement(rows));
  },

  /** The statement of {@link insertMany}, encoded now and run later (ingestion encodes a chunk while the previous one is written). */
  insertStatement(rows: NewIssue[]): Statement | undefined {
    if (rows.length === 0) return undefined;
    const v = unnestRows(rows, NEW_ISSUE_COLUMNS);
    return {
      sql: `with v as (select * from ${v.sql}), records as (insert into issue_records (${RECORD_COLUMNS}) select ${RECORD_COLUMNS} from v)
        insert into issue_detection_state (issue_id, scan_id, last_detected_at, updated_at) select id, scan_id, last_detected_at, updated_at from v`,
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
    await runStatement(db, issueStore.detectStatement(at, rows));
  },

  /** The statement of {@link detectMany}, encoded now and run later. */
  detectStatement(at: string, rows: Detection[]): Statement | undefined {
    if (rows.length === 0) return undefined;
    const v = unnestRows(rows, DETECTION_COLUMNS);
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
       update issue_detection_state d set scan_id = v.scan_id, last_detected_at = ?, updated_at = ?, detections = d.detections + case when v.new_scan then 1 else 0 end
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
   * The issues last detected by `scanId` whose status a detection may change (see statusOnDetection):
   * the fixed ones and those whose finding carried a suppression; locked until the re-detection commits.
   */
  async redetectionCandidates(
    db: Queryable,
    scanId: string,
    fixed: number,
  ): Promise<Pick<IssueRow, 'id' | 'status_id' | 'suppression'>[]> {
    return (
      await db.raw(
        `select r.id, r.status_id, r.suppression from issue_records r join issue_detection_state d on d.issue_id = r.id
         where d.scan_id = ? and (r.status_id = ? or r.suppression is not null) for update of r`,
        [scanId, fixed],
      )
    ).rows;
  },

  /**
   * A scan detects again every issue that scan `previous` detected last, with the same findings: what
   * `detectMany` would write for each, set-wise. Occurrences, severity, line and suppression come from
   * identical findings, so they stay; so do the check and layer (the previous scan is the same
   * check's, keyed for the same layer). `changed` are the issues whose status the detection changes:
   * only their records are written, every other write is to issue_detection_state.
   */
  async redetect(
    db: Queryable,
    previous: string,
    scanId: string,
    at: string,
    changed: { id: string; status_id: number }[],
  ): Promise<void> {
    if (changed.length > 0) {
      const v = unnestRows(changed, { id: 'uuid', status_id: 'int' });
      await db.raw(
        `update issue_records i set status_id = v.status_id, security_rule_id = null from ${v.sql} where i.id = v.id and i.id = any(?::uuid[])`,
        [...v.bindings, pgArray(changed.map((c) => c.id))],
      );
    }
    await db.raw(
      'update issue_detection_state set scan_id = ?, last_detected_at = ?, updated_at = ?, detections = detections + 1 where scan_id = ?',
      [scanId, at, at, previous],
    );
  },

  /** Open issues that the check found before but its complete scan `scanId` did not: they are fixed. */
  async markFixed(
    db: Queryable,
    checkId: string,
    scanId: string,
    openStatuses: number[],
    fixed: number,
    at: string,
  ): Promise<{ id: string; old: number }[]> {
    const rows: { id: string; old: number }[] = (
      await db.raw(
        `with gone as (
           select r.id, r.status_id from issue_records r join issue_detection_state d on d.issue_id = r.id
           where r.check_id = ? and d.scan_id <> ? and r.status_id = any(?::int[]) for update of r),
         fixed as (update issue_records i set status_id = ? from gone where i.id = gone.id returning i.id, gone.status_id as old),
         touched as (update issue_detection_state d set updated_at = ? from fixed where d.issue_id = fixed.id)
         select id, old from fixed`,
        [checkId, scanId, pgArray(openStatuses), fixed, at],
      )
    ).rows;
    return rows;
  },

  async get(db: Queryable, id: string): Promise<IssueRow | undefined> {
    return db('issues').where({ id }).first();
  },

  /**
   * The issues with these ids, their records locked until the transaction ends (every change of an
   * issue locks its record first). Read after the lock, so they are as the last change left them.
   */
  async getMany(db: Queryable, ids: string[]): Promise<IssueRow[]> {
    if (ids.length === 0) return [];
    await db.raw('select id from issue_records where id = any(?::uuid[]) for update', [pgArray(ids)]);
    return db('issues').whereRaw('id = any(?::uuid[])', [pgArray(ids)]);
  },

  async update(
    db: Queryable,
    id: string,
    patch: Partial<Pick<IssueRow, 'status_id' | 'assignee' | 'security_rule_id' | 'duplicate_of'>>,
    at: string,
  ): Promise<void> {
    if (Object.keys(patch).length > 0) await db('issue_records').where({ id }).update(patch);
    await db('issue_detection_state').where({ issue_id: id }).update({ updated_at: at });
  },

  async deleteMany(db: Queryable, ids: string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const { rows } = await db.raw(
      `with gone as (delete from issue_records where id = any(?::uuid[]) returning id),
       state as (delete from issue_detection_state d using gone where d.issue_id = gone.id)
       select id from gone`,
      [pgArray(ids)],
    );
    return rows.map((r: { id: string }) => r.id);
  },

  /**
   * The statement of a page (also what the benchmark explains). The page's ids are chosen first and
   * their rows read after: when neither the order nor a filter reads the detection state, the
   * planner leaves it out of the choice (a bounded sort of the records alone) and joins it for the
   * page's rows only.
   */
  listQuery(
    db: Queryable,
    f: IssueFilter,
    o: { page: number; limit: number; sort: SortKey; desc: boolean; cursor?: string },
  ): Knex.QueryBuilder {
    const col = SORT_COLUMN[o.sort];
    const dir = o.desc ? 'desc' : 'asc';
    const ids = applyFilter(db('issues').select('issues.id', db.raw(`${col} as sort_value`)), f);
    const after = o.cursor ? decodeCursor(o.cursor, o.sort, o.desc) : undefined;
    if (after) ids.whereRaw(`(${col}, issues.id) ${o.desc ? '<' : '>'} (?, ?::uuid)`, [after.value, after.id]);
    else ids.offset((o.page - 1) * o.limit);
    ids.orderByRaw(`${col} ${dir}, issues.id ${dir}`).limit(o.limit);
    return db
      .select('issues.*', 'page.sort_value')
      .from(ids.as('page'))
      .join('issues', 'issues.id', 'page.id')
      .orderByRaw(`page.sort_value ${dir}, page.id ${dir}`);
  },

  /**
   * A page in the given order. With a cursor the page starts after the cursor's row (keyset: no
   * offset to skip, so deep pages cost what the first one does); without one, page/limit apply.
   */
  async list(
    db: Queryable,
    f: IssueFilter,
    o: { page: number; limit: number; sort: SortKey; desc: boolean; cursor?: string },
  ): Promise<{ items: IssueRow[]; nextCursor: string | null }> {
    const rows: (IssueRow & { sort_value: unknown })[] = await issueStore.listQuery(db, f, o);
    const last = rows[rows.length - 1];
    const sortValue = (v: unknown) => (v instanceof Date ? v.toISOString() : (v as number));
    return {
      items: rows,
      nextCursor:
        rows.length === o.limit && last
          ? encodeCursor({ sort: o.sort, desc: o.desc, value: sortValue(last.sort_value), id: last.id })
          : null,
    };
  },

  /**
   * The statement of a count. Filters on the dimensions of issue_counts sum its group counts under
   * the name `issues` (the very same conditions, so the same semantics); any other filter counts rows.
   */
  countQuery(db: Queryable, f: IssueFilter): Knex.QueryBuilder {
    if (countedByGroups(f))
      return applyFilter(db({ issues: 'issue_counts' }).select(db.raw('coalesce(sum(n), 0) as n')), f);
    return applyFilter(db('issues').count<{ n: string }[]>({ n: '*' }), f);
  },

  /** Folds the appended count changes into one row per group (concurrent writers keep appending). */
  async compactCounts(db: Queryable): Promise<void> {
    await db.raw(
      `with split as (select ${COUNT_GROUP} from issue_counts group by ${COUNT_GROUP} having count(*) > 1),
       gone as (delete from issue_counts c using split s where ${groupOf('c')} = ${groupOf('s')} returning c.*)
       insert into issue_counts (${COUNT_GROUP}, n) select ${COUNT_GROUP}, sum(n) from gone group by ${COUNT_GROUP} having sum(n) <> 0`,
    );
  },

  async count(db: Queryable, f: IssueFilter): Promise<number> {
    const row = await issueStore.countQuery(db, f).first();
    return Number(row?.n ?? 0);
  },

  /** Distinct values of a column among the matching issues (at most 1000 per column). */
  /** A layer's issues about a dependency (naming a library or a CVE), duplicates left out: what its VEX states. */
  layerVulnerabilities(db: Queryable, layerId: string): Promise<IssueRow[]> {
    return db('issues')
      .where({ layer_id: layerId })
      .whereNull('duplicate_of')
      .where((w) => w.whereNotNull('lib_name').orWhereNotNull('cve'))
      .orderBy('severity_rank', 'desc')
      .orderBy('first_detected_at')
      .orderBy('id');
  },

  async distinct(db: Queryable, f: IssueFilter, column: string, unnest = false): Promise<unknown[]> {
    const expr = unnest ? `unnest(issues.${column})` : `issues.${column}`;
    const rows: { v: unknown }[] = await db
      .select('v')
      .from(applyFilter(db('issues').select(db.raw(`${expr} as v`)), f).as('x'))
      .whereNotNull('v')
      .groupBy('v')
      .orderBy('v')
      .limit(1000);
    return rows.map((r) => r.v);
  },

  async detectedRange(db: Queryable, f: IssueFilter): Promise<{ min: string | null; max: string | null }> {
    const row = await applyFilter(
      db('issues').min({ min: 'first_detected_at' }).max({ max: 'last_detected_at' }),
      f,
    ).first();
    return { min: iso(row?.min), max: iso(row?.max) };
  },

  async cvssBuckets(db: Queryable, f: IssueFilter): Promise<Record<string, number>> {
    const rows: { bucket: string; n: string }[] = await applyFilter(
      db('issues')
        .select(
          db.raw(
            `case when cvss_max is null then 'unknown' when cvss_max = 0 then 'none' when cvss_max < 4 then 'low' when cvss_max < 7 then 'medium' when cvss_max < 9 then 'high' else 'critical' end as bucket`,
          ),
        )
        .count({ n: '*' })
        .groupBy('bucket'),
      f,
    );
    return Object.fromEntries(rows.map((r) => [r.bucket, Number(r.n)]));
  },

  /** What the layer's counted issues (open, not duplicates) add up to, for its quality gates. */
  async layerCounts(db: Queryable, layerId: string, scanId: string): Promise<IssueCounts> {
    const base = () =>
      db('issues')
        .where('layer_id', layerId)
        .whereNull('duplicate_of')
        .whereRaw('not (status_id = any(?::int[]))', [pgArray(NOT_COUNTED_STATUSES)]);
    const groups: { severity: string; category: string; cvss: number | null; is_new: boolean; n: string }[] =
      await base()
        .select(
          'severity',
          'category',
          db.raw('round(cvss_max::numeric, 1)::float8 as cvss'),
          db.raw('(first_scan_id = ?) as is_new', [scanId]),
        )
        .count({ n: '*' })
        .groupByRaw('1, 2, 3, 4');
    const cwes: { cwe: number; n: string }[] = await base()
      .select(db.raw('unnest(cwes) as cwe'))
      .count({ n: '*' })
      .groupBy('cwe');
    const counts: IssueCounts = { total: 0, bySeverity: {}, newBySeverity: {}, byCategory: {}, byCwe: {}, byCvss: {} };
    const add = (r: Record<string, number>, k: string, n: number) => (r[k] = (r[k] ?? 0) + n);
    for (const g of groups) {
      const n = Number(g.n);
      counts.total += n;
      add(counts.bySeverity, g.severity, n);
      if (g.is_new) add(counts.newBySeverity, g.severity, n);
      add(counts.byCategory, g.category.toLowerCase(), n);
      if (g.cvss !== null) add(counts.byCvss, Number(g.cvss).toFixed(1), n);
    }
    for (const c of cwes) add(counts.byCwe, String(c.cwe), Number(c.n));
    return counts;
  },

  /** Issue counts of a report's scope by project, tool, category, severity and status (duplicates left out). */
  async summarize(
    db: Queryable,
    f: IssueFilter,
  ): Promise<
    { project_code: string; tool_name: string; category: string; severity: string; status_id: number; n: string }[]
  > {
    return applyFilter(
      db('issues').select('project_code', 'tool_name', 'category', 'severity', 'status_id').count({ n: '*' }),
      { ...f, excludeDuplicates: true },
    )
      .groupBy('project_code', 'tool_name', 'category', 'severity', 'status_id')
      .orderBy(['project_code', 'tool_name', 'category', 'severity', 'status_id']);
  },

  /** A report's open issues, most severe first, then highest CVSS, then newest (duplicates left out). */
  async topOpen(db: Queryable, f: IssueFilter, limit: number): Promise<IssueRow[]> {
    return applyFilter(db('issues').select('issues.*'), { ...f, excludeDuplicates: true })
      .whereRaw('not (issues.status_id = any(?::int[]))', [pgArray(NOT_COUNTED_STATUSES)])
      .orderByRaw('severity_rank desc, cvss_max desc nulls last, first_detected_at desc, id')
      .limit(limit);
  },

  /** Issues of the same project that look like the same problem: same CVE and package, or same CWE, file and line. */
  async similar(db: Queryable, issue: IssueRow): Promise<IssueRow[]> {
    return db('issues')
      .where('project_code', issue.project_code)
      .whereNot('id', issue.id)
      .where((w) => {
        if (issue.cve && issue.lib_name) w.orWhere({ cve: issue.cve, lib_name: issue.lib_name });
        if (issue.cwes.length && issue.file_path && issue.start_line !== null) {
          w.orWhere((x) =>
            x
              .whereRaw('cwes && ?::int[]', [pgArray(issue.cwes)])
              .andWhere({ file_path: issue.file_path, start_line: issue.start_line }),
          );
        }
        if (!(issue.cve && issue.lib_name) && !(issue.cwes.length && issue.file_path && issue.start_line !== null))
          w.whereRaw('false');
      })
      .orderBy('first_detected_at')
      .limit(100);
  },

  /** Open issues a security rule covers, by the rule's parameters in SQL (the same rules as ruleMatches). */
  async coveredByRule(
    db: Queryable,
    p: {
      instrumentType?: string;
      toolName?: string;
      category?: string;
      cve?: string;
      cwe?: number;
      projectCodes?: string[];
    },
    statuses: number[],
  ): Promise<Pick<IssueRow, 'id' | 'status_id'>[]> {
    const q = db('issue_records')
      .select('id', 'status_id')
      .whereRaw('status_id = any(?::int[])', [pgArray(statuses)])
      .forUpdate();
    if (p.instrumentType) q.whereRaw('lower(category) = lower(?)', [p.instrumentType]);
    if (p.category) q.whereRaw('lower(category) = lower(?)', [p.category]);
    if (p.toolName) q.whereRaw('(lower(tool_name) = lower(?) or lower(scanner) = lower(?))', [p.toolName, p.toolName]);
    if (p.cve) q.whereRaw(`upper(?) = any(vulnerability_ids)`, [p.cve]);
    if (p.cwe !== undefined) q.whereRaw('cwes @> ?::int[]', [pgArray([p.cwe])]);
    if (p.projectCodes) q.whereRaw('project_code = any(?::text[])', [pgArray(p.projectCodes)]);
    return q;
  },

  async bySecurityRule(db: Queryable, ruleId: string, status: number): Promise<Pick<IssueRow, 'id' | 'status_id'>[]> {
    return db('issue_records')
      .select('id', 'status_id')
      .where({ security_rule_id: ruleId, status_id: status })
      .forUpdate();
  },

  async setStatusMany(db: Queryable, ids: string[], status: number, ruleId: string | null, at: string): Promise<void> {
    if (ids.length === 0) return;
    await db.raw(
      `with changed as (update issue_records set status_id = ?, security_rule_id = ? where id = any(?::uuid[]) returning id)
       update issue_detection_state d set updated_at = ? from changed where d.issue_id = changed.id`,
      [status, ruleId, pgArray(ids), at],
    );
  },
};
