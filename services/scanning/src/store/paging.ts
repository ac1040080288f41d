import type { Knex } from 'knex';

/**
 * One page of a filtered list, newest first (ties by id, so pages never overlap), with the count of
 * every row the filter matches.
 */
export async function newestFirstPage<Row extends object, T>(
  base: Knex.QueryBuilder,
  q: { page: number; limit: number },
  toRecord: (row: Row) => T,
): Promise<{ items: T[]; total: number }> {
  const [{ count }] = await base.clone().count<{ count: string }[]>({ count: '*' });
  const rows = (await base
    .clone()
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .limit(q.limit)
    .offset((q.page - 1) * q.limit)) as Row[];
  return { items: rows.map(toRecord), total: Number(count) };
}
