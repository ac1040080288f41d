import { AUTH_EPOCH_KEY, Cache, ServiceData, Trx } from '@bulwark/platform';
import { EventPayload, IDENTITY_EVENTS, writeEvent } from '@bulwark/contracts';

/**
 * One way to change who may do what: the work commits in one transaction with its outbox events,
 * then the auth epoch moves so that cached authentications are re-checked on every gateway (after
 * the commit: a re-check must see the new state).
 */
export class RightsChanges {
  constructor(
    private readonly data: ServiceData,
    private readonly cache: Cache,
  ) {}

  async commit<T>(work: (trx: Trx) => Promise<T>): Promise<T> {
    const result = await this.data.transaction(work);
    await this.cache.incr(AUTH_EPOCH_KEY);
    return result;
  }
}

type IdentityEventType = (typeof IDENTITY_EVENTS)[keyof typeof IDENTITY_EVENTS];

/** Enqueues one event of identity's topic in the transaction's outbox, with its type's payload. */
export function identityEvent<T extends IdentityEventType>(trx: Trx, type: T, key: string, payload: EventPayload<T>) {
  return writeEvent(trx, type, key, payload);
}

/** The outcome of one id of a bulk request. */
export type BulkStatus = {
  id: string;
  status: 'deleted' | 'revoked' | 'restored' | 'not_found' | 'conflict' | 'forbidden' | 'unchanged';
  message?: string;
};
