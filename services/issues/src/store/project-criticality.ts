import type { ProjectCriticality } from '@bulwark/contracts';
import type { Queryable } from '@bulwark/platform';

/** Issues keep null for medium (the default), so the projects nobody rated never write a row. */
const stored = (c: ProjectCriticality) => (c === 'medium' ? null : c);

export const projectCriticalityStore = {
  /** The catalog's value as an ingestion read it: kept only when none is known yet (events carry the changes). */
  async learn(db: Queryable, projectCode: string, criticality: ProjectCriticality): Promise<void> {
    await db('project_criticality')
      .insert({ project_code: projectCode, criticality })
      .onConflict('project_code')
      .ignore();
  },

  /** A change the catalog announced. */
  async set(db: Queryable, projectCode: string, criticality: ProjectCriticality): Promise<void> {
    await db('project_criticality')
      .insert({ project_code: projectCode, criticality })
      .onConflict('project_code')
      .merge(['criticality']);
  },

  async of(db: Queryable, projectCode: string): Promise<ProjectCriticality> {
    const row = await db('project_criticality')
      .where('project_code', projectCode)
      .first<{ criticality: ProjectCriticality } | undefined>('criticality');
    return row?.criticality ?? 'medium';
  },

  /** Gives the project's issues (or one layer's) its criticality; only rows that differ are written. */
  async applyToIssues(db: Queryable, projectCode: string, criticality: ProjectCriticality, layerId?: string) {
    const q = db('issue_records')
      .where('project_code', projectCode)
      .whereRaw('project_criticality is distinct from ?', [stored(criticality)]);
    if (layerId) q.where('layer_id', layerId);
    await q.update({ project_criticality: stored(criticality) });
  },
};
