import type { Knex } from 'knex';
import { pgArray, Queryable } from '@bulwark/platform';
import type { IssueCounts } from '../../domain/gates';
import { NOT_COUNTED_STATUSES } from '../../domain/statuses';
import { applyFilter, IssueFilter } from './filter';

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
  'excludeDuplicates',
  'invert',
]);
/** The columns of issue_counts' groups: an issue's own, and whether it is a duplicate. */
export const COUNT_GROUP_COLUMNS = [
  'project_code',
  'tool_name',
  'scanner',
  'tool_id',
  'category',
  'severity_rank',
  'status_id',
  'duplicate',
];
const unset = (v: unknown) =>
  v === undefined ||
  v === false ||
  (Array.isArray(v) && v.length === 0) ||
  (typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every((x) => !x));
/**
 * Not conditions of their own: `caller` only says who `assignees: ['me']` is. Every request carries
 * it, so counting it as a filter sent every listed page's total to the issues' rows.
 */
const PARAMETERS = new Set(['caller']);
const countedByGroups = (f: IssueFilter, columns: readonly string[]) =>
  Object.entries(f).every(([k, v]) => COUNTED_FILTERS.has(k) || PARAMETERS.has(k) || unset(v)) &&
  columns.every((c) => COUNT_GROUP_COLUMNS.includes(c));

/** The table a count reads, under the name `issues`, and how the filter applies to it. */
export interface CountSource {
  table: Knex.QueryBuilder;
  /** The table is issue_counts: a count is the sum of its groups' `n`. */
  summed: boolean;
  filter: <Q extends Knex.QueryBuilder>(q: Q) => Q;
}

/**
 * The table a count of the filter's issues (grouped by these columns) reads: issue_counts, whose
 * group counts are summed, when every filter and column is one it keeps; otherwise the issues, whose
 * rows are counted. The filter's conditions are the very same either way, so are its semantics.
 */
export function countSource(db: Queryable, f: IssueFilter, columns: readonly string[] = []): CountSource {
  const table = countedByGroups(f, columns) ? 'issue_counts' : 'issues';
  return {
    table: table === 'issues' ? db('issues') : db({ issues: 'issue_counts' }),
    summed: table === 'issue_counts',
    filter: (q) => applyFilter(q, f, table),
  };
}
const COUNT_GROUP = COUNT_GROUP_COLUMNS.join(', ');
const groupOf = (alias: string) => `(${COUNT_GROUP_COLUMNS.map((c) => `${alias}.${c}`).join(', ')})`;

export const issueCounts = {
  /** The statement of a count, from the table {@link countSource} picks. */
  countQuery(db: Queryable, f: IssueFilter): Knex.QueryBuilder {
    const { table, summed, filter } = countSource(db, f);
    return filter(summed ? table.select(db.raw('coalesce(sum(n), 0) as n')) : table.count({ n: '*' }));
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
    const row = await issueCounts.countQuery(db, f).first<{ n: string | number } | undefined>();
    return Number(row?.n ?? 0);
  },

  /**
   * What the layer's counted issues (open, not duplicates) add up to, for its quality gates. The
   * counts per CWE take a second pass over the layer's issues, so they are read only `withCwes`
   * (some gate has a CWE condition); otherwise `byCwe` stays empty.
   */
  async layerCounts(
    db: Queryable,
    layerId: string,
    scanId: string,
    withCwes: boolean,
    withExploits = false,
  ): Promise<IssueCounts> {
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
    const cwes: { cwe: number; n: string }[] = withCwes
      ? await base().select(db.raw('unnest(cwes) as cwe')).count({ n: '*' }).groupBy('cwe')
      : [];
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
    if (withExploits) {
      const rows: { kev: boolean; epss: number | null; risk: number; breached: boolean; n: string }[] = await base()
        .select(
          db.raw('known_exploited as kev'),
          db.raw('floor(epss::numeric * 1000)::float8 / 1000 as epss'),
          db.raw('risk_score as risk'),
          db.raw("sla_state = 'breached' as breached"),
        )
        .count({ n: '*' })
        .groupByRaw('1, 2, 3, 4');
      const exploits = { knownExploited: 0, slaBreached: 0, byEpss: {}, byRisk: {} };
      for (const r of rows) {
        const n = Number(r.n);
        if (r.kev) exploits.knownExploited += n;
        if (r.breached) exploits.slaBreached += n;
        if (r.epss !== null) add(exploits.byEpss, Number(r.epss).toFixed(3), n);
        add(exploits.byRisk, String(r.risk), n);
      }
      counts.exploits = exploits;
    }
    return counts;
  },
};
