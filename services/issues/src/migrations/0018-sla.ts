import type { Migration } from '@bulwark/platform';
import { STATUS } from '../domain/statuses';
import { VIEW_COLUMNS_0016 } from './issues-view';

const CLOSED = [STATUS.fixed, STATUS.falsePositive].join(', ');
const PAUSED = [STATUS.riskAccepted, STATUS.suppressed].join(', ');

/**
 * SLAs (README "Issues", SLAs). A policy's days apply to the projects it names, those carrying one of
 * its tags, or every project; each project's applicable days are resolved into sla_project_days when
 * a policy or a project's tags change, so an issue's due date is one primary-key read away. PostgreSQL
 * keeps sla_due_at right on every write that changes a factor (a trigger, like the risk score's
 * generated column), whichever path wrote it: an ingestion, a feed, a rule, a person, an acceptance.
 */
export const slaMigration: Migration = {
  name: '0018_sla',
  async up(db) {
    await db.schema.createTable('sla_policies', (t) => {
      t.uuid('id').primary();
      t.text('name').notNullable();
      t.specificType('project_tags', 'text[]').notNullable();
      t.specificType('project_codes', 'text[]').notNullable();
      for (const s of ['critical', 'high', 'medium', 'low', 'info']) t.integer(`days_${s}`);
      t.integer('known_exploited_days');
      t.text('author').notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
      t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    });
    // The tags of the projects issues know, from the catalog's events and ingestions (null: not known
    // yet, for the projects that had issues before this migration until an event or ingestion tells).
    await db.schema.createTable('sla_projects', (t) => {
      t.text('project_code').primary();
      t.specificType('tags', 'text[]');
    });
    await db.raw('insert into sla_projects (project_code) select distinct project_code from issue_records');
    await db.schema.createTable('sla_project_days', (t) => {
      t.text('project_code').primary();
      for (const s of ['critical', 'high', 'medium', 'low', 'info']) t.integer(`days_${s}`);
      t.integer('known_exploited_days');
    });
    // Time spent paused (Risk accepted, Suppressed) moves the due date by as much; sla_paused_at is
    // when the running pause began. Columns with constant defaults: adding them rewrites no row.
    await db.raw(`alter table issue_records add column sla_due_at timestamptz,
      add column sla_paused interval not null default '0',
      add column sla_paused_at timestamptz,
      add column sla_breach_notified boolean not null default false`);
    await db.raw(`create function issue_sla_due(code text, status int, rank smallint, kev boolean, kev_due date,
        first timestamptz, paused interval) returns timestamptz language sql stable as $$
      select case when status in (${CLOSED}, ${PAUSED}) then null else (
        select least(first + make_interval(days => case when kev and d.known_exploited_days is not null then d.known_exploited_days
                                                        else case rank when 5 then d.days_critical when 4 then d.days_high
                                                          when 3 then d.days_medium when 2 then d.days_low else d.days_info end end),
                     case when kev then (kev_due + 1)::timestamp at time zone 'UTC' end) + paused
        from sla_project_days d where d.project_code = code) end
    $$`);
    // A breach is announced once: the flag clears when the issue is no longer breached (closed, or
    // its due date moved ahead) so that the next breach is announced again; a pause keeps it.
    await db.raw(`create function issue_sla() returns trigger language plpgsql as $$
      begin
        if tg_op = 'UPDATE' and new.status_id is distinct from old.status_id then
          if new.status_id in (${PAUSED}) and old.status_id not in (${PAUSED}) then
            new.sla_paused_at := now();
          elsif old.status_id in (${PAUSED}) and new.status_id not in (${PAUSED}) then
            new.sla_paused := new.sla_paused + coalesce(now() - old.sla_paused_at, interval '0');
            new.sla_paused_at := null;
          end if;
        end if;
        new.sla_due_at := issue_sla_due(new.project_code, new.status_id, new.severity_rank,
          new.known_exploited or coalesce(new.intel_known_exploited, false), new.kev_due_date, new.first_detected_at, new.sla_paused);
        if new.status_id not in (${PAUSED}) and (new.sla_due_at is null or new.sla_due_at > now()) then
          new.sla_breach_notified := false;
        end if;
        return new;
      end $$`);
    await db.raw(
      'create trigger issue_sla_insert before insert on issue_records for each row execute function issue_sla()',
    );
    await db.raw(`create trigger issue_sla_update before update of status_id, severity_rank, known_exploited, intel_known_exploited,
      kev_due_date, first_detected_at, sla_paused, sla_due_at on issue_records for each row execute function issue_sla()`);
    // sort=sla_due_at pages by keyset (issues without a due date last); filter[sla_state] reads the
    // issues with a due date only; the breach task reads the breached issues not announced yet.
    await db.raw(
      "create index issues_sla_due on issue_records ((coalesce(sla_due_at, '9999-12-31T00:00:00Z'::timestamptz)), id)",
    );
    await db.raw('create index issues_sla_open on issue_records (sla_due_at) where sla_due_at is not null');
    await db.raw(
      'create index issues_sla_unannounced on issue_records (sla_due_at) where sla_due_at is not null and not sla_breach_notified',
    );
    // sla_state relative to the statement's time: due_soon once less than a fifth of the time from
    // the first detection to the due date is left.
    await db.raw(`create or replace view issues as select
        ${VIEW_COLUMNS_0016},
        r.sla_due_at, case when r.sla_due_at is null then null when r.sla_due_at <= now() then 'breached'
          when r.sla_due_at - now() <= (r.sla_due_at - r.first_detected_at) * 0.2 then 'due_soon' else 'on_track' end as sla_state
        from issue_records r left join issue_detection_state d on d.issue_id = r.id`);
  },
};
