import fs from 'node:fs';
import path from 'node:path';
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

export async function openDatabase(opts: DatabaseOptions): Promise<Db> {
  const log = createLogger(`${opts.service}.db`);
  let db: Db;
  if (opts.url) {
    await ensurePostgresDatabase(opts.url);
    db = knex({ client: 'pg', connection: opts.url, pool: { min: 0, max: opts.poolMax ?? 10 } });
  } else {
    const dir = path.resolve(opts.dataDir, opts.service, 'pgdata');
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    db = knex({ client: ClientPgLite as unknown as typeof knex.Client, connection: { connectionString: `file://${dir}` } as Knex.StaticConnectionConfig });
  }
  const [, applied] = await db.migrate.latest({
    migrationSource: new ListMigrationSource([...platformMigrations, ...opts.migrations]),
    tableName: 'knex_migrations',
  });
  log.info('database ready', { embedded: !opts.url, migrationsApplied: applied.length });
  return db;
}

export async function pingDatabase(db: Db): Promise<void> {
  await db.raw('select 1');
}
