/** The queries behind the reporting service's compliance, trend and detailed reports. */
import { iso, pgArray, Queryable } from '@bulwark/platform';
import { NOT_COUNTED_STATUSES, STATUS } from '../domain/statuses';

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
   * Per interval: issues first detected in it, changes to Fixed in it, and issues open at its end
   * (an issue's status then is its last status change before the end; with none, the status it was
   * created with is taken as open, which it is unless a rule suppressed it at once).
   */
  async trend(db: Queryable, projects: string[] | null, starts: string[], end: string) {
    const scope = scoped(projects);
    const { rows } = await db.raw(
      `with b as (
         select s as start, lead(s, 1, ?::timestamptz) over (order by s) as stop from unnest(?::timestamptz[]) s
       ), i as (${scope.sql})
       select b.start,
         (select count(*) from i where i.first_detected_at >= b.start and i.first_detected_at < b.stop) as opened,
         (select count(*) from issue_history h join i on i.id = h.issue_id
           where h.field = 'status' and h.new_value = ? and h.at >= b.start and h.at < b.stop) as fixed,
         (select count(*) from i where i.first_detected_at < b.stop and coalesce((
             select h.new_value::int from issue_history h where h.issue_id = i.id and h.field = 'status' and h.at < b.stop order by h.at desc, h.id desc limit 1
           ), ?) <> all(?::int[])) as open
       from b order by b.start`,
      [end, pgArray(starts), ...scope.bindings, String(STATUS.fixed), STATUS.new, pgArray(NOT_COUNTED_STATUSES)],
    );
    return (rows as { start: Date; opened: string; fixed: string; open: string }[]).map((r) => ({ start: iso(r.start)!, opened: Number(r.opened), fixed: Number(r.fixed), open: Number(r.open) }));
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
