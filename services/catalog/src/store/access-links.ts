import type { Queryable } from '@bulwark/platform';
import type { Knex } from 'knex';
import type { Access, AccessType } from '../domain/access';

export type ResourceKind = 'source' | 'tool';

/** Project links of sources and tools: `<kind>_projects` rows next to each row's access_type. */
export const accessLinks = {
  async of(db: Queryable, kind: ResourceKind, ids: string[]): Promise<Map<string, string[]>> {
    const rows = ids.length
      ? await db<Record<string, string>>(`${kind}_projects`).whereIn(`${kind}_id`, ids).orderBy('project_code')
      : [];
    const out = new Map<string, string[]>(ids.map((id) => [id, []]));
    for (const r of rows) out.get(r[`${kind}_id`])?.push(r.project_code);
    return out;
  },

  async set(db: Queryable, kind: ResourceKind, id: string, access: Access): Promise<void> {
    await db(`${kind}_projects`)
      .where({ [`${kind}_id`]: id })
      .delete();
    if (access.accessType === 'project' && access.projectCodes.length > 0) {
      await db(`${kind}_projects`).insert(
        access.projectCodes.map((code) => ({ [`${kind}_id`]: id, project_code: code })),
      );
    }
  },

  /** Rows a caller with `scope` sees: global ones, and those linked to one of its projects. */
  whereVisible<TRecord extends object, TResult>(
    db: Queryable,
    kind: ResourceKind,
    query: Knex.QueryBuilder<TRecord, TResult>,
    scope: string[] | null,
  ): void {
    if (!scope) return;
    query.where((w) => {
      w.where(`${kind}s.access_type`, 'global').orWhereExists(
        db(`${kind}_projects`).whereRaw(`${kind}_projects.${kind}_id = ${kind}s.id`).whereIn('project_code', scope),
      );
    });
  },

  /** Rows a project's checks may use. */
  whereUsableIn<TRecord extends object, TResult>(
    db: Queryable,
    kind: ResourceKind,
    query: Knex.QueryBuilder<TRecord, TResult>,
    projectCode: string,
  ): void {
    query.where((w) => {
      w.where(`${kind}s.access_type`, 'global').orWhereExists(
        db(`${kind}_projects`).whereRaw(`${kind}_projects.${kind}_id = ${kind}s.id`).where('project_code', projectCode),
      );
    });
  },
};

export const toAccess = (accessType: string, codes: string[] | undefined): Access => ({
  accessType: accessType as AccessType,
  projectCodes: codes ?? [],
});
