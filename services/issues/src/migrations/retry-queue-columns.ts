import type { Knex } from 'knex';

/** The columns of a retry queue (store/retry-queue.ts): attempts, when next due, when done and how, the last error. */
export function retryQueueColumns(t: Knex.CreateTableBuilder, db: Knex): void {
  t.integer('attempts').notNullable().defaultTo(0);
  t.timestamp('next_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
  t.timestamp('done_at', { useTz: true });
  t.text('outcome');
  t.text('last_error');
  t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
}
