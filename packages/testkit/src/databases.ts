import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Db, Migration, openDatabase, ServiceData } from '@bulwark/platform';
import { createTestDatabase, requireInfra } from './infra';

export interface TestDatabase {
  db: Db;
  close(): Promise<void>;
}

/** The two backends every store runs on: the same migrations and queries on both. */
export const DATABASE_BACKENDS: {
  name: string;
  open(ctx: Mocha.Context, service: string, migrations: Migration[]): Promise<TestDatabase>;
}[] = [
  {
    name: 'embedded PostgreSQL (the bundled server of TARGET=all)',
    async open(_ctx, service, migrations) {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'store-test-'));
      const db = await openDatabase({ service, dataDir, migrations });
      return {
        db,
        async close() {
          await db.destroy();
          fs.rmSync(dataDir, { recursive: true, force: true });
        },
      };
    },
  },
  {
    name: 'PostgreSQL server',
    async open(ctx, service, migrations) {
      const i = requireInfra(ctx, 'postgres');
      const target = await createTestDatabase(i.pgUrl, `store_${service}`);
      const db = await openDatabase({ service, url: target.url, dataDir: os.tmpdir(), migrations });
      return {
        db,
        async close() {
          await db.destroy();
          await target.drop();
        },
      };
    },
  },
];

/** A service's data port over a test database: it commits as the service would, with no outbox relay to wake. */
export function testServiceData(db: Db): ServiceData {
  return { db, transaction: (work) => db.transaction(work) };
}
