import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { DATABASE_BACKENDS, TestDatabase } from '@bulwark/testkit';
import { migrations } from '../src/migrations';
import { DecorationWrite, pullRequestDecorationStore as store } from '../src/store/pull-request-decorations';

for (const backend of DATABASE_BACKENDS) {
  describe(`pull request decoration store on ${backend.name}`, function () {
    let t: TestDatabase;
    before(async function () {
      t = await backend.open(this, 'issues', migrations);
    });
    after(async () => t?.close());

    const decoration = (sourceId: string, prNumber: number): DecorationWrite => ({
      scanId: randomUUID(),
      checkId: randomUUID(),
      projectCode: 'P',
      sourceId,
      prNumber,
      headSha: 'a'.repeat(40),
      baseBranch: 'main',
      verdict: { status: 'passed', conditions: [] },
    });

    it('queues one decoration a scan, hands it to one claimer, and closes an older one of the same pull request as superseded', async () => {
      const source = randomUUID();
      const older = decoration(source, 7);
      const newer = decoration(source, 7);
      const other = decoration(source, 8);
      for (const d of [older, older, newer, other]) await store.enqueue(t.db, d);
      await store.supersede(t.db);
      const [a, b] = await Promise.all([store.claim(t.db, 10, 60), store.claim(t.db, 10, 60)]);
      const claimed = [...a, ...b].filter((d) => d.sourceId === source);
      expect(claimed.map((d) => d.scanId).sort()).to.deep.equal([newer.scanId, other.scanId].sort());
      expect(claimed.every((d) => d.attempts === 1)).to.equal(true);
      expect(claimed.find((d) => d.scanId === newer.scanId)?.verdict).to.deep.equal({
        status: 'passed',
        conditions: [],
      });
    });

    it('offers a failed one again once its backoff has passed, and never one given up or done', async () => {
      const source = randomUUID();
      const [retried, givenUp, done] = [decoration(source, 1), decoration(source, 2), decoration(source, 3)];
      for (const d of [retried, givenUp, done]) await store.enqueue(t.db, d);
      const mine = async () => (await store.claim(t.db, 100, 0)).filter((d) => d.sourceId === source);
      const first = await mine();
      expect(first).to.have.length(3);
      const id = (scanId: string) => first.find((d) => d.scanId === scanId)?.id ?? '';
      await store.failed(t.db, id(retried.scanId), 'Service Unavailable', 0);
      await store.failed(t.db, id(givenUp.scanId), 'Bad credentials', null);
      await store.done(t.db, id(done.scanId), 'decorated');
      const again = await mine();
      expect(again.map((d) => [d.scanId, d.attempts])).to.deep.equal([[retried.scanId, 2]]);
    });
  });
}
