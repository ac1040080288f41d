import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import knex, { Knex } from 'knex';
import ClientPgLite from 'knex-pglite';
import { createLogger } from '../logging';
import { platformMigrations } from './platform-migrations';

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
  /** A PostgreSQL URL; when absent the service runs on embedded PostgreSQL (PGlite). */
  url?: string;
  /** Where embedded databases live (one folder per service). */
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
    const found = await db.raw('select 1 from pg_database where datname = ?', [name]);
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
async function withMigrationLock<T>(url: string, log: ReturnType<typeof createLogger>, work: () => Promise<T>): Promise<T> {
  const lockDb = knex({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
  try {
    return await lockDb.transaction(async (trx) => {
      const got = await trx.raw('select pg_try_advisory_xact_lock(?) as ok', [MIGRATION_LOCK_KEY]);
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

let clusterTemplate: Promise<string> | undefined;

/**
 * An empty cluster made once per process. initdb is most of an embedded database's first start (in
 * WebAssembly, with a PGlite instance of its own: seconds each on a small machine), and every
 * service's cluster starts out identical, so each is a copy of this one. It lives in the
 * temporary directory and goes when the process exits; a killed process leaves one 40 MB folder.
 */
function emptyCluster(): Promise<string> {
  clusterTemplate ??= (async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-pgdata-template-'));
    process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
    const pg = new PGlite(`file://${dir}`);
    await pg.waitReady;
    // A clean shutdown checkpoints, so the files alone are a consistent cluster to copy.
    await pg.close();
    return dir;
  })().catch((err: unknown) => {
    clusterTemplate = undefined;
    throw err;
  });
  return clusterTemplate;
}

/**
 * Puts a copy of the empty cluster at `dir` unless a cluster (or anything else) is already there.
 * The copy is made beside it and renamed into place, so a crash never leaves half a cluster where
 * PGlite would resume.
 */
async function provisionCluster(dir: string): Promise<void> {
  if (fs.existsSync(dir) && fs.readdirSync(dir).length > 0) return;
  const template = await emptyCluster();
  const partial = `${dir}.partial`;
  fs.rmSync(partial, { recursive: true, force: true });
  fs.cpSync(template, partial, { recursive: true });
  fs.chmodSync(partial, 0o700);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.renameSync(partial, dir);
}

export async function openDatabase(opts: DatabaseOptions): Promise<Db> {
  const log = createLogger(`${opts.service}.db`);
  let db: Db;
  if (opts.url) {
    await ensurePostgresDatabase(opts.url);
    db = knex({ client: 'pg', connection: opts.url, pool: { min: 0, max: opts.poolMax ?? 10 } });
  } else {
    // One PGlite per service rather than one shared: PGlite is a single session, and some services'
    // transactions wait on a call to another service, which on a shared session would wait for them.
    const dir = path.resolve(opts.dataDir, opts.service, 'pgdata');
    fs.mkdirSync(path.dirname(dir), { recursive: true, mode: 0o700 });
    await provisionCluster(dir);
    db = knex({ client: ClientPgLite as unknown as typeof knex.Client, connection: { connectionString: `file://${dir}` } as Knex.StaticConnectionConfig });
  }
  const migrate = () =>
    db.migrate.latest({
      migrationSource: new ListMigrationSource([...platformMigrations, ...opts.migrations]),
      tableName: 'knex_migrations',
    });
  // An embedded database belongs to one process; a server's may be opened by several replicas at once.
  const [, applied] = opts.url ? await withMigrationLock(opts.url, log, migrate) : await migrate();
  log.info('database ready', { embedded: !opts.url, migrationsApplied: applied.length });
  return db;
}

/**
 * Makes the rest of `trx` run in one process at a time across every replica on this database (a
 * transaction-level advisory lock, released at commit): for start-up work such as seeding, where
 * two replicas starting together would both find nothing and both insert.
 */
export async function serializeAcrossReplicas(trx: Trx, name: string): Promise<void> {
  await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [name]);
}

export async function pingDatabase(db: Db): Promise<void> {
  await db.raw('select 1');
}
