import { enqueueEvents, Trx } from '@bulwark/platform';
import { TOPICS } from '@bulwark/contracts';

/** The outcome of one id of a bulk request. */
export type BulkStatus = {
  id: string;
  status: 'deleted' | 'restored' | 'archived' | 'unarchived' | 'not_found' | 'conflict' | 'unchanged';
  message?: string;
};

/** Enqueues one event of the catalog's topic in the transaction's outbox. */
export function catalogEvent(trx: Trx, type: string, key: string, payload: Record<string, unknown>) {
  return enqueueEvents(trx, [{ topic: TOPICS.catalog, type, key, payload }]);
}
