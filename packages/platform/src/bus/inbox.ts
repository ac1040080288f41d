import type { Db, Trx } from '../db/database';
import type { EventEnvelope, EventHandler } from './types';

/** A consumer's effect that needs nothing from other services: its writes, in the inbox transaction. */
export type InboxWrite = (event: EventEnvelope, trx: Trx) => Promise<void>;

/**
 * A consumer's effect in two phases, so its transaction talks to its own database only: `read` gets
 * what the writes need from other services before the transaction opens (the gRPC client refuses a
 * call inside one), `write` runs in the transaction, `release` frees what `read` holds (such as a
 * spooled file) once the transaction has ended, committed or not.
 */
export interface InboxEffect<R> {
  read(event: EventEnvelope): Promise<R>;
  write(event: EventEnvelope, trx: Trx, read: R): Promise<void>;
  release?(read: R): Promise<void>;
}

const isHandled = async (db: Db, consumer: string, id: string) =>
  (await db('bulwark_inbox').where({ consumer, message_id: id }).first()) !== undefined;

/**
 * Makes a consumer idempotent: the event id is recorded in the same transaction as the effect, so a
 * redelivered event finds its id and changes nothing. A redelivery already recorded skips the reads too.
 */
export function handleOnce<R>(db: Db, consumer: string, effect: InboxEffect<R> | InboxWrite): EventHandler {
  if (typeof effect === 'function')
    return handleOnce<undefined>(db, consumer, {
      read: async () => undefined,
      write: (event, trx) => effect(event, trx),
    });
  return async (event) => {
    if (await isHandled(db, consumer, event.id)) return;
    const read = await effect.read(event);
    try {
      await db.transaction(async (trx) => {
        const inserted = await trx('bulwark_inbox')
          .insert({ consumer, message_id: event.id })
          .onConflict(['consumer', 'message_id'])
          .ignore()
          .returning('message_id');
        if (inserted.length === 0) return;
        await effect.write(event, trx, read);
      });
    } finally {
      await effect.release?.(read);
    }
  };
}
