import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { createLogger, errorPayload, EventEnvelope, OperationalError } from '@bulwark/platform';
import { DATABASE_BACKENDS, TestDatabase } from '@bulwark/testkit';
import { ErrorLog } from '../src/error-log';
import { errorLogConsumer } from '../src/events/error-log';
import { migrations } from '../src/migrations';
import { errorStore } from '../src/store/errors';

for (const backend of DATABASE_BACKENDS) {
  describe(`the error log on ${backend.name}`, function () {
    let t: TestDatabase;
    const consume = errorLogConsumer(createLogger('test'));
    const service = `svc-${randomUUID().slice(0, 6)}`;

    before(async function () {
      t = await backend.open(this, 'notifications', migrations);
    });
    after(async () => t?.close());

    const recorded = (e: Partial<OperationalError> = {}, at = new Date(), payload?: unknown): EventEnvelope => ({
      id: randomUUID(),
      type: 'error.recorded',
      topic: 'bulwark.errors.v1',
      key: service,
      occurredAt: at.toISOString(),
      headers: {},
      payload:
        payload ??
        errorPayload(
          service,
          { code: 'scan.failed', level: 'error', message: 'Scan failed', message_ru: 'Сканирование не удалось', ...e },
          at,
        ),
    });
    const record = (e: EventEnvelope) => t.db.transaction((trx) => consume(e, trx));
    const mine = () => t.db('error_log').where({ service });

    it('keeps each record once, and skips one whose payload is not a record instead of retrying it forever', async () => {
      const e = recorded({ subject: 'scan-1', details: { project_code: 'shop' } });
      await record(e);
      await record(e);
      await record(recorded({}, new Date(), { service, code: 'NOT A CODE', level: 'loud' }));
      const rows = await mine();
      expect(rows).to.have.length(1);
      expect(rows[0]).to.include({
        id: e.id,
        code: 'scan.failed',
        level: 'error',
        subject: 'scan-1',
        message_ru: 'Сканирование не удалось',
      });
    });

    it('exports CSV newest first across pages, with cells a spreadsheet would run as formulas defused', async () => {
      const base = Date.now() - 60_000;
      for (let i = 0; i < 1005; i++)
        await record(
          recorded({ code: 'webhook.given_up', level: 'warning', message: `given up ${i}` }, new Date(base + i)),
        );
      await record(
        recorded({ code: 'http.internal', message: '=HYPERLINK("http://evil.example","click")', message_ru: '+1+2' }),
      );
      let csv = '';
      for await (const piece of new ErrorLog(t.db).csv({
        services: [service],
        codes: ['webhook.given_up', 'http.internal'],
      }))
        csv += piece;
      const lines = csv.trimEnd().split('\r\n');
      expect(lines[0]).to.equal('occurred_at,service,level,code,message,message_ru,subject,route,request_id,id');
      expect(lines).to.have.length(1 + 1006);
      expect(lines[1]).to.contain(`,"'=HYPERLINK(""http://evil.example"",""click"")",'+1+2,`);
      expect(lines[2]).to.contain('given up 1004');
      expect(lines[1006]).to.contain('given up 0');
    });

    it('lists with every filter, and says which services, codes and levels there are', async () => {
      const page = await errorStore.list(t.db, {
        services: [service],
        levels: ['warning'],
        message: 'GIVEN UP 100',
        page: 1,
        limit: 3,
      });
      expect(page.total).to.equal(6);
      expect(page.items.map((e) => e.message)).to.deep.equal(['given up 1004', 'given up 1003', 'given up 1002']);
      const values = await errorStore.filterValues(t.db, {});
      expect(values.services).to.include(service);
      expect(values.codes).to.include.members(['http.internal', 'scan.failed', 'webhook.given_up']);
      expect(values.levels).to.include.members(['error', 'warning']);
    });

    it('drops records past the retention', async () => {
      const old = recorded({ message: 'long ago' }, new Date(Date.now() - 40 * 86_400_000));
      await record(old);
      expect(await errorStore.purge(t.db, 30)).to.be.at.least(1);
      expect(await mine().where({ id: old.id })).to.deep.equal([]);
      expect((await mine()).length).to.be.greaterThan(1000);
    });
  });
}
