import knex, { Knex } from 'knex';
import { present } from '../errors';
import { createLogger } from '../logging';
import { acquireEmbeddedPostgres } from './embedded-postgres';
import { platformMigrations } from './platform-migrations';
import { markTransactions } from './open-transaction';

export type Db = Knex;
export type Trx = Knex.Transaction;
/** Anything queries can run on: the database or an open transaction. */
export type Queryable = Knex | Knex.Transaction;

export interface Migration {
  name: string;
  up(db: Knex): Promise<void>;
  down?(db: Knex): Promise<void>;
}

export interface DatabaseOptions {
  /** Owning service; names the embedded data directory and the migration table. */
  service: string;
  /** A PostgreSQL URL; when absent the service's database is on the embedded server of `dataDir` (embedded-postgres.ts). */
  url?: string;
  /** Where the embedded server keeps its cluster (`<dataDir>/postgres`). */
  dataDir: string;
  migrations: Migration[];
  poolMax?: number;
}

/** Knex asks a migration source for a static list, so migrations ship inside the compiled service. */
class ListMigrationSource implements Knex.MigrationSource<Migration> {
  constructor(private readonly list: Migration[]) {}
  async getMigrations(): Promise<Migration[]> {
    return this.list;
  }
  getMigrationName(m: Migration): string {
    return m.name;
  }
  async getMigration(m: Migration): Promise<Knex.Migration> {
    return { up: (db) => m.up(db), down: (db) => (m.down ? m.down(db) : Promise.resolve()) };
  }
}

/** Creates the service's database on a real server when it does not exist yet (each service owns one). */
async function ensurePostgresDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.replace(/^\//, ''));
  if (!name || name === 'postgres') return;
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const db = knex({ client: 'pg', connection: admin.toString(), pool: { min: 0, max: 1 } });
  try {
    const found = await db.raw<{ rows: unknown[] }>('select 1 from pg_database where datname = ?', [name]);
    if (found.rows.length === 0) {
      await db.raw('create database ??', [name]).catch((err: { code?: string }) => {
        // Another replica created it between our check and our create.
        if (err.code !== '42P04' && err.code !== '23505') throw err;
      });
    }
  } finally {
    await db.destroy();
  }
}

/**
 * Any fixed number: advisory locks are per database, and each service owns its database. Replicas that
 * start together would otherwise race on knex's migration tables (its own lock fails instead of waiting).
 */
const MIGRATION_LOCK_KEY = 7_318_290_451;

/**
 * Runs `work` while holding a transaction-level advisory lock on its own connection, so one replica
 * migrates and the others wait, then find nothing left to apply. The lock ends with the transaction,
 * or with the connection if the process dies.
 */
async function withMigrationLock<T>(
  url: string,
  log: ReturnType<typeof createLogger>,
  work: () => Promise<T>,
): Promise<T> {
  const lockDb = knex({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
  try {
    return await lockDb.transaction(async (trx) => {
      const got = await trx.raw<{ rows: { ok: boolean }[] }>('select pg_try_advisory_xact_lock(?) as ok', [
        MIGRATION_LOCK_KEY,
      ]);
      if (!got.rows[0].ok) {
        log.info('waiting for another process to finish migrating');
        await trx.raw('select pg_advisory_xact_lock(?)', [MIGRATION_LOCK_KEY]);
      }
      return work();
    });
  } finally {
    await lockDb.destroy();
  }
}

export async function openDatabase(opts: DatabaseOptions): Promise<Db> {
  const log = createLogger(`${opts.service}.db`);
  const embedded = opts.url ? undefined : await acquireEmbeddedPostgres(opts.dataDir);
  const url = opts.url ?? present(embedded, 'the embedded PostgreSQL').url(`bulwark_${opts.service}`);
  let db: Db;
  try {
    await ensurePostgresDatabase(url);
    db = knex({ client: 'pg', connection: url, pool: { min: 0, max: opts.poolMax ?? 10 } });
    markTransactions(db);
    // knex declares `any`: it resolves to the batch number and the names of the migrations applied.
    const migrate = () =>
      db.migrate.latest({
        migrationSource: new ListMigrationSource([...platformMigrations, ...opts.migrations]),
        tableName: 'knex_migrations',
      }) as Promise<[number, string[]]>;
    const [, applied] = await withMigrationLock(url, log, migrate);
    log.info('database ready', { embedded: !opts.url, migrationsApplied: applied.length });
  } catch (err) {
    await embedded?.release();
    throw err;
  }
  if (embedded) {
    // The embedded server lives as long as a database on it is open: closing the last one stops it.
    const client = db.client as { destroy(callback?: (err?: unknown) => void): Promise<void> };
    const destroy = client.destroy.bind(client);
    let released = false;
    client.destroy = async (callback) => {
      await destroy();
      if (!released) {
        released = true;
        await embedded.release();
      }
      callback?.();
    };
  }
  return db;
}

/**
 * Makes the rest of `trx` run in one process at a time across every replica on this database (a
 * transaction-level advisory lock on `name`, released at commit): for start-up work such as seeding,
 * where two replicas starting together would both find nothing and both insert, and for a count
 * checked against a limit before an insert, where two requests at once would both see room.
 */
export async function serializeAcrossReplicas(trx: Trx, name: string): Promise<void> {
  await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [name]);
}

export async function pingDatabase(db: Db): Promise<void> {
  await db.raw('select 1');
}
