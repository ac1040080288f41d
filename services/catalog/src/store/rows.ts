import type { Knex } from 'knex';

/** How many rows the query matches; the query itself is left as it was, typed rows and all. */
export async function countOf<TRecord extends object, TResult>(
  query: Knex.QueryBuilder<TRecord, TResult>,
): Promise<number> {
  const [{ count }] = await query.clone().count<{ count: string }[]>({ count: '*' });
  return Number(count);
}
