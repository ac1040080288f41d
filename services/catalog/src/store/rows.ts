import { escapeLike, Queryable } from '@bulwark/platform';

export type Builder = ReturnType<Queryable['queryBuilder']>;

/** A substring search pattern; LIKE wildcards in the text are literal. */
export const like = (text: string) => `%${escapeLike(text)}%`;

export async function countOf(query: Builder): Promise<number> {
  const [{ count }] = await query.clone().count<{ count: string }[]>({ count: '*' });
  return Number(count);
}
