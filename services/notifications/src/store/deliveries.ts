import { randomUUID } from 'node:crypto';
import { Queryable, unnestRows } from '@bulwark/platform';

/** A delivery taken to be sent: its attempts count the one being made. */
export interface DueDelivery {
  id: string;
  notifierId: string;
  eventId: string;
  attempts: number;
}

interface DueRow {
  id: string;
  notifier_id: string;
  event_id: string;
  attempts: number;
}

export const deliveryStore = {
  /** One pending delivery per notifier for an event (none twice, whatever redelivers the event). */
  async enqueue(db: Queryable, eventId: string, notifierIds: string[]): Promise<void> {
    if (notifierIds.length === 0) return;
    const v = unnestRows(
      notifierIds.map((notifier_id) => ({ id: randomUUID(), notifier_id, event_id: eventId })),
      { id: 'uuid', notifier_id: 'uuid', event_id: 'uuid' },
    );
    await db.raw(
      `insert into deliveries (id, notifier_id, event_id, state, next_attempt_at) select id, notifier_id, event_id, 'pending', now() from ${v.sql}
       on conflict (notifier_id, event_id) do nothing`,
      v.bindings,
    );
  },

  /**
   * Takes due deliveries, oldest first, and holds them for `holdSeconds` (a process that dies
   * mid-way leaves them to be taken again then). SKIP LOCKED: processes share the work.
   */
  async claim(db: Queryable, limit: number, holdSeconds: number): Promise<DueDelivery[]> {
    const { rows } = await db.raw<{ rows: DueRow[] }>(
      `update deliveries d set next_attempt_at = now() + make_interval(secs => ?), attempts = d.attempts + 1
         where d.id in (select id from deliveries where state = 'pending' and next_attempt_at <= now() order by next_attempt_at for update skip locked limit ?)
         returning d.id, d.notifier_id, d.event_id, d.attempts`,
      [holdSeconds, limit],
    );
    return rows.map((r) => ({ id: r.id, notifierId: r.notifier_id, eventId: r.event_id, attempts: r.attempts }));
  },

  async delivered(db: Queryable, id: string, status: number): Promise<void> {
    await db('deliveries').where({ id }).update({ state: 'delivered', last_status: status, delivered_at: db.fn.now() });
  },

  /** A failed attempt: tried again after `retryInSeconds`, or given up (null). */
  async attemptFailed(
    db: Queryable,
    id: string,
    status: number | null,
    error: string,
    retryInSeconds: number | null,
  ): Promise<void> {
    await db('deliveries')
      .where({ id })
      .update({
        last_status: status,
        last_error: error.slice(0, 1000),
        ...(retryInSeconds === null
          ? { state: 'failed' }
          : { next_attempt_at: db.raw('now() + make_interval(secs => ?)', [retryInSeconds]) }),
      });
  },

  /** Puts a delivery back without counting the attempt (the notifier's rate limit was reached). */
  async postpone(db: Queryable, id: string, ms: number): Promise<void> {
    await db('deliveries')
      .where({ id })
      .update({
        attempts: db.raw('attempts - 1'),
        next_attempt_at: db.raw('now() + make_interval(secs => ?)', [ms / 1000]),
      });
  },
};
