import { queryPage } from '@bulwark/platform';
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
  const { rows, total } = await queryPage<Row>(base, q, [{ column: 'created_at', order: 'desc' }, { column: 'id' }]);
  return { items: rows.map(toRecord), total };
}
