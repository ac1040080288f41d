import type { Knex } from 'knex';
import { containing, isUuid } from '@bulwark/platform';
import type { SlaState } from '@bulwark/contracts';
import { SEVERITY_RANK } from '../../domain/severities';

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
  /** `me` (the caller as a user: `caller`), `none`, a user or group id, or an assignee name. */
  assignees?: string[];
  caller?: string;
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
  riskMin?: number;
  slaStates?: SlaState[];
  commentMessage?: string;
  excludeDuplicates?: boolean;
  duplicateOf?: string;
  invert?: boolean;
  search?: Partial<Record<'title' | 'file_path' | 'lib_name' | 'cve' | 'assignee' | 'rule_id', string>>;
}

/** `(?, ?, ...)` for a list: the values reach the planner, which then knows how selective they are. */
const inList = (values: readonly unknown[]) => `(${values.map(() => '?').join(', ')})`;

/** Issues assigned to any of these: me, none, an id, or a name. */
function assigneeCondition(values: string[], caller: string | undefined): [string, unknown[]] {
  const parts: string[] = [];
  const bindings: unknown[] = [];
  const ids = values.filter(isUuid);
  const names = values.filter((v) => v !== 'me' && v !== 'none' && !isUuid(v));
  if (values.includes('none')) parts.push('issues.assignee is null');
  if (values.includes('me') && caller && isUuid(caller)) {
    parts.push("(issues.assignee_type = 'user' and issues.assignee_id = ?)");
    bindings.push(caller);
  }
  if (ids.length) {
    parts.push(`issues.assignee_id in ${inList(ids)}`);
    bindings.push(...ids);
  }
  if (names.length) {
    parts.push(`issues.assignee in ${inList(names)}`);
    bindings.push(...names);
  }
  return [parts.length ? `(${parts.join(' or ')})` : 'false', bindings];
}

/**
 * Issues in these SLA states (the view's sla_state, one definition), with the range of sla_due_at
 * they lie in, which the index issues_sla_open reads instead of every issue.
 */
function slaStateCondition(states: SlaState[]): [string, unknown[]] {
  const breached = states.includes('breached');
  const range =
    states.length === 1 && breached
      ? 'issues.sla_due_at <= now()'
      : breached
        ? 'issues.sla_due_at is not null'
        : 'issues.sla_due_at > now()';
  return [`(${range} and issues.sla_state in ${inList(states)})`, [...states]];
}

/**
 * What a query's `issues` are: the issues themselves, or issue_counts' groups, which keep whether an
 * issue is a duplicate (`duplicate`) rather than of which issue.
 */
export type FilteredTable = 'issues' | 'issue_counts';

/** An original (not linked as a duplicate), the one rule every count of originals follows, on either table. */
const ORIGINAL: Record<FilteredTable, string> = {
  issues: 'issues.duplicate_of is null',
  issue_counts: 'not issues.duplicate',
};

/** The filter's conditions; filter_inversion negates each filter (a NULL attribute counts as not matching). */
export function applyFilter<Q extends Knex.QueryBuilder>(q: Q, f: IssueFilter, table: FilteredTable = 'issues'): Q {
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
  if (f.assignees?.length) conds.push(assigneeCondition(f.assignees, f.caller));
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
  if (f.riskMin !== undefined) conds.push(['issues.risk_score >= ?', [f.riskMin]]);
  if (f.slaStates?.length) conds.push(slaStateCondition(f.slaStates));
  if (f.commentMessage)
    conds.push([
      "exists (select 1 from issue_comments c where c.issue_id = issues.id and c.message ilike ? escape '\\')",
      [containing(f.commentMessage)],
    ]);
  if (f.excludeDuplicates) conds.push([ORIGINAL[table], []]);
  if (f.duplicateOf) conds.push(['issues.duplicate_of = ?', [f.duplicateOf]]);
  for (const [sql, bindings] of conds)
    q.whereRaw(f.invert ? `not coalesce((${sql}), false)` : sql, bindings as Knex.RawBinding[]);
  for (const [field, text] of Object.entries(f.search ?? {})) {
    if (text) q.whereRaw(`issues.${field} ilike ? escape '\\'`, [containing(text)]);
  }
  return q;
}
