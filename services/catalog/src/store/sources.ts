import { containing, iso, Queryable, queryPage } from '@bulwark/platform';
import type { Access } from '../domain/access';
import type { SourceAuthMethod } from '@bulwark/contracts';
import { accessLinks, toAccess } from './access-links';

/** A stored source: secrets only in sealed form. */
export interface SourceRecord {
  id: string;
  name: string;
  description: string;
  sourceTypeId: number;
  url: string;
  branchName: string | null;
  authMethod: SourceAuthMethod;
  login: string | null;
  passwordSealed: string | null;
  sshKeySealed: string | null;
  access: Access;
  createdAt: string;
  updatedAt: string;
}

interface SourceRow {
  id: string;
  name: string;
  description: string;
  source_type_id: number;
  url: string;
  branch_name: string | null;
  auth_method: SourceAuthMethod;
  login: string | null;
  password_sealed: string | null;
  ssh_key_sealed: string | null;
  access_type: string;
  created_at: Date;
  updated_at: Date;
}

export type SourceWrite = Omit<SourceRecord, 'id' | 'createdAt' | 'updatedAt'>;

export interface SourceQuery {
  page: number;
  limit: number;
  scope: string[] | null;
  usableIn?: string;
  searchName?: string;
  searchSource?: string;
}

async function toRecords(db: Queryable, rows: SourceRow[]): Promise<SourceRecord[]> {
  const links = await accessLinks.of(
    db,
    'source',
    rows.map((r) => r.id),
  );
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    description: r.description,
    sourceTypeId: r.source_type_id,
    url: r.url,
    branchName: r.branch_name,
    authMethod: r.auth_method,
    login: r.login,
    passwordSealed: r.password_sealed,
    sshKeySealed: r.ssh_key_sealed,
    access: toAccess(r.access_type, links.get(r.id)),
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  }));
}

const columns = (w: SourceWrite) => ({
  name: w.name,
  description: w.description,
  source_type_id: w.sourceTypeId,
  url: w.url,
  branch_name: w.branchName,
  auth_method: w.authMethod,
  login: w.login,
  password_sealed: w.passwordSealed,
  ssh_key_sealed: w.sshKeySealed,
  access_type: w.access.accessType,
});

export const sourceStore = {
  async get(db: Queryable, id: string): Promise<SourceRecord | undefined> {
    const row = await db<SourceRow>('sources').where({ id }).first();
    return row ? (await toRecords(db, [row]))[0] : undefined;
  },

  async getMany(db: Queryable, ids: string[]): Promise<SourceRecord[]> {
    return ids.length ? toRecords(db, await db<SourceRow>('sources').whereIn('id', ids)) : [];
  },

  async list(db: Queryable, q: SourceQuery): Promise<{ items: SourceRecord[]; total: number }> {
    const base = db<SourceRow>('sources').where((w) => {
      if (q.searchName) w.whereILike('name', containing(q.searchName));
      if (q.searchSource) w.whereILike('url', containing(q.searchSource));
    });
    accessLinks.whereVisible(db, 'source', base, q.scope);
    if (q.usableIn) accessLinks.whereUsableIn(db, 'source', base, q.usableIn);
    const { rows, total } = await queryPage<SourceRow>(base, q, [{ column: 'name' }, { column: 'id' }]);
    return { items: await toRecords(db, rows), total };
  },

  async insert(db: Queryable, id: string, w: SourceWrite): Promise<void> {
    await db('sources').insert({ id, ...columns(w) });
    await accessLinks.set(db, 'source', id, w.access);
  },

  async update(db: Queryable, id: string, w: SourceWrite): Promise<void> {
    await db('sources')
      .where({ id })
      .update({ ...columns(w), updated_at: db.fn.now() });
    await accessLinks.set(db, 'source', id, w.access);
  },

  async delete(db: Queryable, id: string): Promise<void> {
    await db('sources').where({ id }).delete();
  },
};
