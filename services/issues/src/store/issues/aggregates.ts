import { iso, pgArray, Queryable } from '@bulwark/platform';
import { NOT_COUNTED_STATUSES } from '../../domain/statuses';
import { countSource } from './counts';
import { severityOfRank } from '../../domain/severities';
import { applyFilter, IssueFilter } from './filter';
import { IssueRecord, IssueRow, toIssueRecord } from './rows';

interface SummaryRow {
  project_code: string;
  tool_name: string;
  category: string;
  severity: string;
  status_id: number;
  n: string;
}

/** A group of {@link issueAggregates.summarize}: its columns and how many issues it holds. */
export interface SummaryRecord {
  projectCode: string;
  toolName: string;
  category: string;
  severity: string;
  statusId: number;
  count: number;
}

/** A summary group as issue_counts keeps it: the severity by rank. */
type RankedSummaryRow = Omit<SummaryRow, 'severity'> & { severity_rank: number };

const toSummaryRecord = (r: SummaryRow): SummaryRecord => ({
  projectCode: r.project_code,
  toolName: r.tool_name,
  category: r.category,
  severity: r.severity,
  statusId: r.status_id,
  count: Number(r.n),
});

export const issueAggregates = {
  /** Distinct values of a column among the matching issues (at most 1000 per column). */
  async distinct(db: Queryable, f: IssueFilter, column: string, unnest = false): Promise<unknown[]> {
    const expr = unnest ? `unnest(issues.${column})` : `issues.${column}`;
    const rows = await db
      .select<{ v: unknown }[]>('v')
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
    ).first<{ min: Date | null; max: Date | null } | undefined>();
    return { min: iso(row?.min), max: iso(row?.max) };
  },

  async cvssBuckets(db: Queryable, f: IssueFilter): Promise<Record<string, number>> {
    const rows = await applyFilter(
      db('issues')
        .select(
          db.raw(
            `case when cvss_max is null then 'unknown' when cvss_max = 0 then 'none' when cvss_max < 4 then 'low' when cvss_max < 7 then 'medium' when cvss_max < 9 then 'high' else 'critical' end as bucket`,
          ),
        )
        .count<{ bucket: string; n: string }[]>({ n: '*' })
        .groupBy('bucket'),
      f,
    );
    return Object.fromEntries(rows.map((r) => [r.bucket, Number(r.n)]));
  },

  /**
   * Issue counts of a report's scope by project, tool, category, severity and status (duplicates left
   * out), summed from issue_counts when the scope's filters are ones it keeps.
   */
  async summarize(db: Queryable, f: IssueFilter): Promise<SummaryRecord[]> {
    const columns = ['project_code', 'tool_name', 'category', 'severity_rank', 'status_id'];
    const { table, summed, filter } = countSource(db, { ...f, excludeDuplicates: true }, columns);
    const selected = columns.map((c) => `issues.${c}`);
    const rows = (await filter(table.select(selected).select(db.raw(summed ? 'sum(n) as n' : 'count(*) as n')))
      .groupBy(selected)
      .havingRaw(summed ? 'sum(n) <> 0' : 'true')
      .orderBy(selected)) as RankedSummaryRow[];
    return rows.map(({ severity_rank, ...r }) =>
      toSummaryRecord({ ...r, severity: severityOfRank(severity_rank) ?? String(severity_rank) }),
    );
  },

  /** A report's open issues, most severe first, then highest CVSS, then newest (duplicates left out). */
  async topOpen(db: Queryable, f: IssueFilter, limit: number): Promise<IssueRecord[]> {
    const rows = await applyFilter(db('issues').select<IssueRow[]>('issues.*'), { ...f, excludeDuplicates: true })
      .whereRaw('not (issues.status_id = any(?::int[]))', [pgArray(NOT_COUNTED_STATUSES)])
      .orderByRaw('severity_rank desc, cvss_max desc nulls last, first_detected_at desc, id')
      .limit(limit);
    return rows.map(toIssueRecord);
  },
};
