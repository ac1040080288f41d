import { containing, iso, Queryable, queryPage } from '@bulwark/platform';

export interface LayerRecord {
  id: string;
  projectCode: string;
  name: string;
  description: string;
  layerTypeId: number;
  isTemplate: boolean;
  templateId: string | null;
  createdAt: string;
  updatedAt: string;
}

interface LayerRow {
  id: string;
  project_code: string;
  name: string;
  description: string;
  layer_type_id: number;
  is_template: boolean;
  template_id: string | null;
  created_at: Date;
  updated_at: Date;
}

const toRecord = (r: LayerRow): LayerRecord => ({
  id: r.id,
  projectCode: r.project_code,
  name: r.name,
  description: r.description,
  layerTypeId: r.layer_type_id,
  isTemplate: r.is_template,
  templateId: r.template_id,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

export type LayerWrite = Omit<LayerRecord, 'id' | 'createdAt' | 'updatedAt'>;

export interface LayerQuery {
  page: number;
  limit: number;
  scope: string[] | null;
  projectCode?: string;
  isTemplate?: boolean;
  searchName?: string;
}

export const layerStore = {
  async get(db: Queryable, id: string): Promise<LayerRecord | undefined> {
    const row = await db<LayerRow>('layers').where({ id }).first();
    return row ? toRecord(row) : undefined;
  },

  /** Layers of live projects only: a deleted project's layers are out of sight until it is restored. */
  async list(db: Queryable, q: LayerQuery): Promise<{ items: LayerRecord[]; total: number }> {
    const base = db<LayerRow>('layers')
      .whereIn('project_code', db('projects').whereNull('deleted_at').select('code'))
      .where((w) => {
        if (q.scope) w.whereIn('project_code', q.scope);
        if (q.projectCode) w.where('project_code', q.projectCode);
        if (q.isTemplate !== undefined) w.where('is_template', q.isTemplate);
        if (q.searchName) w.whereILike('name', containing(q.searchName));
      });
    const { rows, total } = await queryPage<LayerRow>(base, q, [
      { column: 'project_code' },
      { column: 'name' },
      { column: 'id' },
    ]);
    return { items: rows.map(toRecord), total };
  },

  async insert(db: Queryable, id: string, w: LayerWrite): Promise<void> {
    await db('layers').insert({
      id,
      project_code: w.projectCode,
      name: w.name,
      description: w.description,
      layer_type_id: w.layerTypeId,
      is_template: w.isTemplate,
      template_id: w.templateId,
    });
  },

  async update(
    db: Queryable,
    id: string,
    w: Pick<LayerWrite, 'name' | 'description' | 'layerTypeId' | 'isTemplate'>,
  ): Promise<void> {
    await db('layers').where({ id }).update({
      name: w.name,
      description: w.description,
      layer_type_id: w.layerTypeId,
      is_template: w.isTemplate,
      updated_at: db.fn.now(),
    });
  },

  async delete(db: Queryable, id: string): Promise<void> {
    await db('layers').where({ id }).delete();
  },
};
