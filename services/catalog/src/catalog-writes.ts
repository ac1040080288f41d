import { enqueueEvents, Trx } from '@bulwark/platform';
import { TOPICS } from '@bulwark/contracts';

/** The outcome of one id of a bulk request. */
export type BulkStatus = {
  id: string;
  status: 'deleted' | 'restored' | 'archived' | 'unarchived' | 'not_found' | 'conflict' | 'unchanged';
  message?: string;
};

/** A concurrent insert of the same unique key loses at the database: it answers the same 409 as the check before it. */
export async function uniquely<T>(work: Promise<T>, onTaken: () => Error): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if ((err as { code?: string }).code === '23505') throw onTaken();
    throw err;
  }
}

/** Enqueues one event of the catalog's topic in the transaction's outbox. */
export function catalogEvent(trx: Trx, type: string, key: string, payload: Record<string, unknown>) {
  return enqueueEvents(trx, [{ topic: TOPICS.catalog, type, key, payload }]);
}
