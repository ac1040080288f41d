import { queryPage } from '@bulwark/platform';
import type { Knex } from 'knex';

/** One page of a list in name order (then id), with the total the query matches: gates, policies, SLA policies. */
export async function pageByName<R, T>(
  base: Knex.QueryBuilder,
  q: { page: number; limit: number },
  toRecord: (row: R) => T,
): Promise<{ items: T[]; total: number }> {
  const { rows, total } = await queryPage<R>(base, q, [{ column: 'name' }, { column: 'id' }]);
  return { items: rows.map(toRecord), total };
}
