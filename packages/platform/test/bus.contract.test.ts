import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import {
  Db,
  enqueueEvents,
  EventBus,
  EventEnvelope,
  handleOnce,
  InProcessBus,
  KafkaBus,
  openDatabase,
  OutboxRelay,
  Subscription,
} from '@bulwark/platform';
import { Kafka, logLevel } from 'kafkajs';
import { requireInfra, uniqueSuffix } from '@bulwark/testkit';

async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 60000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const counterMigration = {
  name: '0001_effects',
  async up(db: Db) {
    await db.schema.createTable('effects', (t) => {
      t.text('event_id').primary();
      t.integer('n').notNullable();
    });
  },
};

interface Adapter {
  name: string;
  make(ctx: Mocha.Context, topics: string[]): EventBus;
}

const ADAPTERS: Adapter[] = [
  { name: 'in-process bus', make: () => new InProcessBus({ attempts: 3, baseDelayMs: 10, maxDelayMs: 50 }) },
  {
    name: 'Kafka bus (real broker)',
    make: (ctx, topics) => {
      const i = requireInfra(ctx, 'kafka');
      return new KafkaBus({
        brokers: i.kafkaBrokers,
        clientId: `contract-${uniqueSuffix()}`,
        topics: topics.map((name) => ({ name, partitions: 3 })),
      });
    },
  },
];

for (const adapter of ADAPTERS) {
  describe(`event bus contract: ${adapter.name}`, function () {
    const base = `test.${uniqueSuffix()}`;
    const topic = {
      order: `${base}.order`,
      restart: `${base}.restart`,
      dupes: `${base}.dupes`,
      relay: `${base}.relay`,
    };
    let bus: EventBus;
    let db: Db;
    let dataDir: string;
    const subs: Subscription[] = [];
    const relays: OutboxRelay[] = [];

    before(async function () {
      bus = adapter.make(this, Object.values(topic));
      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bus-contract-'));
      db = await openDatabase({ service: 'contract', dataDir, migrations: [counterMigration] });
    });

    after(async () => {
      for (const r of relays) await r.stop(1000);
      for (const s of subs) await s.stop();
      await bus?.close();
      await db?.destroy();
      if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    });

    const relay = (opts: { leaseMs?: number } = {}, publishVia: EventBus = bus) => {
      const r = new OutboxRelay(db, publishVia, { service: 'contract', pollMs: 50, leaseMs: opts.leaseMs ?? 15000 });
      relays.push(r);
      return r;
    };

    const effect = (trx: Db, event: EventEnvelope) =>
      trx('effects')
        .insert({ event_id: event.id, n: 1 })
        .onConflict('event_id')
        .merge({ n: trx.raw('effects.n + 1') });

    const effectCount = async (ids: string[]) => {
      const rows: { n: number }[] = await db('effects').whereIn('event_id', ids);
      return rows.reduce((a, r) => a + Number(r.n), 0);
    };

    it('starts, and delivers what the outbox relay publishes to each group in per-key order', async function () {
      const seen: EventEnvelope[] = [];
      subs.push(await bus.subscribe(`g-order-${base}`, [topic.order], async (e) => void seen.push(e)));
      await bus.start();
      const events = Array.from({ length: 60 }, (_, n) => ({
        topic: topic.order,
        type: 'tick',
        key: `k${n % 3}`,
        payload: { n },
      }));
      await db.transaction((trx) => enqueueEvents(trx, events));
      relay().start();
      await waitFor('60 events', () => seen.length >= 60);
      for (const key of ['k0', 'k1', 'k2']) {
        const ns = seen.filter((e) => e.key === key).map((e) => (e.payload as { n: number }).n);
        expect(ns).to.deep.equal([...ns].sort((a, b) => a - b));
        expect(ns).to.have.length(20);
      }
      const pending = await db('bulwark_outbox').whereNull('published_at').count<{ c: string }[]>({ c: '*' });
      expect(Number(pending[0].c)).to.equal(0);
    });

    it('delivers to a consumer group after it restarts what was published while it was stopped', async function () {
      const group = `g-restart-${base}`;
      const first: number[] = [];
      const sub = await bus.subscribe(
        group,
        [topic.restart],
        async (e) => void first.push((e.payload as { n: number }).n),
      );
      await db.transaction((trx) =>
        enqueueEvents(trx, [{ topic: topic.restart, type: 'tick', key: 'a', payload: { n: 0 } }]),
      );
      relays[0].nudge();
      await waitFor('the first event', () => first.length === 1);
      await sub.stop();

      await db.transaction((trx) =>
        enqueueEvents(
          trx,
          [1, 2, 3].map((n) => ({ topic: topic.restart, type: 'tick', key: 'a', payload: { n } })),
        ),
      );
      relays[0].nudge();
      await waitFor(
        'the outbox to drain',
        async () =>
          Number((await db('bulwark_outbox').whereNull('published_at').count<{ c: string }[]>({ c: '*' }))[0].c) === 0,
      );

      const second: number[] = [];
      subs.push(
        await bus.subscribe(group, [topic.restart], async (e) => void second.push((e.payload as { n: number }).n)),
      );
      await waitFor('events published while stopped', () => second.length >= 3);
      expect(second).to.deep.equal([1, 2, 3]);
      expect(first).to.deep.equal([0]);
    });

    it('ignores a redelivered event in an idempotent consumer', async function () {
      let deliveries = 0;
      const consumer = `g-dupes-${base}`;
      const once = handleOnce(db, consumer, async (e, trx) => void (await effect(trx, e)));
      subs.push(
        await bus.subscribe(consumer, [topic.dupes], async (e) => {
          deliveries++;
          await once(e);
        }),
      );
      const event: EventEnvelope = {
        id: randomUUID(),
        type: 'tick',
        topic: topic.dupes,
        key: 'd',
        occurredAt: new Date().toISOString(),
        payload: {},
        headers: {},
      };
      await bus.publish([event]);
      await bus.publish([event]);
      await waitFor('two deliveries', () => deliveries >= 2);
      expect(await effectCount([event.id])).to.equal(1);
    });

    it('recovers the outbox after a crash between commit and publish, and after a crash between publish and marking', async function () {
      let deliveries = 0;
      const consumer = `g-relay-${base}`;
      const once = handleOnce(db, consumer, async (e, trx) => void (await effect(trx, e)));
      subs.push(
        await bus.subscribe(consumer, [topic.relay], async (e) => {
          deliveries++;
          await once(e);
        }),
      );
      for (const r of relays.splice(0)) await r.stop(1000);

      // Crash between commit and publish: the rows are committed, no relay ran.
      const ids = await db.transaction((trx) =>
        enqueueEvents(
          trx,
          [1, 2].map((n) => ({ topic: topic.relay, type: 'tick', key: 'r', payload: { n } })),
        ),
      );
      // Crash between publish and marking: the bus took the batch, the process died before the update.
      const crashing: EventBus = Object.create(bus, {
        publish: {
          value: async (events: EventEnvelope[]) => {
            await bus.publish(events);
            throw new Error('process died before marking the rows published');
          },
        },
      });
      const doomed = new OutboxRelay(db, crashing, { service: 'contract', leaseMs: 300 });
      await doomed.publishBatch().then(
        () => expect.fail('the crashing relay should not mark rows'),
        (err: Error) => expect(err.message).to.match(/died/),
      );
      await waitFor('first deliveries', () => deliveries >= 2);
      expect(
        Number(
          (
            await db('bulwark_outbox').whereIn('id', ids).whereNull('published_at').count<{ c: string }[]>({ c: '*' })
          )[0].c,
        ),
      ).to.equal(2);

      // A fresh relay (after the dead one's lease ran out) publishes the rows again.
      await new Promise((r) => setTimeout(r, 400));
      relay({ leaseMs: 300 }).start();
      await waitFor('redelivery', () => deliveries >= 4);
      await waitFor(
        'rows marked',
        async () =>
          Number(
            (
              await db('bulwark_outbox').whereIn('id', ids).whereNull('published_at').count<{ c: string }[]>({ c: '*' })
            )[0].c,
          ) === 0,
      );
      expect(await effectCount(ids)).to.equal(2);
    });
  });
}

describe('Kafka bus namespaces (real broker)', function () {
  it('keeps deployments with different namespaces apart on one cluster', async function () {
    const i = requireInfra(this, 'kafka');
    const topic = `test.${uniqueSuffix()}.shared`;
    const make = (namespace: string) =>
      new KafkaBus({
        brokers: i.kafkaBrokers,
        clientId: `ns-${uniqueSuffix()}`,
        topics: [{ name: topic, partitions: 1 }],
        namespace,
      });
    const [a, b] = [make(`a${uniqueSuffix()}.`), make(`b${uniqueSuffix()}.`)];
    const seenA: string[] = [];
    const seenB: string[] = [];
    const subs = [
      await a.subscribe('g', [topic], async (e) => void seenA.push(e.id)),
      await b.subscribe('g', [topic], async (e) => void seenB.push(e.id)),
    ];
    await Promise.all([a.start(), b.start()]);
    const event = (id: string): EventEnvelope => ({
      id,
      type: 't',
      topic,
      key: 'k',
      occurredAt: new Date().toISOString(),
      payload: {},
      headers: {},
    });
    const [idA, idB] = [randomUUID(), randomUUID()];
    await a.publish([event(idA)]);
    await b.publish([event(idB)]);
    await waitFor('both deliveries', () => seenA.length > 0 && seenB.length > 0);
    await new Promise((r) => setTimeout(r, 500));
    for (const s of subs) await s.stop();
    await Promise.all([a.close(), b.close()]);
    expect(seenA).to.deep.equal([idA]);
    expect(seenB).to.deep.equal([idB]);
  });
});

describe('Kafka bus replicas (real broker)', function () {
  it('keeps a partition with the replica handling an event for longer than the session timeout: the other never receives it', async function () {
    this.timeout(120000);
    const i = requireInfra(this, 'kafka');
    const topic = `test.${uniqueSuffix()}.slow`;
    const namespace = `r${uniqueSuffix()}.`;
    const SESSION_TIMEOUT_MS = 6000;
    const replicas = [0, 1].map(
      () =>
        new KafkaBus({
          brokers: i.kafkaBrokers,
          clientId: `replica-${uniqueSuffix()}`,
          topics: [{ name: topic, partitions: 1 }],
          namespace,
          sessionTimeoutMs: SESSION_TIMEOUT_MS,
        }),
    );
    const deliveries: number[] = [];
    let done = false;
    const subs = await Promise.all(
      replicas.map((bus, n) =>
        bus.subscribe('g', [topic], async () => {
          deliveries.push(n);
          await new Promise((r) => setTimeout(r, 1.5 * SESSION_TIMEOUT_MS));
          done = true;
        }),
      ),
    );
    await Promise.all(replicas.map((b) => b.start()));
    const admin = new Kafka({
      clientId: `replica-admin-${uniqueSuffix()}`,
      brokers: i.kafkaBrokers,
      logLevel: logLevel.NOTHING,
    }).admin();
    await admin.connect();
    try {
      // Both members in before the event: a member joining later would start a rebalance of its own.
      await waitFor('both replicas in the group', async () => {
        const [g] = (await admin.describeGroups([`${namespace}g`])).groups;
        return g.state === 'Stable' && g.members.length === 2;
      });
      await replicas[0].publish([
        {
          id: randomUUID(),
          type: 't',
          topic,
          key: 'k',
          occurredAt: new Date().toISOString(),
          payload: {},
          headers: {},
        },
      ]);
      await waitFor('the slow handling to end', () => done);
      // Long enough for the other replica to receive the event, had the group moved the partition.
      await new Promise((r) => setTimeout(r, SESSION_TIMEOUT_MS / 2));
    } finally {
      await admin.disconnect();
      for (const s of subs) await s.stop();
      await Promise.all(replicas.map((b) => b.close()));
    }
    expect(deliveries).to.have.length(1);
  });
});
