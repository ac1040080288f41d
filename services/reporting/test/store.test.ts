import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { DATABASE_BACKENDS, TestDatabase } from '@bulwark/testkit';
import { migrations } from '../src/migrations';
import { reportStore } from '../src/store/reports';
import type { ReportSnapshot } from '../src/domain/snapshot';

for (const backend of DATABASE_BACKENDS) {
  describe(`reports store on ${backend.name}`, function () {
    let t: TestDatabase;
    before(async function () {
      t = await backend.open(this, 'reporting', migrations);
    });
    after(async () => t?.close());

    const queue = () =>
      reportStore.insert(t.db, {
        id: randomUUID(),
        name: 'r',
        type: 'summary',
        period: 'all',
        projectCodes: ['a'],
        allProjects: false,
        rangeFrom: null,
        rangeTo: null,
        author: 'admin',
        createdAt: new Date().toISOString(),
      });

    it('hands a report to one generator at a time, and to another once the first one\u2019s lease ran out', async () => {
      const report = await queue();
      const first = await reportStore.claim(t.db, 60);
      expect(first).to.include({ id: report.id, state: 'running', attempts: 1 });
      expect(await reportStore.claim(t.db, 60)).to.equal(undefined);
      // The first generator died: its lease runs out.
      await t
        .db('reports')
        .where({ id: report.id })
        .update({ lease_until: t.db.raw("now() - interval '1 second'") });
      const second = await reportStore.claim(t.db, 60);
      expect(second).to.include({ id: report.id, attempts: 2 });
      const snapshot = { report: {}, totals: {} } as unknown as ReportSnapshot;
      expect(await reportStore.progress(t.db, report.id, 1, 50, 60)).to.equal(false);
      expect(await reportStore.finish(t.db, report.id, 1, { snapshot })).to.equal(false);
      expect(await reportStore.finish(t.db, report.id, 2, { snapshot })).to.equal(true);
      expect(await reportStore.get(t.db, report.id, null)).to.include({ state: 'ready', progress: 100 });
      expect(await reportStore.snapshot(t.db, report.id)).to.deep.equal(snapshot);
    });

    it('waits out a retry delay before a failed attempt is taken again', async () => {
      const report = await queue();
      const claimed = (await reportStore.claim(t.db, 60))!;
      expect(claimed.id).to.equal(report.id);
      await reportStore.requeue(t.db, report.id, claimed.attempts, 60);
      expect(await reportStore.get(t.db, report.id, null)).to.include({ state: 'queued' });
      expect(await reportStore.claim(t.db, 60)).to.equal(undefined);
      await t
        .db('reports')
        .where({ id: report.id })
        .update({ lease_until: t.db.raw("now() - interval '1 second'") });
      expect(await reportStore.claim(t.db, 60)).to.include({ id: report.id, attempts: 2 });
    });

    it('shows a report only to callers who see all its projects, and keeps each rendered format once', async () => {
      const report = await queue();
      expect(await reportStore.get(t.db, report.id, ['a', 'b'])).to.include({ id: report.id });
      expect(await reportStore.get(t.db, report.id, ['b'])).to.equal(undefined);
      await reportStore.saveFile(t.db, report.id, 'csv', Buffer.from('one'));
      await reportStore.saveFile(t.db, report.id, 'csv', Buffer.from('two'));
      expect((await reportStore.file(t.db, report.id, 'csv'))!.toString()).to.equal('one');
      expect(await reportStore.deleteMany(t.db, [report.id, 'not-a-uuid'], ['b'])).to.deep.equal([]);
      expect(await reportStore.deleteMany(t.db, [report.id], ['a'])).to.deep.equal([report.id]);
      expect(await reportStore.file(t.db, report.id, 'csv')).to.equal(undefined);
    });
  });
}
