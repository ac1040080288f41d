import type { Db } from '../db/database';
import {
  dbPoolConnections,
  dbPoolMax,
  dbPoolPendingAcquires,
  onScrape,
  outboxBacklog,
  outboxOldestAge,
} from './metrics';

/** What knex's pool (tarn) tells about itself (the embedded database's pool holds one connection). */
interface PoolNumbers {
  max: number;
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
}

function poolOf(db: Db): PoolNumbers | undefined {
  const pool = (db.client as { pool?: Partial<PoolNumbers> }).pool;
  return pool && typeof pool.numUsed === 'function' ? (pool as PoolNumbers) : undefined;
}

/**
 * Reads a service's outbox backlog and database pool at each scrape: one indexed query on the
 * pending outbox rows, nothing while nobody scrapes. Returns the function that stops it.
 */
export function observeServiceStores(service: string, db: Db): () => void {
  const remove = onScrape(async () => {
    const pool = poolOf(db);
    if (pool) {
      dbPoolConnections.set({ service, state: 'used' }, pool.numUsed());
      dbPoolConnections.set({ service, state: 'free' }, pool.numFree());
      dbPoolPendingAcquires.set({ service }, pool.numPendingAcquires());
      dbPoolMax.set({ service }, pool.max);
    }
    const row = (await db('bulwark_outbox')
      .whereNull('published_at')
      .select(
        db.raw('count(*)::int as backlog'),
        db.raw('extract(epoch from now() - min(created_at))::float8 as oldest'),
      )
      .first()) as { backlog: number; oldest: number | null };
    outboxBacklog.set({ service }, row.backlog);
    outboxOldestAge.set({ service }, row.oldest ?? 0);
  });
  return () => {
    remove();
    for (const m of [outboxBacklog, outboxOldestAge, dbPoolPendingAcquires, dbPoolMax]) m.remove({ service });
    for (const state of ['used', 'free']) dbPoolConnections.remove({ service, state });
  };
}
