/** The queries behind GET /issues/count/grouped: counts per group of attributes, and the weekly series. */
import type { Queryable } from '@bulwark/platform';
import { applyFilter, countSource, IssueFilter, SEVERITY_RANK } from './issues/issue-store';
import { reportQueries } from './report-queries';

export type CountDimension = 'severity' | 'status' | 'project_code' | 'tool' | 'category';

/** Each dimension's column, kept by both issues and issue_counts, and its order in the answer. */
const COLUMNS: Record<CountDimension, { column: string; order: 'asc' | 'desc' }> = {
  severity: { column: 'severity_rank', order: 'desc' },
  status: { column: 'status_id', order: 'asc' },
  project_code: { column: 'project_code', order: 'asc' },
  tool: { column: 'tool_name', order: 'asc' },
  category: { column: 'category', order: 'asc' },
};
const SEVERITY_OF_RANK = new Map(Object.entries(SEVERITY_RANK).map(([name, rank]) => [rank, name]));
const WEEK_MS = 7 * 24 * 3600 * 1000;

/** A group of issues by the requested dimensions (those not requested are absent) and how many it holds. */
export interface CountGroupRecord {
  severity?: string;
  statusId?: number;
  projectCode?: string;
  tool?: string;
  category?: string;
  count: number;
}

/** New, fixed and open issues of a week. */
export interface WeekCountsRecord {
  weekStart: string;
  weekEnd: string;
  opened: number;
  fixed: number;
  open: number;
}

export const groupedCounts = {
  /**
   * The matching issues counted per combination of the dimensions' values, groups without issues left
   * out, from the table a count of the filter reads ({@link countSource}).
   */
  async byAttributes(db: Queryable, f: IssueFilter, dimensions: CountDimension[]): Promise<CountGroupRecord[]> {
    const columns = [...new Set(dimensions)]
      .sort((a, b) => Object.keys(COLUMNS).indexOf(a) - Object.keys(COLUMNS).indexOf(b))
      .map((d) => ({ dimension: d, ...COLUMNS[d] }));
    const selected = columns.map((c) => `issues.${c.column}`);
    const { table, summed } = countSource(db, f);
    const q = summed
      ? applyFilter(table.select(selected).select(db.raw('sum(n) as n')), f)
          .groupBy(selected)
          .havingRaw('sum(n) <> 0')
      : applyFilter(table.select(selected).count({ n: '*' }), f).groupBy(selected);
    const rows: Record<string, string | number>[] = await q.orderByRaw(
      columns.map((c) => `issues.${c.column} ${c.order}`).join(', '),
    );
    return rows.map((row) => {
      const group: CountGroupRecord = { count: Number(row.n) };
      for (const c of columns) {
        const value = row[c.column];
        if (c.dimension === 'severity') group.severity = SEVERITY_OF_RANK.get(Number(value)) ?? String(value);
        else if (c.dimension === 'status') group.statusId = Number(value);
        else if (c.dimension === 'project_code') group.projectCode = String(value);
        else group[c.dimension] = String(value);
      }
      return group;
    });
  },

  /** New, fixed and open per seven-day week, `weeks` of them ending at `end`, oldest first: the trend report's definitions. */
  async weekly(db: Queryable, f: IssueFilter, weeks: number, end: Date): Promise<WeekCountsRecord[]> {
    const starts = Array.from({ length: weeks }, (_, i) =>
      new Date(end.getTime() - (weeks - i) * WEEK_MS).toISOString(),
    );
    const intervals = await reportQueries.trend(db, f, starts, end.toISOString());
    return intervals.map((interval, i) => ({
      weekStart: interval.start,
      weekEnd: starts[i + 1] ?? end.toISOString(),
      opened: interval.opened,
      fixed: interval.fixed,
      open: interval.open,
    }));
  },
};
