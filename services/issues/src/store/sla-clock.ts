import { pgArray, Queryable } from '@bulwark/platform';

const DAY_COLUMNS = ['days_critical', 'days_high', 'days_medium', 'days_low', 'days_info', 'known_exploited_days'];

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
 * resolved set-wise from the policies and the tags in catalog_projects), and the issues' due dates,
 * which the issue_sla trigger of migration 0018 keeps on every write of an issue.
 */
export const slaClockStore = {
  /**
   * Resolves the applicable days of these projects (every known project when null): the policies
   * naming the project, else those of its tags, else those for every project; each severity takes
   * the shortest of their days. Answers the projects whose days changed.
   */
  async resolve(db: Queryable, projectCodes: readonly string[] | null): Promise<string[]> {
    const only = projectCodes ? 'where project_code = any(?::text[])' : '';
    const bindings = projectCodes ? [pgArray([...projectCodes])] : [];
    const cols = DAY_COLUMNS.join(', ');
    const { rows } = await db.raw<{ rows: { project_code: string }[] }>(
      `with projects as (select project_code, coalesce(tags, '{}') as tags from catalog_projects ${only}),
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
         returning project_code)
       select project_code from removed union select project_code from written`,
      bindings,
    );
    return rows.map((r) => r.project_code);
  },

  /** Gives these projects' issues their due dates anew (only rows whose date changes are written). */
  async applyToIssues(db: Queryable, projectCodes: readonly string[]): Promise<number> {
    if (projectCodes.length === 0) return 0;
    const due = `issue_sla_due(project_code, status_id, severity_rank, known_exploited or coalesce(intel_known_exploited, false),
      kev_due_date, first_detected_at, sla_paused)`;
    const { rowCount } = await db.raw<{ rowCount: number | null }>(
      `update issue_records set sla_due_at = ${due} where project_code = any(?::text[]) and sla_due_at is distinct from ${due}`,
      [pgArray([...projectCodes])],
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
