import type { Db, Trx } from './db/database';

/**
 * What an application class takes of its service's database instead of the whole `ServiceHost`, so
 * that it names what it touches and a test can hand it a database of its own. `transaction` is the one
 * way a service commits: after the commit it wakes the outbox relay, so the events the work enqueued
 * go out at once rather than at the relay's next poll. A class that never commits takes a `Db`.
 */
export interface ServiceData {
  /** For reads, and writes of one statement that enqueue no event. */
  readonly db: Db;
  /** Commits `work` and wakes the outbox relay for the events it enqueued. */
  transaction<T>(work: (trx: Trx) => Promise<T>): Promise<T>;
}
