import type { Db, Trx } from '../db/database';
import type { EventEnvelope, EventHandler } from './types';

/**
 * Makes a consumer idempotent: the event id is recorded in the same transaction as the effect, so a
 * redelivered event finds its id and changes nothing.
 */
export function handleOnce(
  db: Db,
  consumer: string,
  effect: (event: EventEnvelope, trx: Trx) => Promise<void>,
): EventHandler {
  return async (event) => {
    await db.transaction(async (trx) => {
      const inserted = await trx('bulwark_inbox')
        .insert({ consumer, message_id: event.id })
        .onConflict(['consumer', 'message_id'])
        .ignore()
        .returning('message_id');
      if (inserted.length === 0) return;
      await effect(event, trx);
    });
  };
}
