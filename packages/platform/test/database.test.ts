import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import {
  countOf,
  enqueueEvents,
  InProcessBus,
  Migration,
  openDatabase,
  OutboxRelay,
  pgArray,
  queryPage,
  unnestRows,
} from '@bulwark/platform';
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
      await t.db.transaction((trx) =>
        enqueueEvents(trx, [{ topic: 'nowhere', type: 'x', key: 'k', payload: { a: 1 } }]),
      );
      const bus = new InProcessBus();
      await bus.start();
      const first = new OutboxRelay(t.db, bus, { service: 'platform', leaseMs: 60000 });
      const second = new OutboxRelay(t.db, bus, { service: 'platform', leaseMs: 60000 });
      expect(await first.publishBatch()).to.equal(1);
      await t.db.transaction((trx) =>
        enqueueEvents(trx, [{ topic: 'nowhere', type: 'x', key: 'k', payload: { a: 2 } }]),
      );
      expect(await second.publishBatch()).to.equal(0);
      // Stopping flushes what is pending (the second event) and releases the lease.
      first.start();
      await first.stop();
      const flushed = await t.db('bulwark_outbox').orderBy('seq', 'desc').first();
      expect(flushed.payload).to.deep.equal({ a: 2 });
      expect(flushed.published_at).to.be.instanceOf(Date);
      await t.db.transaction((trx) =>
        enqueueEvents(trx, [{ topic: 'nowhere', type: 'x', key: 'k', payload: { a: 3 } }]),
      );
      expect(await second.publishBatch()).to.equal(1);
    });

    it('carries rows as typed arrays (unnestRows) without changing a value', async () => {
      const awkward = [
        '',
        'NULL',
        'null',
        'a,b',
        '{x}',
        'say "hi"',
        'back\\slash\\',
        'tab\tnew\nline',
        ' padded ',
        'ünïcödé 🚀',
        "it's",
      ];
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
      const { sql, bindings } = unnestRows(rows, {
        id: 'uuid',
        text: 'text',
        maybe: 'text',
        n: 'int',
        score: 'float8',
        flag: 'boolean',
        at: 'timestamptz',
        tags: 'text[]',
        cwes: 'int[]',
        doc: 'jsonb',
        batch: 'text',
        none: 'int',
      });
      const back = (
        await t.db.raw(
          `select id, text, maybe, n, score, flag, at, tags, cwes, doc, batch, none from ${sql} order by n`,
          bindings,
        )
      ).rows;
      expect(
        back.map((r: Record<string, unknown>) => ({ ...r, at: new Date(r.at as string).toISOString() })),
      ).to.deep.equal(rows);
      const one = unnestRows(
        [
          { a: 1, b: 'x' },
          { a: 1, b: 'x' },
        ],
        { a: 'int', b: 'text' },
      );
      expect((await t.db.raw(`select a, b from ${one.sql}`, one.bindings)).rows).to.deep.equal([
        { a: 1, b: 'x' },
        { a: 1, b: 'x' },
      ]);
      expect((await t.db.raw('select cardinality(?::text[]) as n', [pgArray(awkward)])).rows[0].n).to.equal(
        awkward.length,
      );
      expect(
        (
          await t.db.raw(
            `select count(*)::int as n from ${unnestRows<{ id: string }>([], { id: 'uuid' }).sql}`,
            unnestRows<{ id: string }>([], { id: 'uuid' }).bindings,
          )
        ).rows[0].n,
      ).to.equal(0);
    });

    it('pages a list without repeating or skipping rows that tie, and counts every row whatever the columns (queryPage)', async () => {
      await t.db.schema.dropTableIfExists('paged');
      await t.db.schema.createTable('paged', (table) => {
        table.integer('id').primary();
        table.text('name').notNullable();
      });
      // Seven rows, five of them tied on name: only the id at the end of the order keeps pages apart.
      const names = ['b', 'a', 'a', 'a', 'a', 'a', 'c'];
      await t.db('paged').insert(names.map((name, i) => ({ id: 7 - i, name })));
      const base = t.db('paged').select('name', 'id').where('id', '>', 0);
      const seen: number[] = [];
      for (let page = 1; page <= 4; page++) {
        const { rows, total } = await queryPage<{ id: number; name: string }>(base, { page, limit: 2 }, [
          { column: 'name', order: 'desc' },
          { column: 'id' },
        ]);
        expect(total).to.equal(7);
        seen.push(...rows.map((r) => r.id));
      }
      expect(seen).to.deep.equal([1, 7, 2, 3, 4, 5, 6]);
      expect(await countOf(base.clone().orderBy('name'))).to.equal(7);
    });
  });
}

describe('the embedded PostgreSQL server of a data directory', () => {
  const counter: Migration[] = [
    { name: '0001_counter', up: (db) => db.schema.createTable('counter', (t) => t.integer('n').notNullable()) },
  ];
  let dataDir: string;
  before(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'embedded-server-'));
  });
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  /** Processes of a server whose cluster is under `dir`. */
  const serversOf = (dir: string) =>
    fs
      .readdirSync('/proc')
      .filter((p) => /^\d+$/.test(p))
      .filter((p) => {
        try {
          return fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(path.join(dir, 'postgres', 'cluster'));
        } catch {
          return false;
        }
      });

  it('gives each service a database of its own on one server, keeps what was committed across a restart, and stops with the last database', async () => {
    const first = await openDatabase({ service: 'first', dataDir, migrations: counter });
    const second = await openDatabase({ service: 'second', dataDir, migrations: counter });
    try {
      await first('counter').insert({ n: 1 });
      expect(await second('counter').select('n')).to.deep.equal([]);
      expect((await first.raw('select current_database() as db, inet_server_addr() as addr')).rows[0]).to.deep.equal({
        db: 'bulwark_first',
        addr: null,
      });
    } finally {
      await first.destroy();
      expect(serversOf(dataDir), 'still open: second').to.not.be.empty;
      await second.destroy();
    }
    expect(serversOf(dataDir), 'after the last database closed').to.deep.equal([]);
    expect(fs.readdirSync(dataDir)).to.deep.equal(['postgres']);
    expect(fs.statSync(path.join(dataDir, 'postgres', 'password')).mode & 0o077).to.equal(0);
    const again = await openDatabase({ service: 'first', dataDir, migrations: counter });
    try {
      expect(await again('counter').select('n')).to.deep.equal([{ n: 1 }]);
      expect((await again('knex_migrations').select('name')).map((r: { name: string }) => r.name)).to.deep.equal([
        '0000_platform_outbox_inbox',
        '0001_counter',
      ]);
    } finally {
      await again.destroy();
    }
  });

  it('leaves no server behind when its process is killed, and the next start opens the same data', async () => {
    // The child logs to stdout too: it says that the row is committed in words no log line uses.
    const script = `require(${JSON.stringify(require.resolve('@bulwark/platform'))}).openDatabase({ service: 'first', dataDir: ${JSON.stringify(dataDir)},
      migrations: [{ name: '0001_counter', up: (db) => db.schema.createTable('counter', (t) => t.integer('n').notNullable()) }] })
      .then(async (db) => { await db('counter').insert({ n: 2 }); process.stdout.write('row-committed\\n'); setInterval(() => undefined, 1000); });`;
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (b: Buffer) => b.toString().includes('row-committed') && resolve());
      child.once('exit', (code) => reject(new Error(`the child exited with ${code}`)));
    });
    expect(serversOf(dataDir)).to.not.be.empty;
    child.kill('SIGKILL');
    const deadline = Date.now() + 30000;
    while (serversOf(dataDir).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(serversOf(dataDir), 'the server of the killed process').to.deep.equal([]);
    const again = await openDatabase({ service: 'first', dataDir, migrations: counter });
    try {
      expect((await again('counter').select('n').orderBy('n')).map((r: { n: number }) => r.n)).to.deep.equal([1, 2]);
    } finally {
      await again.destroy();
    }
  });
});
