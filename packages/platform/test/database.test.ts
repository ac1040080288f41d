import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { enqueueEvents, InProcessBus, Migration, openDatabase, OutboxRelay, pgArray, unnestRows } from '@bulwark/platform';
import { DATABASE_BACKENDS, TestDatabase } from '@bulwark/testkit';

for (const backend of DATABASE_BACKENDS) {
  describe(`platform tables on ${backend.name}`, function () {
    let t: TestDatabase;
    before(async function () {
      t = await backend.open(this, 'platform', []);
    });
    after(async () => t?.close());

    it('runs the platform migrations once (a second open applies nothing)', async () => {
      const rows = await t.db('knex_migrations').select('name');
      expect(rows.map((r: { name: string }) => r.name)).to.deep.equal(['0000_platform_outbox_inbox']);
    });

    it('lets one relay at a time hold the outbox lease, and hands it over when released', async () => {
      await t.db.transaction((trx) => enqueueEvents(trx, [{ topic: 'nowhere', type: 'x', key: 'k', payload: { a: 1 } }]));
      const bus = new InProcessBus();
      await bus.start();
      const first = new OutboxRelay(t.db, bus, { service: 'platform', leaseMs: 60000 });
      const second = new OutboxRelay(t.db, bus, { service: 'platform', leaseMs: 60000 });
      expect(await first.publishBatch()).to.equal(1);
      await t.db.transaction((trx) => enqueueEvents(trx, [{ topic: 'nowhere', type: 'x', key: 'k', payload: { a: 2 } }]));
      expect(await second.publishBatch()).to.equal(0);
      // Stopping flushes what is pending (the second event) and releases the lease.
      first.start();
      await first.stop();
      const flushed = await t.db('bulwark_outbox').orderBy('seq', 'desc').first();
      expect(flushed.payload).to.deep.equal({ a: 2 });
      expect(flushed.published_at).to.be.instanceOf(Date);
      await t.db.transaction((trx) => enqueueEvents(trx, [{ topic: 'nowhere', type: 'x', key: 'k', payload: { a: 3 } }]));
      expect(await second.publishBatch()).to.equal(1);
    });

    it('carries rows as typed arrays (unnestRows) without changing a value', async () => {
      const awkward = ['', 'NULL', 'null', 'a,b', '{x}', 'say "hi"', 'back\\slash\\', 'tab\tnew\nline', ' padded ', 'ünïcödé 🚀', "it's"];
      const rows = awkward.map((text, i) => ({
        id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
        text,
        maybe: i % 3 === 0 ? null : text,
        n: i - 5,
        score: i % 2 ? i / 3 : null,
        flag: i % 2 === 0,
        at: new Date(Date.UTC(2026, 0, 1 + i)).toISOString(),
        tags: i % 4 === 0 ? [] : [text, null, 'x'],
        cwes: i % 5 === 0 ? [] : [79, i],
        doc: i % 3 === 0 ? null : { text, list: [1, 'two', null], nested: { ok: true } },
        // The same in every row: these travel once, as scalars.
        batch: 'batch "1"',
        none: null,
      }));
      const { sql, bindings } = unnestRows(rows, { id: 'uuid', text: 'text', maybe: 'text', n: 'int', score: 'float8', flag: 'boolean', at: 'timestamptz', tags: 'text[]', cwes: 'int[]', doc: 'jsonb', batch: 'text', none: 'int' });
      const back = (await t.db.raw(`select id, text, maybe, n, score, flag, at, tags, cwes, doc, batch, none from ${sql} order by n`, bindings)).rows;
      expect(back.map((r: Record<string, unknown>) => ({ ...r, at: new Date(r.at as string).toISOString() }))).to.deep.equal(rows);
      const one = unnestRows([{ a: 1, b: 'x' }, { a: 1, b: 'x' }], { a: 'int', b: 'text' });
      expect((await t.db.raw(`select a, b from ${one.sql}`, one.bindings)).rows).to.deep.equal([{ a: 1, b: 'x' }, { a: 1, b: 'x' }]);
      expect((await t.db.raw('select cardinality(?::text[]) as n', [pgArray(awkward)])).rows[0].n).to.equal(awkward.length);
      expect((await t.db.raw(`select count(*)::int as n from ${unnestRows([], { id: 'uuid' }).sql}`, unnestRows([], { id: 'uuid' }).bindings)).rows[0].n).to.equal(0);
    });
  });
}

describe('embedded databases of one data directory', () => {
  const counter: Migration[] = [{ name: '0001_counter', up: (db) => db.schema.createTable('counter', (t) => t.integer('n').notNullable()) }];
  let dataDir: string;
  before(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'embedded-clusters-'));
  });
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('gives each service a cluster of its own, and keeps what was committed across a restart', async () => {
    const first = await openDatabase({ service: 'first', dataDir, migrations: counter });
    const second = await openDatabase({ service: 'second', dataDir, migrations: counter });
    try {
      await first('counter').insert({ n: 1 });
      expect(await second('counter').select('n')).to.deep.equal([]);
    } finally {
      await first.destroy();
      await second.destroy();
    }
    expect(fs.readdirSync(dataDir).sort()).to.deep.equal(['first', 'second']);
    const again = await openDatabase({ service: 'first', dataDir, migrations: counter });
    try {
      expect(await again('counter').select('n')).to.deep.equal([{ n: 1 }]);
      expect((await again('knex_migrations').select('name')).map((r: { name: string }) => r.name)).to.deep.equal(['0000_platform_outbox_inbox', '0001_counter']);
    } finally {
      await again.destroy();
    }
  });
});
