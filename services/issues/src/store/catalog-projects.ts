import type { ProjectCriticality } from '@bulwark/contracts';
import { pgArray, type Queryable } from '@bulwark/platform';

/** Issues keep null for medium (the default), so the projects nobody rated never write a row. */
const stored = (c: ProjectCriticality) => (c === 'medium' ? null : c);

/** Whether the statement wrote the row (inserted, or updated where its condition held). */
const wrote = (r: { rowCount: number | null }) => (r.rowCount ?? 0) > 0;

/**
 * What issues knows of the catalog's projects (migration 0020): the criticality the risk score
 * weighs and the tags SLA policies apply by. Each fact is learnt from the catalog's value read for an
 * ingestion only while not known (later changes come as project events, which an older read must
 * not undo), and set by those events.
 */
export const catalogProjectStore = {
  async learnCriticality(db: Queryable, projectCode: string, criticality: ProjectCriticality): Promise<void> {
    await db.raw(
      `insert into catalog_projects (project_code, criticality) values (?, ?)
       on conflict (project_code) do update set criticality = excluded.criticality where catalog_projects.criticality is null`,
      [projectCode, criticality],
    );
  },

  async setCriticality(db: Queryable, projectCode: string, criticality: ProjectCriticality): Promise<void> {
    await db('catalog_projects')
      .insert({ project_code: projectCode, criticality })
      .onConflict('project_code')
      .merge(['criticality']);
  },

  async criticalityOf(db: Queryable, projectCode: string): Promise<ProjectCriticality> {
    const row = await db('catalog_projects')
      .where('project_code', projectCode)
      .first<{ criticality: ProjectCriticality | null } | undefined>('criticality');
    return row?.criticality ?? 'medium';
  },

  /** Whether the tags were learnt (the project was not known, or its tags were not). */
  async learnTags(db: Queryable, projectCode: string, tags: readonly string[]): Promise<boolean> {
    return wrote(
      await db.raw<{ rowCount: number | null }>(
        `insert into catalog_projects (project_code, tags) values (?, ?::text[])
         on conflict (project_code) do update set tags = excluded.tags where catalog_projects.tags is null`,
        [projectCode, pgArray([...tags])],
      ),
    );
  },

  /** Whether the tags changed. */
  async setTags(db: Queryable, projectCode: string, tags: readonly string[]): Promise<boolean> {
    return wrote(
      await db.raw<{ rowCount: number | null }>(
        `insert into catalog_projects (project_code, tags) values (?, ?::text[])
         on conflict (project_code) do update set tags = excluded.tags where catalog_projects.tags is distinct from excluded.tags`,
        [projectCode, pgArray([...tags])],
      ),
    );
  },

  /** Gives the project's issues (or one layer's) its criticality; only rows that differ are written. */
  async applyCriticalityToIssues(
    db: Queryable,
    projectCode: string,
    criticality: ProjectCriticality,
    layerId?: string,
  ) {
    const q = db('issue_records')
      .where('project_code', projectCode)
      .whereRaw('project_criticality is distinct from ?', [stored(criticality)]);
    if (layerId) q.where('layer_id', layerId);
    await q.update({ project_criticality: stored(criticality) });
  },
};
