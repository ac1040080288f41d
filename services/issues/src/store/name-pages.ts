import type { Knex } from 'knex';

/** One page of a list in name order (then id), with the total the query matches: gates, policies, SLA policies. */
export async function pageByName<R, T>(
  base: Knex.QueryBuilder,
  q: { page: number; limit: number },
  toRecord: (row: R) => T,
): Promise<{ items: T[]; total: number }> {
  const [{ n }] = await base.clone().count<{ n: string | number }[]>({ n: '*' });
  const rows = (await base
    .orderBy('name')
    .orderBy('id')
    .offset((q.page - 1) * q.limit)
    .limit(q.limit)) as R[];
  return { items: rows.map(toRecord), total: Number(n) };
}
