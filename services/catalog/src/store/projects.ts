import { containing, iso, Queryable, queryPage } from '@bulwark/platform';
import type { ProjectCriticality } from '@bulwark/contracts';

export interface ProjectRecord {
  code: string;
  name: string;
  description: string;
  tags: string[];
  criticality: ProjectCriticality;
  fieldValues: { fieldId: number; value: string }[];
  archivedAt: string | null;
  deletedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

interface ProjectRow {
  code: string;
  name: string;
  description: string;
  tags: string[];
  criticality: ProjectCriticality;
  archived_at: Date | null;
  deleted_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

interface FieldValueRow {
  project_code: string;
  field_id: number;
  value: string;
}

export interface ProjectQuery {
  page: number;
  limit: number;
  /** null: every project; otherwise only these codes. */
  scope: string[] | null;
  deletedOnly?: boolean;
  withDeleted?: boolean;
  archived?: boolean;
  searchCode?: string;
  searchName?: string;
  searchTag?: string;
}

export interface ProjectWrite {
  name: string;
  description: string;
  tags: string[];
  /** Left out: medium for a new project, unchanged for an update. */
  criticality?: ProjectCriticality;
}

async function attachValues(db: Queryable, rows: ProjectRow[]): Promise<ProjectRecord[]> {
  const values = rows.length
    ? await db<FieldValueRow>('project_field_values')
        .whereIn(
          'project_code',
          rows.map((r) => r.code),
        )
        .orderBy('field_id')
    : [];
  return rows.map((r) => ({
    code: r.code,
    name: r.name,
    description: r.description,
    tags: r.tags,
    criticality: r.criticality,
    fieldValues: values.filter((v) => v.project_code === r.code).map((v) => ({ fieldId: v.field_id, value: v.value })),
    archivedAt: iso(r.archived_at),
    deletedAt: iso(r.deleted_at),
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  }));
}

function inScope(db: Queryable, scope: string[] | null) {
  return db<ProjectRow>('projects').where((w) => {
    if (scope) w.whereIn('code', scope);
  });
}

export const projectStore = {
  /** Codes and tags of every project, deleted and archived ones too, a page at a time in code order. */
  async tagsAfter(db: Queryable, afterCode: string, limit: number): Promise<{ code: string; tags: string[] }[]> {
    return db<ProjectRow>('projects').where('code', '>', afterCode).orderBy('code').limit(limit).select('code', 'tags');
  },

  async get(db: Queryable, code: string): Promise<ProjectRecord | undefined> {
    const row = await db<ProjectRow>('projects').where({ code }).first();
    return row ? (await attachValues(db, [row]))[0] : undefined;
  },

  /** The project holding a code in any case, deleted ones included: codes are never reused. */
  async codeTaken(db: Queryable, code: string): Promise<boolean> {
    return Boolean(await db('projects').whereRaw('lower(code) = lower(?)', [code]).first('code'));
  },

  /** Of `codes`, those naming a live (not deleted) project. */
  async live(db: Queryable, codes: string[]): Promise<Set<string>> {
    if (codes.length === 0) return new Set();
    const rows = await db<ProjectRow>('projects').whereIn('code', codes).whereNull('deleted_at').select('code');
    return new Set(rows.map((r) => r.code));
  },

  async list(db: Queryable, q: ProjectQuery): Promise<{ items: ProjectRecord[]; total: number }> {
    const base = inScope(db, q.scope).where((w) => {
      if (q.deletedOnly) w.whereNotNull('deleted_at');
      else if (!q.withDeleted) w.whereNull('deleted_at');
      if (q.archived === true) w.whereNotNull('archived_at');
      else if (q.archived === false) w.whereNull('archived_at');
      if (q.searchCode) w.whereILike('code', containing(q.searchCode));
      if (q.searchName) w.whereILike('name', containing(q.searchName));
      if (q.searchTag)
        w.whereRaw(`exists (select 1 from jsonb_array_elements_text(projects.tags) tag where tag ilike ?)`, [
          containing(q.searchTag),
        ]);
    });
    const { rows, total } = await queryPage<ProjectRow>(base, q, [{ column: 'code' }]);
    return { items: await attachValues(db, rows), total };
  },

  /** The values the list filters can take among the projects in scope. */
  async filterValues(
    db: Queryable,
    scope: string[] | null,
  ): Promise<{ tags: string[]; archived: boolean[]; deleted: boolean[] }> {
    const tags = await inScope(db, scope)
      .whereNull('deleted_at')
      .select<{ tag: string }[]>(db.raw('distinct jsonb_array_elements_text(tags) as tag'))
      .orderBy('tag');
    const states = await inScope(db, scope).select<{ archived: boolean; deleted: boolean }[]>(
      db.raw('distinct archived_at is not null as archived, deleted_at is not null as deleted'),
    );
    return {
      tags: tags.map((t) => t.tag),
      archived: [...new Set(states.map((s) => s.archived))].sort(),
      deleted: [...new Set(states.map((s) => s.deleted))].sort(),
    };
  },

  /** Projects that exist (archived ones included, deleted ones not): what the license's projects limit counts. */
  async countLive(db: Queryable): Promise<number> {
    const [{ n }] = await db('projects').whereNull('deleted_at').count({ n: '*' });
    return Number(n);
  },

  async insert(db: Queryable, code: string, w: ProjectWrite): Promise<void> {
    await db('projects').insert({
      code,
      name: w.name,
      description: w.description,
      tags: JSON.stringify(w.tags),
      criticality: w.criticality,
    });
  },

  async update(db: Queryable, code: string, w: ProjectWrite): Promise<void> {
    await db('projects')
      .where({ code })
      .update({
        name: w.name,
        description: w.description,
        tags: JSON.stringify(w.tags),
        criticality: w.criticality,
        updated_at: db.fn.now(),
      });
  },

  async setFieldValues(db: Queryable, code: string, values: { field_id: number; value: string }[]): Promise<void> {
    await db('project_field_values').where({ project_code: code }).delete();
    if (values.length > 0)
      await db('project_field_values').insert(
        values.map((v) => ({ project_code: code, field_id: v.field_id, value: v.value })),
      );
  },

  async setArchived(db: Queryable, code: string, archived: boolean): Promise<void> {
    await db('projects')
      .where({ code })
      .update({ archived_at: archived ? db.fn.now() : null, updated_at: db.fn.now() });
  },

  async setDeleted(db: Queryable, code: string, deleted: boolean): Promise<void> {
    await db('projects')
      .where({ code })
      .update({ deleted_at: deleted ? db.fn.now() : null, updated_at: db.fn.now() });
  },
};
