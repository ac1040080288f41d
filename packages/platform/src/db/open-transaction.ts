import { AsyncLocalStorage } from 'node:async_hooks';
import type { Knex } from 'knex';

/** Set while a transaction's work runs, so code it reaches can tell it holds one open. */
const open = new AsyncLocalStorage<true>();

/**
 * Marks the work of every transaction `db` opens. A transaction should talk to its own database
 * only: a remote call inside it keeps rows locked and a connection held for as long as the peer takes,
 * and its answer cannot be rolled back. The gRPC client refuses to call out while the mark is set.
 */
export function markTransactions(db: Knex): void {
  const transaction = db.transaction.bind(db);
  type Work = (trx: Knex.Transaction) => Promise<unknown> | void;
  const marked = (work?: Work | Knex.TransactionConfig | null, config?: Knex.TransactionConfig) =>
    typeof work === 'function'
      ? transaction((trx) => open.run(true, () => work(trx)), config)
      : work
        ? transaction(work)
        : transaction(undefined, config);
  // knex defines it read-only (but configurable) on the instance.
  Object.defineProperty(db, 'transaction', { value: marked as Knex['transaction'] });
}

/** Runs `work` as a unit of its own: an event handled in-process is not part of the transaction that published it. */
export function outsideTransaction<T>(work: () => T): T {
  return open.exit(work);
}

/** A programming error when a transaction's work calls out: read what it needs before it opens. */
export function assertNoOpenTransaction(call: string): void {
  if (open.getStore())
    throw new Error(
      `${call} was called inside an open database transaction: read from other services before the transaction starts`,
    );
}
