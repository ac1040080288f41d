import { Trx } from '@bulwark/platform';
import { CATALOG_EVENTS, EventPayload, writeEvent } from '@bulwark/contracts';

/** The outcome of one id of a bulk request. */
export type BulkStatus = {
  id: string;
  status: 'deleted' | 'restored' | 'archived' | 'unarchived' | 'not_found' | 'conflict' | 'forbidden' | 'unchanged';
  message?: string;
};

type CatalogEventType = (typeof CATALOG_EVENTS)[keyof typeof CATALOG_EVENTS];

/** Enqueues one event of the catalog's topic in the transaction's outbox, with its type's payload. */
export function catalogEvent<T extends CatalogEventType>(trx: Trx, type: T, key: string, payload: EventPayload<T>) {
  return writeEvent(trx, type, key, payload);
}
