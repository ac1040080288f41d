import { containing, iso, Queryable, queryPage } from '@bulwark/platform';
import type { Access } from '../domain/access';
import { accessLinks, toAccess } from './access-links';

/** A stored tool: settings without secrets, the api_token only in sealed form. */
export interface ToolRecord {
  id: string;
  name: string;
  description: string;
  typeId: number;
  version: string;
  settings: Record<string, unknown>;
  apiTokenSealed: string | null;
  access: Access;
  createdAt: string;
  updatedAt: string;
}

interface ToolRow {
  id: string;
  name: string;
  description: string;
  type_id: number;
  version: string;
  settings: Record<string, unknown>;
  api_token_sealed: string | null;
  access_type: string;
  created_at: Date;
  updated_at: Date;
}

export type ToolWrite = Omit<ToolRecord, 'id' | 'createdAt' | 'updatedAt'>;

export interface ToolQuery {
  page: number;
  limit: number;
  scope: string[] | null;
  usableIn?: string;
  version?: string;
  /** Tool types whose name matched search[type]. */
  typeIds?: number[];
  searchName?: string;
  searchUrl?: string;
  searchVersion?: string;
}

async function toRecords(db: Queryable, rows: ToolRow[]): Promise<ToolRecord[]> {
  const links = await accessLinks.of(
    db,
    'tool',
    rows.map((r) => r.id),
  );
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    description: r.description,
    typeId: r.type_id,
    version: r.version,
    settings: r.settings,
    apiTokenSealed: r.api_token_sealed,
    access: toAccess(r.access_type, links.get(r.id)),
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  }));
}

const columns = (w: ToolWrite) => ({
  name: w.name,
  description: w.description,
  type_id: w.typeId,
  version: w.version,
  settings: JSON.stringify(w.settings),
  api_token_sealed: w.apiTokenSealed,
  access_type: w.access.accessType,
});

export const toolStore = {
  async get(db: Queryable, id: string): Promise<ToolRecord | undefined> {
    const row = await db<ToolRow>('tools').where({ id }).first();
    return row ? (await toRecords(db, [row]))[0] : undefined;
  },

  async getMany(db: Queryable, ids: string[]): Promise<ToolRecord[]> {
    return ids.length ? toRecords(db, await db<ToolRow>('tools').whereIn('id', ids)) : [];
  },

  async list(db: Queryable, q: ToolQuery): Promise<{ items: ToolRecord[]; total: number }> {
    const base = db<ToolRow>('tools').where((w) => {
      if (q.version) w.where('version', q.version);
      if (q.typeIds) w.whereIn('type_id', q.typeIds);
      if (q.searchName) w.whereILike('name', containing(q.searchName));
      if (q.searchVersion) w.whereILike('version', containing(q.searchVersion));
      if (q.searchUrl) w.whereRaw(`settings->>'url' ilike ?`, [containing(q.searchUrl)]);
    });
    accessLinks.whereVisible(db, 'tool', base, q.scope);
    if (q.usableIn) accessLinks.whereUsableIn(db, 'tool', base, q.usableIn);
    const { rows, total } = await queryPage<ToolRow>(base, q, [
      { column: 'name' },
      { column: 'version' },
      { column: 'id' },
    ]);
    return { items: await toRecords(db, rows), total };
  },

  async insert(db: Queryable, id: string, w: ToolWrite): Promise<void> {
    await db('tools').insert({ id, ...columns(w) });
    await accessLinks.set(db, 'tool', id, w.access);
  },

  async update(db: Queryable, id: string, w: ToolWrite): Promise<void> {
    await db('tools')
      .where({ id })
      .update({ ...columns(w), updated_at: db.fn.now() });
    await accessLinks.set(db, 'tool', id, w.access);
  },

  async delete(db: Queryable, id: string): Promise<void> {
    await db('tools').where({ id }).delete();
  },
};
