import { countOf, iso, Queryable, queryPage } from '@bulwark/platform';
import type { FieldType } from '../domain/field-values';

export interface FieldRecord {
  id: number;
  name: string;
  type: FieldType;
  required: boolean;
  description: string;
  createdAt: string;
  updatedAt: string;
}

interface FieldRow {
  id: number;
  name: string;
  type: FieldType;
  required: boolean;
  description: string;
  created_at: Date;
  updated_at: Date;
}

const toRecord = (r: FieldRow): FieldRecord => ({
  id: r.id,
  name: r.name,
  type: r.type,
  required: r.required,
  description: r.description,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

export const fieldStore = {
  async get(db: Queryable, id: number): Promise<FieldRecord | undefined> {
    const row = await db<FieldRow>('fields').where({ id }).first();
    return row ? toRecord(row) : undefined;
  },

  async all(db: Queryable): Promise<FieldRecord[]> {
    return (await db<FieldRow>('fields').orderBy('id')).map(toRecord);
  },

  async list(db: Queryable, q: { page: number; limit: number }): Promise<{ items: FieldRecord[]; total: number }> {
    const base = db<FieldRow>('fields');
    const { rows, total } = await queryPage<FieldRow>(base, q, [{ column: 'id' }]);
    return { items: rows.map(toRecord), total };
  },

  async nameTaken(db: Queryable, name: string, except?: number): Promise<boolean> {
    const q = db('fields').whereRaw('lower(name) = lower(?)', [name]);
    if (except !== undefined) q.whereNot({ id: except });
    return Boolean(await q.first('id'));
  },

  async insert(
    db: Queryable,
    w: { name: string; type: FieldType; required: boolean; description: string },
  ): Promise<number> {
    const [row] = await db<FieldRow>('fields').insert(w).returning('id');
    return row.id;
  },

  async update(db: Queryable, id: number, w: { name: string; required: boolean; description: string }): Promise<void> {
    await db('fields')
      .where({ id })
      .update({ ...w, updated_at: db.fn.now() });
  },

  /** Deletes the field and its values; answers how many projects held a value. */
  async delete(db: Queryable, id: number): Promise<number> {
    const holders = await countOf(db('project_field_values').where({ field_id: id }));
    await db('fields').where({ id }).delete();
    return holders;
  },
};
