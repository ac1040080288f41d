import { randomUUID } from 'node:crypto';
import { iso, isUuid, Queryable, serializeAcrossReplicas, Trx } from '@bulwark/platform';

interface SavedViewRow {
  id: string;
  user_id: string;
  name: string;
  query: string;
  created_at: Date;
}
export interface SavedViewRecord {
  id: string;
  name: string;
  query: string;
  createdAt: string;
}
const toRecord = (r: SavedViewRow): SavedViewRecord => ({
  id: r.id,
  name: r.name,
  query: r.query,
  createdAt: iso(r.created_at),
});

/** Each user's saved views of the issue list; every statement is limited to the one user's rows. */
export const savedViewStore = {
  async list(db: Queryable, userId: string): Promise<SavedViewRecord[]> {
    const rows = await db<SavedViewRow>('issue_saved_views').where('user_id', userId).orderBy('name');
    return rows.map(toRecord);
  },

  /**
   * Counts the user's views under a transaction-level lock of that user's views, so two saves at
   * once cannot both see room for one more (call it inside the transaction that adds).
   */
  async lockAndCount(trx: Trx, userId: string): Promise<number> {
    await serializeAcrossReplicas(trx, `issue_saved_views:${userId}`);
    const row = await trx('issue_saved_views').where('user_id', userId).count({ n: '*' }).first<{ n: string }>();
    return Number(row?.n ?? 0);
  },

  /** Adds a view; undefined when the user already has one of that name (the unique index decides). */
  async add(db: Queryable, userId: string, name: string, query: string): Promise<SavedViewRecord | undefined> {
    const [row] = await db<SavedViewRow>('issue_saved_views')
      .insert({ id: randomUUID(), user_id: userId, name, query, created_at: new Date() })
      .onConflict(['user_id', 'name'])
      .ignore()
      .returning('*');
    return row ? toRecord(row) : undefined;
  },

  async delete(db: Queryable, userId: string, ids: string[]): Promise<string[]> {
    const uuids = ids.filter(isUuid);
    if (uuids.length === 0) return [];
    const rows: { id: string }[] = await db('issue_saved_views')
      .where('user_id', userId)
      .whereIn('id', uuids)
      .delete()
      .returning('id');
    return rows.map((r) => r.id);
  },
};
