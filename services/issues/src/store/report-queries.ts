/** The queries behind the reporting service's compliance, trend and detailed reports. */
import { iso, pgArray, Queryable } from '@bulwark/platform';
import type { Knex } from 'knex';
import { NOT_COUNTED_STATUSES, STATUS } from '../domain/statuses';
import { applyFilter, IssueFilter } from './issues';

/** Projects of a report (null: every project); duplicates are left out, as in the summary. */
function scoped(projects: string[] | null): { sql: string; bindings: string[] } {
  if (projects === null) return { sql: 'select * from issues where duplicate_of is null', bindings: [] };
  return { sql: 'select * from issues where duplicate_of is null and project_code = any(?::text[])', bindings: [pgArray(projects)] };
}

export const reportQueries = {
  async countByCwes(db: Queryable, projects: string[] | null, detectedFrom?: string, detectedTo?: string) {
    const scope = scoped(projects);
    const { rows } = await db.raw(
      `select i.cwes, i.severity, not (i.status_id = any(?::int[])) as open, i.lib_name is not null as library, count(*) as n
       from (${scope.sql}) i
       where (?::timestamptz is null or i.first_detected_at >= ?::timestamptz) and (?::timestamptz is null or i.first_detected_at <= ?::timestamptz)
       group by 1, 2, 3, 4`,
      [pgArray(NOT_COUNTED_STATUSES), ...scope.bindings, detectedFrom ?? null, detectedFrom ?? null, detectedTo ?? null, detectedTo ?? null],
    );
    return (rows as { cwes: number[] | null; severity: string; open: boolean; library: boolean; n: string }[]).map((r) => ({ ...r, cwes: r.cwes ?? [], n: Number(r.n) }));
  },

  /**
   * Per interval, among the issues that match `f` (the trend report's: its projects, duplicates left
   * out; GET /issues/count/grouped by week: the request's filters): issues first detected in it,
   * changes to Fixed in it, and issues open at its end. One pass over the scope's issues and status changes: an issue adds one to the open count when
   * first detected if its first status was open, a change from an open to a closed status takes
   * one away and the reverse adds one; each event falls in the interval width_bucket finds for it
   * (0: before the first), and the open count is their running sum.
   */
  async trend(db: Queryable, f: IssueFilter, starts: string[], end: string) {
    const scope = applyFilter(db('issues').select('issues.*'), f).toSQL();
    const closed = pgArray(NOT_COUNTED_STATUSES);
    const { rows } = await db.raw(
      `with i as (${scope.sql}),
       ev as (
         select i.first_detected_at as at, 1 as opened, 0 as fixed,
           case when coalesce(first.old_value::int, i.status_id) = any(?::int[]) then 0 else 1 end as delta
         from i left join lateral (
           select h.old_value from issue_history h where h.issue_id = i.id and h.field = 'status' order by h.at, h.id limit 1
         ) first on true
         where i.first_detected_at < ?
         union all
         select h.at, 0, (h.new_value = ?)::int,
           case when (h.old_value::int = any(?::int[])) = (h.new_value::int = any(?::int[])) then 0 when h.new_value::int = any(?::int[]) then -1 else 1 end
         from issue_history h join i on i.id = h.issue_id
         where h.field = 'status' and h.at < ?
       )
       select width_bucket(ev.at, ?::timestamptz[]) as k, sum(ev.opened) as opened, sum(ev.fixed) as fixed, sum(ev.delta) as delta from ev group by 1 order by 1`,
      [...(scope.bindings as Knex.RawBinding[]), closed, end, String(STATUS.fixed), closed, closed, closed, end, pgArray(starts)],
    );
    const byBucket = new Map((rows as { k: number; opened: string; fixed: string; delta: string }[]).map((r) => [Number(r.k), r]));
    let open = Number(byBucket.get(0)?.delta ?? 0);
    return starts.map((start, index) => {
      const r = byBucket.get(index + 1);
      open += Number(r?.delta ?? 0);
      return { start, opened: Number(r?.opened ?? 0), fixed: Number(r?.fixed ?? 0), open };
    });
  },

  /** Issues changed to Fixed within [from, to] and the mean hours from first detection to that change, by severity. */
  async fixTimes(db: Queryable, projects: string[] | null, from: string, to: string) {
    const scope = scoped(projects);
    const { rows } = await db.raw(
      `select i.severity, count(*) as n, avg(extract(epoch from (f.at - i.first_detected_at)) / 3600) as mean_hours
       from (${scope.sql}) i
       join lateral (select min(h.at) as at from issue_history h where h.issue_id = i.id and h.field = 'status' and h.new_value = ? and h.at >= ? and h.at <= ?) f on f.at is not null
       group by i.severity`,
      [...scope.bindings, String(STATUS.fixed), from, to],
    );
    return (rows as { severity: string; n: string; mean_hours: string | number }[]).map((r) => ({ severity: r.severity, fixed: Number(r.n), meanHours: Number(r.mean_hours) }));
  },

  /** The description and newest `historyLimit` history entries of each issue. */
  async details(db: Queryable, ids: string[], historyLimit: number) {
    const issues: { id: string; description: string | null }[] = await db('issues').select('id', 'description').whereRaw('id = any(?::uuid[])', [pgArray(ids)]);
    const { rows } = await db.raw(
      `select h.issue_id, h.at, h.actor, h.field, h.old_value, h.new_value, h.comment from unnest(?::uuid[]) x(id)
       cross join lateral (select * from issue_history h where h.issue_id = x.id order by h.at desc, h.id desc limit ?) h`,
      [pgArray(ids), historyLimit],
    );
    const history = new Map<string, { at: string; actor: string; field: string; old_value: string | null; new_value: string | null; comment: string | null }[]>();
    for (const r of rows as { issue_id: string; at: Date; actor: string; field: string; old_value: string | null; new_value: string | null; comment: string | null }[]) {
      const list = history.get(r.issue_id) ?? [];
      list.push({ at: iso(r.at)!, actor: r.actor, field: r.field, old_value: r.old_value, new_value: r.new_value, comment: r.comment });
      history.set(r.issue_id, list);
    }
    return issues.map((i) => ({ id: i.id, description: i.description, history: history.get(i.id) ?? [] }));
  },
};
