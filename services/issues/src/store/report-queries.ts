/** The queries behind the reporting service's compliance, trend and detailed reports. */
import { iso, pgArray, Queryable } from '@bulwark/platform';
import type { Knex } from 'knex';
import { NOT_COUNTED_STATUSES, STATUS } from '../domain/statuses';
import { applyFilter, IssueFilter, issueStore } from './issues/issue-store';

/** Projects of a report (null: every project); duplicates are left out, as in the summary. */
function scoped(projects: string[] | null): { sql: string; bindings: string[] } {
  if (projects === null) return { sql: 'select * from issues where duplicate_of is null', bindings: [] };
  return {
    sql: 'select * from issues where duplicate_of is null and project_code = any(?::text[])',
    bindings: [pgArray(projects)],
  };
}

export const reportQueries = {
  async countByCwes(db: Queryable, projects: string[] | null, detectedFrom?: string, detectedTo?: string) {
    const scope = scoped(projects);
    const { rows } = await db.raw<{
      rows: {
        cwes: number[] | null;
        severity: string;
        open: boolean;
        library: boolean;
        sla_state: string;
        n: string;
      }[];
    }>(
      `select i.cwes, i.severity, not (i.status_id = any(?::int[])) as open, i.lib_name is not null as library,
         coalesce(i.sla_state, '') as sla_state, count(*) as n
       from (${scope.sql}) i
       where (?::timestamptz is null or i.first_detected_at >= ?::timestamptz) and (?::timestamptz is null or i.first_detected_at <= ?::timestamptz)
       group by 1, 2, 3, 4, 5`,
      [
        pgArray(NOT_COUNTED_STATUSES),
        ...scope.bindings,
        detectedFrom ?? null,
        detectedFrom ?? null,
        detectedTo ?? null,
        detectedTo ?? null,
      ],
    );
    return rows.map((r) => ({ ...r, cwes: r.cwes ?? [], n: Number(r.n) }));
  },

  /**
   * Per interval, among the issues that match `f` (the trend report's: its projects, duplicates left
   * out; GET /issues/count/grouped by week: the request's filters): issues first detected in it,
   * changes to Fixed in it, and issues open at its end. An issue adds one to the open count when
   * first detected if its first status was open (the old status of its first status change, or the
   * new one when that change is its creation), a change from an open to a closed status takes one
   * away and the reverse adds one. Every status change is in issue_history, so these add up to the
   * issues open now; the query walks back from that count over the events since the first interval's
   * start only (issues_first / issues_project_first, issue_history_status_at), each event in the
   * interval width_bucket finds for it (one past the last: after `end`), so its cost follows the
   * period's events, not the number of issues.
   */
  async trend(db: Queryable, f: IssueFilter, starts: string[], end: string) {
    const closed = pgArray(NOT_COUNTED_STATUSES);
    const detected = applyFilter(
      db('issues')
        .select('issues.id', 'issues.first_detected_at', 'issues.status_id')
        .where('issues.first_detected_at', '>=', starts[0]),
      f,
    ).toSQL();
    const changed = applyFilter(
      db({ h: 'issue_history' })
        .join('issues', 'issues.id', 'h.issue_id')
        .select('h.at', 'h.old_value', 'h.new_value')
        .where('h.field', 'status')
        .where('h.at', '>=', starts[0]),
      f,
    ).toSQL();
    const openNow = issueStore.countQuery(db, f).whereRaw('not (issues.status_id = any(?::int[]))', [closed]).toSQL();
    const { rows } = await db.raw<{ rows: { k: number; opened: string; fixed: string; delta: string }[] }>(
      `with ev as (
         select i.first_detected_at as at, 1 as opened, 0 as fixed,
           case when coalesce(first.old_value, first.new_value, i.status_id::text)::int = any(?::int[]) then 0 else 1 end as delta
         from (${detected.sql}) i left join lateral (
           select h.old_value, h.new_value from issue_history h where h.issue_id = i.id and h.field = 'status' order by h.at, h.id limit 1
         ) first on true
         union all
         select c.at, 0, (c.new_value = ?)::int,
           case when c.old_value is null or (c.old_value::int = any(?::int[])) = (c.new_value::int = any(?::int[])) then 0 when c.new_value::int = any(?::int[]) then -1 else 1 end
         from (${changed.sql}) c
       )
       select width_bucket(ev.at, ?::timestamptz[]) as k, sum(ev.opened) as opened, sum(ev.fixed) as fixed, sum(ev.delta) as delta from ev group by 1
       union all
       select -1, 0, 0, (select n from (${openNow.sql}) o)`,
      [
        closed,
        ...(detected.bindings as Knex.RawBinding[]),
        String(STATUS.fixed),
        closed,
        closed,
        closed,
        ...(changed.bindings as Knex.RawBinding[]),
        pgArray([...starts, end]),
        ...(openNow.bindings as Knex.RawBinding[]),
      ],
    );
    const byBucket = new Map(rows.map((r) => [Number(r.k), r]));
    // Open at the end of interval k: open now, less what every later event added.
    let open = Number(byBucket.get(-1)?.delta ?? 0) - Number(byBucket.get(starts.length + 1)?.delta ?? 0);
    const intervals = [];
    for (let index = starts.length - 1; index >= 0; index--) {
      const r = byBucket.get(index + 1);
      intervals.unshift({ start: starts[index], opened: Number(r?.opened ?? 0), fixed: Number(r?.fixed ?? 0), open });
      open -= Number(r?.delta ?? 0);
    }
    return intervals;
  },

  /** Issues changed to Fixed within [from, to] and the mean hours from first detection to that change, by severity. */
  async fixTimes(db: Queryable, projects: string[] | null, from: string, to: string) {
    const scope = scoped(projects);
    const { rows } = await db.raw<{ rows: { severity: string; n: string; mean_hours: string | number }[] }>(
      `select i.severity, count(*) as n, avg(extract(epoch from (f.at - i.first_detected_at)) / 3600) as mean_hours
       from (${scope.sql}) i
       join lateral (select min(h.at) as at from issue_history h where h.issue_id = i.id and h.field = 'status' and h.new_value = ? and h.at >= ? and h.at <= ?) f on f.at is not null
       group by i.severity`,
      [...scope.bindings, String(STATUS.fixed), from, to],
    );
    return rows.map((r) => ({
      severity: r.severity,
      fixed: Number(r.n),
      meanHours: Number(r.mean_hours),
    }));
  },

  /** The description and newest `historyLimit` history entries of each issue. */
  async details(db: Queryable, ids: string[], historyLimit: number) {
    const issues = await db('issues')
      .select<{ id: string; description: string | null }[]>('id', 'description')
      .whereRaw('id = any(?::uuid[])', [pgArray(ids)]);
    const { rows } = await db.raw<{
      rows: {
        issue_id: string;
        at: Date;
        actor: string;
        field: string;
        old_value: string | null;
        new_value: string | null;
        comment: string | null;
      }[];
    }>(
      `select h.issue_id, h.at, h.actor, h.field, h.old_value, h.new_value, h.comment from unnest(?::uuid[]) x(id)
       cross join lateral (select * from issue_history h where h.issue_id = x.id order by h.at desc, h.id desc limit ?) h`,
      [pgArray(ids), historyLimit],
    );
    const history = new Map<
      string,
      {
        at: string;
        actor: string;
        field: string;
        oldValue: string | null;
        newValue: string | null;
        comment: string | null;
      }[]
    >();
    for (const r of rows) {
      const list = history.get(r.issue_id) ?? [];
      list.push({
        at: iso(r.at),
        actor: r.actor,
        field: r.field,
        oldValue: r.old_value,
        newValue: r.new_value,
        comment: r.comment,
      });
      history.set(r.issue_id, list);
    }
    return issues.map((i) => ({ id: i.id, description: i.description, history: history.get(i.id) ?? [] }));
  },
};
