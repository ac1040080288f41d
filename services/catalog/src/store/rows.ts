import { Queryable } from '@bulwark/platform';

export type Builder = ReturnType<Queryable['queryBuilder']>;

export async function countOf(query: Builder): Promise<number> {
  const [{ count }] = await query.clone().count<{ count: string }[]>({ count: '*' });
  return Number(count);
}
