import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import {
  createLogger,
  ErrorRecorder,
  EventEnvelope,
  MemoryCache,
  OperationalError,
  OutboundPolicy,
  Queryable,
  recordError,
  SecretBox,
  ServiceData,
} from '@bulwark/platform';
import { DATABASE_BACKENDS, TestDatabase, testServiceData, type Json } from '@bulwark/testkit';
import { migrations } from '../src/migrations';
import { DeliveryWorker } from '../src/deliveries';
import { recordSecurityEvent } from '../src/events/security-events';
import { eventStore } from '../src/store/events';
import { notifierStore } from '../src/store/notifiers';
import { WebhookClient } from '../src/webhook';

for (const backend of DATABASE_BACKENDS) {
  describe(`webhook deliveries on ${backend.name}`, function () {
    let t: TestDatabase;
    let data: ServiceData;
    let server: http.Server;
    let url: string;
    const received: { path: string; body: Json }[] = [];
    const secrets = new SecretBox(randomBytes(32));
    const webhooks = new WebhookClient(new OutboundPolicy({ allow: ['127.0.0.1/32'] }));
    // What a ServiceHost does: the record goes to this database's outbox, in the given transaction.
    const errors: ErrorRecorder = {
      recordError: (e: OperationalError, trx?: Queryable) => recordError(trx ?? t.db, 'notifications', e),
    };

    before(async function () {
      t = await backend.open(this, 'notifications', migrations);
      data = testServiceData(t.db);
      server = http.createServer((req, res) => {
        let text = '';
        req.on('data', (c) => (text += c));
        req.on('end', () => {
          received.push({ path: req.url ?? '', body: JSON.parse(text) });
          res.writeHead(req.url?.endsWith('/down') ? 500 : 200).end();
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(async () => {
      await webhooks.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await t?.close();
    });

    const notifier = (path: string, over: Partial<Parameters<typeof notifierStore.insert>[3]> = {}) =>
      notifierStore.insert(t.db, randomUUID(), 'admin', {
        name: path,
        typeId: 1,
        url: `${url}${path}`,
        rateLimit: 100,
        timeoutSeconds: 5,
        payloadFormat: 'json',
        authHeaderName: null,
        authHeaderValueSealed: null,
        signingSecretSealed: null,
        events: [],
        projectCodes: [],
        allProjects: true,
        active: true,
        previousSigningSecretSealed: null,
        previousSigningSecretExpiresAt: null,
        ...over,
      });
    const event = (project: string, type = 'scan.completed'): EventEnvelope => ({
      id: randomUUID(),
      type,
      topic: 'bulwark.scans.v1',
      key: 'k',
      occurredAt: new Date().toISOString(),
      headers: {},
      payload: { scan_result_id: randomUUID(), project_code: project, findings_count: 1 },
    });
    /** Delivers what is pending, in batches of 20, giving a delivery up after `maxAttempts`. */
    const drain = (maxAttempts: number) =>
      new DeliveryWorker({
        data,
        cache: new MemoryCache(),
        secrets,
        webhooks,
        log: createLogger('test'),
        errors,
        opts: { batch: 20, maxAttempts },
      }).drain();
    const record = (e: EventEnvelope) => t.db.transaction((trx) => recordSecurityEvent(e, trx));
    const states = async (notifierId: string) =>
      (await t.db('deliveries').where({ notifier_id: notifierId }).select('state', 'attempts'))
        .map((d: { state: string; attempts: number }) => `${d.state}/${d.attempts}`)
        .sort();

    it('records an event once, with one delivery for each notifier that wants its type and project', async () => {
      const project = `p-${randomUUID().slice(0, 6)}`;
      const all = await notifier('/all');
      const mine = await notifier('/mine', {
        allProjects: false,
        projectCodes: [project],
        events: ['scan.completed'],
      });
      const otherProject = await notifier('/other', { allProjects: false, projectCodes: ['elsewhere'] });
      const otherType = await notifier('/type', { events: ['report.ready'] });
      const inactive = await notifier('/off', { active: false });
      const e = event(project);
      await record(e);
      await record(e);
      await record(event(project, 'check.created'));
      expect(
        await t
          .db('security_events')
          .where({ id: e.id })
          .count({ n: '*' })
          .then((r) => Number(r[0].n)),
      ).to.equal(1);
      expect(await states(all.id)).to.deep.equal(['pending/0']);
      expect(await states(mine.id)).to.deep.equal(['pending/0']);
      expect(await states(otherProject.id)).to.deep.equal([]);
      expect(await states(otherType.id)).to.deep.equal([]);
      expect(await states(inactive.id)).to.deep.equal([]);
      await t.db('notifiers').whereIn('id', [all.id, mine.id]).delete();
    });

    it('holds a notifier to its rate: what is over it waits, without counting an attempt', async () => {
      const slow = await notifier('/slow', { rateLimit: 2 });
      const project = `p-${randomUUID().slice(0, 6)}`;
      for (let i = 0; i < 5; i++) await record(event(project));
      await drain(3);
      expect(received.filter((r) => r.path === '/slow')).to.have.length(2);
      expect(await states(slow.id)).to.deep.equal([
        'delivered/1',
        'delivered/1',
        'pending/0',
        'pending/0',
        'pending/0',
      ]);
      await t.db('notifiers').where({ id: slow.id }).delete();
    });

    it('drops events past their retention, except one still being delivered', async () => {
      const project = `p-${randomUUID().slice(0, 6)}`;
      const old = { ...event(project), occurredAt: new Date(Date.now() - 200 * 86_400_000).toISOString() };
      const recent = event(project);
      await record(old);
      await record(recent);
      const pendingOld = { ...event(project), occurredAt: old.occurredAt };
      const waiting = await notifier('/waiting', { allProjects: false, projectCodes: [project] });
      await record(pendingOld);
      expect(await eventStore.purge(t.db, 90)).to.be.at.least(1);
      const kept = await eventStore.getMany(t.db, [old.id, recent.id, pendingOld.id]);
      expect([...kept.keys()].sort()).to.deep.equal([recent.id, pendingOld.id].sort());
      await t.db('notifiers').where({ id: waiting.id }).delete();
    });

    it('gives a delivery up after its last attempt, and records it in the error log through the outbox', async () => {
      const down = await notifier('/down');
      const e = event(`p-${randomUUID().slice(0, 6)}`);
      await record(e);
      await drain(1);
      expect(await states(down.id)).to.deep.equal(['failed/1']);
      const row = await t.db('deliveries').where({ notifier_id: down.id }).first();
      expect(row).to.include({ last_status: 500, last_error: 'HTTP 500' });
      const outbox = await t
        .db('bulwark_outbox')
        .where({ topic: 'bulwark.errors.v1', type: 'error.recorded' })
        .select('payload');
      const records = outbox
        .map((o: { payload: unknown }) => (typeof o.payload === 'string' ? JSON.parse(o.payload) : o.payload))
        .filter((p: Json) => p.subject === row.id);
      expect(records).to.have.length(1);
      expect(records[0]).to.include({ service: 'notifications', code: 'webhook.given_up', level: 'warning' });
      expect(records[0].details).to.include({ notifier_id: down.id, event_id: e.id, status: 500, attempts: 1 });
      expect(records[0].message).to.contain('/down').and.to.contain('HTTP 500');
      expect(records[0].message_ru).to.contain('Вебхук');
    });
  });
}
