/** The queries behind GET /issues/count/grouped: counts per group of attributes, and the weekly series. */
import type { Queryable } from '@bulwark/platform';
import { severityOfRank } from '../domain/severities';
import { countSource, IssueFilter } from './issues/issue-store';
import { reportQueries } from './report-queries';

export type CountDimension =
  'severity' | 'status' | 'project_code' | 'tool' | 'category' | 'layer_id' | 'lib_name' | 'lib_version' | 'cve';

/**
 * Each dimension's column and its order in the answer; the first five are kept by issue_counts too,
 * the others only by the issues, whose rows a count by them groups.
 */
const COLUMNS: Record<CountDimension, { column: string; order: 'asc' | 'desc' }> = {
  severity: { column: 'severity_rank', order: 'desc' },
  status: { column: 'status_id', order: 'asc' },
  project_code: { column: 'project_code', order: 'asc' },
  tool: { column: 'tool_name', order: 'asc' },
  category: { column: 'category', order: 'asc' },
  layer_id: { column: 'layer_id', order: 'asc' },
  lib_name: { column: 'lib_name', order: 'asc' },
  lib_version: { column: 'lib_version', order: 'asc' },
  cve: { column: 'cve', order: 'asc' },
};
const WEEK_MS = 7 * 24 * 3600 * 1000;

/**
 * A group of issues by the requested dimensions (those not requested are absent) and how many it
 * holds; a library, version or CVE the group's issues do not name is null.
 */
export interface CountGroupRecord {
  severity?: string;
  statusId?: number;
  projectCode?: string;
  tool?: string;
  category?: string;
  layerId?: string;
  libName?: string | null;
  libVersion?: string | null;
  cve?: string | null;
  count: number;
}

/** Where each dimension's value goes in a group. */
const FIELDS: Record<CountDimension, keyof CountGroupRecord> = {
  severity: 'severity',
  status: 'statusId',
  project_code: 'projectCode',
  tool: 'tool',
  category: 'category',
  layer_id: 'layerId',
  lib_name: 'libName',
  lib_version: 'libVersion',
  cve: 'cve',
};

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
    const { table, summed, filter } = countSource(
      db,
      f,
      columns.map((c) => c.column),
    );
    const q = summed
      ? filter(table.select(selected).select(db.raw('sum(n) as n')))
          .groupBy(selected)
          .havingRaw('sum(n) <> 0')
      : filter(table.select(selected).count({ n: '*' })).groupBy(selected);
    const rows: Record<string, string | number | null>[] = await q.orderByRaw(
      columns.map((c) => `issues.${c.column} ${c.order}`).join(', '),
    );
    return rows.map((row) => {
      const group: CountGroupRecord = { count: Number(row.n) };
      for (const c of columns) {
        const value = row[c.column];
        if (c.dimension === 'severity') group.severity = severityOfRank(Number(value)) ?? String(value);
        else if (c.dimension === 'status') group.statusId = Number(value);
        else Object.assign(group, { [FIELDS[c.dimension]]: value === null ? null : String(value) });
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
