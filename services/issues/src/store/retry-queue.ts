import type { Queryable } from '@bulwark/platform';

/**
 * A table of work delivered outside any transaction and retried with backoff (an outbox): rows with
 * `id`, `attempts`, `next_at`, `done_at`, `outcome` and `last_error`. Due rows are claimed under a
 * lease, so replicas share them and a process that dies leaves its rows to the next after the lease.
 */
export function retryQueue<Row, Item>(
  table: 'tracker_pushes' | 'pull_request_decorations',
  returning: string,
  toItem: (row: Row) => Item,
) {
  return {
    /** Takes due rows for `leaseSeconds` (another process skips them meanwhile), oldest first. */
    claim: async (db: Queryable, batch: number, leaseSeconds: number): Promise<Item[]> => {
      const { rows } = await db.raw<{ rows: Row[] }>(
        `update ${table} set next_at = now() + make_interval(secs => ?), attempts = attempts + 1
         where id in (select id from ${table} where done_at is null and next_at <= now() order by id limit ? for update skip locked)
         returning ${returning}`,
        [leaseSeconds, batch],
      );
      return rows.map(toItem);
    },

    done: async (db: Queryable, id: string, outcome: string): Promise<void> => {
      await db(table).where({ id }).update({ done_at: db.fn.now(), outcome, last_error: null });
    },

    /** Tried again in `retryInSeconds`, or given up (null). */
    failed: async (db: Queryable, id: string, error: string, retryInSeconds: number | null): Promise<void> => {
      await db(table)
        .where({ id })
        .update(
          retryInSeconds === null
            ? { done_at: db.fn.now(), outcome: 'gave_up', last_error: error }
            : { next_at: db.raw('now() + make_interval(secs => ?)', [retryInSeconds]), last_error: error },
        );
    },
  };
}
