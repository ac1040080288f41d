import type { Migration } from '@bulwark/platform';
import { UNDATED_STATUSES } from '../domain/sla';

const UNDATED = UNDATED_STATUSES.join(', ');
const FACTORS = [
  'status_id',
  'severity_rank',
  'known_exploited',
  'intel_known_exploited',
  'kev_due_date',
  'first_detected_at',
  'sla_paused',
];

/**
 * SLA re-dating by what changed (issue #30, bench/README "SLA re-dating at scale"): a policy change
 * re-dates only the open issues of the severities whose days changed (found through the index on
 * (project_code, status_id, severity_rank) of migration 0001, no new one), computing their dates in
 * its own statement from the project's days row; the issue_sla trigger no longer computes them again.
 */
export const slaRedateByChangeMigration: Migration = {
  name: '0026_sla_redate_by_change',
  async up(db) {
    // An open issue's due date from its project's days row (null: no policy applies to the project).
    // Without a subquery, so PostgreSQL inlines it where a statement joins the row itself.
    await db.raw(`create function issue_sla_due_by(d sla_project_days, rank smallint, kev boolean, kev_due date,
        first timestamptz, paused interval) returns timestamptz language sql stable as $$
      select case when d.project_code is not null then
        least(first + make_interval(days => case when kev and d.known_exploited_days is not null then d.known_exploited_days
                                                 else case rank when 5 then d.days_critical when 4 then d.days_high
                                                   when 3 then d.days_medium when 2 then d.days_low else d.days_info end end),
              case when kev then (kev_due + 1)::timestamp at time zone 'UTC' end) + paused end
    $$`);
    await db.raw(`create or replace function issue_sla_due(code text, status int, rank smallint, kev boolean, kev_due date,
        first timestamptz, paused interval) returns timestamptz language sql stable as $$
      select case when status in (${UNDATED}) then null else (
        select issue_sla_due_by(d, rank, kev, kev_due, first, paused) from sla_project_days d where d.project_code = code) end
    $$`);
    // Fired only when a factor of the date changed (a status, a severity, the KEV values, the first
    // detection, the paused time), whichever writer changed it. A write of sla_due_at alone is the
    // re-dating statement's, which computed the date itself; writes that leave the factors as they
    // were (an EPSS-only feed load, a re-detection) no longer compute the same date again.
    await db.raw('drop trigger issue_sla_update on issue_records');
    await db.raw(`create trigger issue_sla_update before update of ${FACTORS.join(', ')} on issue_records for each row
      when ((${FACTORS.map((c) => `old.${c}`).join(', ')}) is distinct from (${FACTORS.map((c) => `new.${c}`).join(', ')}))
      execute function issue_sla()`);
  },
};
