import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import {
  currentSpan,
  Db,
  enqueueEvents,
  EventBus,
  InProcessBus,
  KafkaBus,
  openDatabase,
  OutboxRelay,
  runWithContext,
  SpanKind,
  startSpan,
  Subscription,
  traceIdOf,
} from '@bulwark/platform';
import { requireInfra, uniqueSuffix } from '@bulwark/testkit';

interface Adapter {
  name: string;
  make(ctx: Mocha.Context, topic: string): EventBus;
}

const ADAPTERS: Adapter[] = [
  { name: 'in-process bus', make: () => new InProcessBus() },
  {
    name: 'Kafka bus (real broker)',
    make: (ctx, topic) => {
      const i = requireInfra(ctx, 'kafka');
      return new KafkaBus({
        brokers: i.kafkaBrokers,
        clientId: `trace-${uniqueSuffix()}`,
        topics: [{ name: topic, partitions: 2 }],
      });
    },
  },
];

// With no exporter configured spans are not recorded, yet their context must still travel: the
// consumer's work carries the trace id of the work that enqueued the event.
for (const adapter of ADAPTERS) {
  describe(`trace context through the outbox and the ${adapter.name}, export off`, function () {
    const topic = `test.${uniqueSuffix()}.traced`;
    let bus: EventBus;
    let db: Db;
    let dataDir: string;
    let relay: OutboxRelay;
    let sub: Subscription | undefined;

    before(async function () {
      bus = adapter.make(this, topic);
      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trace-propagation-'));
      db = await openDatabase({ service: 'traced', dataDir, migrations: [] });
      relay = new OutboxRelay(db, bus, { service: 'traced', pollMs: 50 });
    });

    after(async () => {
      await relay?.stop(1000);
      await sub?.stop();
      await bus?.close();
      await db?.destroy();
      if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    });

    it('hands the consumer the producer\u2019s trace id and its request id', async function () {
      this.timeout(90000);
      const seen: { traceId?: string; requestId?: string }[] = [];
      sub = await bus.subscribe('traced.consumer', [topic], async (event) => {
        seen.push({ traceId: traceIdOf(currentSpan()), requestId: event.headers['x-request-id'] });
      });
      await bus.start();
      relay.start();
      const producer = startSpan('produce', { kind: SpanKind.INTERNAL, component: 'test' });
      await runWithContext({ requestId: 'req-traced', span: producer }, () =>
        db.transaction((trx) => enqueueEvents(trx, [{ topic, type: 'x.traced', key: 'k', payload: {} }])),
      );
      relay.nudge();
      const deadline = Date.now() + 60000;
      while (seen.length === 0) {
        if (Date.now() > deadline) throw new Error('the event was not consumed');
        await new Promise((r) => setTimeout(r, 50));
      }
      const traceId = traceIdOf(producer);
      expect(traceId).to.match(/^[0-9a-f]{32}$/);
      expect(seen[0]).to.deep.equal({ traceId, requestId: 'req-traced' });
    });
  });
}
