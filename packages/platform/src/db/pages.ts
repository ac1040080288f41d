import type { Knex } from 'knex';

/** Which page of a list: 1-based, `limit` rows a page. */
export interface PageRequest {
  page: number;
  limit: number;
}

/**
 * The ORDER BY of a page. It ends in a column unique among the rows (an id), so that consecutive
 * pages neither repeat nor skip a row that ties on the columns before it.
 */
export type PageOrder = readonly { column: string | Knex.Raw; order?: 'asc' | 'desc' }[];

/** How many rows the query matches; the query itself is left as it was (its columns and order too). */
export async function countOf(query: Knex.QueryBuilder): Promise<number> {
  const [{ n }] = await query.clone().clearSelect().clearOrder().count<{ n: string | number }[]>({ n: '*' });
  return Number(n);
}

/** One page of the rows `base` matches, in `order`, with the count of every row it matches. */
export async function queryPage<Row>(
  base: Knex.QueryBuilder,
  q: PageRequest,
  order: PageOrder,
): Promise<{ rows: Row[]; total: number }> {
  const total = await countOf(base);
  const rows = (await base
    .clone()
    .orderBy([...order])
    .offset((q.page - 1) * q.limit)
    .limit(q.limit)) as Row[];
  return { rows, total };
}
