import { expect } from 'chai';
import { enqueueEvents, InProcessBus, OutboxRelay } from '@bulwark/platform';
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
  });
}
