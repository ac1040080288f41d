import { pgArray, Queryable } from '@bulwark/platform';
import { SlaDaysChange, SlaProjectDays, slaRedates, UNDATED_STATUSES } from '../domain/sla';
import { DEFAULT_STATUSES } from '../domain/statuses';
import { SlaDaysRow, slaDaysOf } from './sla-policies';

const DAY_COLUMNS = ['days_critical', 'days_high', 'days_medium', 'days_low', 'days_info', 'known_exploited_days'];
const KNOWN_EXPLOITED = 'r.known_exploited or coalesce(r.intel_known_exploited, false)';
/**
 * The statuses whose issues have a due date, named so that the index on (project_code, status_id,
 * severity_rank) of migration 0001 finds a project's open issues of one severity.
 */
const DATED_STATUSES = DEFAULT_STATUSES.map((s) => s.id).filter((id) => !UNDATED_STATUSES.includes(id));

const projectDays = (r: SlaDaysRow | null): SlaProjectDays | null =>
  r && { ...slaDaysOf(r), knownExploited: r.known_exploited_days };

/** An issue that has just passed its due date, as issue.sla_breached announces it. */
export interface SlaBreach {
  id: string;
  projectCode: string;
  title: string;
  severity: string;
  knownExploited: boolean;
  slaDueAt: string;
}

/**
 * The SLA clock's data (README "Issues", SLAs): each project's applicable days (sla_project_days,
 * resolved set-wise from the policies and the tags in catalog_projects), and the issues' due dates:
 * re-dated here when days change, kept by the issue_sla trigger (migrations 0018, 0026) on every
 * other write that changes a factor of the date.
 */
export const slaClockStore = {
  /**
   * Resolves the applicable days of these projects (every known project when null): the policies
   * naming the project, else those of its tags, else those for every project; each severity takes
   * the shortest of their days. Answers the projects whose days changed, with their days before and after.
   */
  async resolve(db: Queryable, projectCodes: readonly string[] | null): Promise<SlaDaysChange[]> {
    const only = projectCodes ? 'where project_code = any(?::text[])' : '';
    const bindings = projectCodes ? [pgArray([...projectCodes])] : [];
    const cols = DAY_COLUMNS.join(', ');
    const { rows } = await db.raw<{
      rows: { project_code: string; before: SlaDaysRow | null; after: SlaDaysRow | null }[];
    }>(
      `with projects as (select project_code, coalesce(tags, '{}') as tags from catalog_projects ${only}),
       previous as (select * from sla_project_days where project_code in (select project_code from projects)),
       matches as (
         select p.project_code, ${DAY_COLUMNS.map((c) => `s.${c}`).join(', ')},
           case when p.project_code = any(s.project_codes) then 1
                when s.project_tags && p.tags then 2
                when cardinality(s.project_codes) = 0 and cardinality(s.project_tags) = 0 then 3 end as rank
         from projects p cross join sla_policies s),
       ranked as (select m.*, min(rank) over (partition by project_code) as best from matches m where rank is not null),
       resolved as (select project_code, ${DAY_COLUMNS.map((c) => `min(${c}) as ${c}`).join(', ')}
         from ranked where rank = best group by project_code),
       removed as (delete from sla_project_days d where d.project_code in (select project_code from projects)
         and not exists (select 1 from resolved r where r.project_code = d.project_code) returning d.project_code),
       written as (insert into sla_project_days (project_code, ${cols}) select project_code, ${cols} from resolved
         on conflict (project_code) do update set ${DAY_COLUMNS.map((c) => `${c} = excluded.${c}`).join(', ')}
         where (${DAY_COLUMNS.map((c) => `sla_project_days.${c}`).join(', ')}) is distinct from (${DAY_COLUMNS.map((c) => `excluded.${c}`).join(', ')})
         returning project_code),
       changed as (select project_code from removed union select project_code from written)
       select c.project_code, to_jsonb(b) as before, to_jsonb(r) as after
       from changed c left join previous b on b.project_code = c.project_code left join resolved r on r.project_code = c.project_code`,
      bindings,
    );
    return rows.map((r) => ({
      projectCode: r.project_code,
      before: projectDays(r.before),
      after: projectDays(r.after),
    }));
  },

  /**
   * Gives the open issues whose days changed (slaRedates) their due dates anew, writing only the rows
   * whose date moves: the statement computes each date once, from the project's days row
   * (issue_sla_due_by, inlined), and clears the breach announced when the date moved ahead, as the
   * issue_sla trigger does on other writes (it does not fire on this one). Computed from the row being
   * written, so a concurrent change of the issue is seen.
   */
  async applyToIssues(db: Queryable, changes: readonly SlaDaysChange[]): Promise<number> {
    const redates = changes.flatMap(slaRedates);
    if (redates.length === 0) return 0;
    const due = `issue_sla_due_by(d, r.severity_rank, ${KNOWN_EXPLOITED}, r.kev_due_date, r.first_detected_at, r.sla_paused)`;
    const { rowCount } = await db.raw<{ rowCount: number | null }>(
      `update issue_records r set sla_due_at = ${due}, sla_breach_notified = r.sla_breach_notified and coalesce(${due} <= now(), false)
       from unnest(?::text[], ?::smallint[], ?::boolean[]) t(project_code, severity_rank, known_exploited_only)
         left join sla_project_days d on d.project_code = t.project_code
       where r.project_code = t.project_code and r.severity_rank = t.severity_rank and r.status_id = any(?::int[])
         and (not t.known_exploited_only or ${KNOWN_EXPLOITED}) and r.sla_due_at is distinct from ${due}`,
      [
        pgArray(redates.map((x) => x.projectCode)),
        pgArray(redates.map((x) => x.severityRank)),
        pgArray(redates.map((x) => x.knownExploitedOnly)),
        pgArray(DATED_STATUSES),
      ],
    );
    return rowCount ?? 0;
  },

  /**
   * Marks up to `limit` breached issues not announced yet as announced, and answers them. Replicas
   * running it at once skip each other's rows, so each breach is announced by one of them.
   */
  async claimBreaches(db: Queryable, limit: number): Promise<SlaBreach[]> {
    const { rows } = await db.raw<{
      rows: { id: string; project_code: string; title: string; severity: string; kev: boolean; sla_due_at: Date }[];
    }>(
      `with due as (select id from issue_records where sla_due_at <= now() and sla_due_at is not null and not sla_breach_notified
         order by sla_due_at limit ? for update skip locked)
       update issue_records r set sla_breach_notified = true from due where r.id = due.id
       returning r.id, r.project_code, r.title, r.severity, r.known_exploited or coalesce(r.intel_known_exploited, false) as kev, r.sla_due_at`,
      [limit],
    );
    return rows.map((r) => ({
      id: r.id,
      projectCode: r.project_code,
      title: r.title,
      severity: r.severity,
      knownExploited: r.kev,
      slaDueAt: r.sla_due_at.toISOString(),
    }));
  },
};
