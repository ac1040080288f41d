import type { Knex } from 'knex';
import { ISO_TIMESTAMPS, Queryable } from '@bulwark/platform';
import { decodeCursor, encodeCursor, SortKey } from '../../domain/cursor';
import { applyFilter, IssueFilter } from './filter';
import { IssueRecord, IssueRow, toIssueRecord } from './rows';

export type { SortKey };
const SORT_COLUMN: Record<SortKey, string> = {
  last_detected_at: 'last_detected_at',
  first_detected_at: 'first_detected_at',
  severity: 'severity_rank',
  cvss: 'coalesce(cvss_max, -1)',
  status: 'status_id',
  risk_score: 'risk_score',
  // Issues without a due date last (the index issues_sla_due orders by the same expression).
  sla_due_at: "coalesce(issues.sla_due_at, '9999-12-31T00:00:00Z'::timestamptz)",
};

/** A row of a page: the issue and the value it is ordered by (what its cursor carries). */
type ListedIssue = IssueRow & { sort_value: unknown };

export const issuePages = {
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
  ): Knex.QueryBuilder<IssueRow, ListedIssue[]> {
    const col = SORT_COLUMN[o.sort];
    const dir = o.desc ? 'desc' : 'asc';
    const ids = applyFilter(db('issues').select('issues.id', db.raw(`${col} as sort_value`)), f);
    const after = o.cursor ? decodeCursor(o.cursor, o.sort, o.desc) : undefined;
    if (after) ids.whereRaw(`(${col}, issues.id) ${o.desc ? '<' : '>'} (?, ?::uuid)`, [after.value, after.id]);
    else ids.offset((o.page - 1) * o.limit);
    ids.orderByRaw(`${col} ${dir}, issues.id ${dir}`).limit(o.limit);
    return db
      .queryBuilder<IssueRow>()
      .select<ListedIssue[]>('issues.*', 'page.sort_value')
      .from(ids.as('page'))
      .join<IssueRow, IssueRow, ListedIssue[]>('issues', 'issues.id', 'page.id')
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
  ): Promise<{ items: IssueRecord[]; nextCursor: string | null }> {
    // The page's times (its sort value too) go to the API and the cursor as ISO text: read as that
    // text, not parsed into Dates only to be written back.
    const rows = await issuePages.listQuery(db, f, o).options({ types: ISO_TIMESTAMPS });
    const last = rows[rows.length - 1];
    return {
      items: rows.map(toIssueRecord),
      nextCursor:
        rows.length === o.limit && last
          ? encodeCursor({ sort: o.sort, desc: o.desc, value: last.sort_value as string | number, id: last.id })
          : null,
    };
  },
};
