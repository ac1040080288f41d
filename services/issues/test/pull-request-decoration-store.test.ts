import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { DATABASE_BACKENDS, TestDatabase } from '@bulwark/testkit';
import { migrations } from '../src/migrations';
import { issueStore, runStatement } from '../src/store/issues/issue-store';
import { DecorationWrite, pullRequestDecorationStore as store } from '../src/store/pull-request-decorations';
import { at, issue } from './fixtures';

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

    it("takes the base scan's detected issues only when a pull request scan of its check comes, and keeps them until the next base", async () => {
      const check = randomUUID();
      const project = `P-${check}`;
      const [a, b] = [1, 2].map((n) => issue(project, n, { checkId: check, scanId: 'B1', firstScanId: 'B1' }));
      await runStatement(t.db, issueStore.insertStatement([a, b]));
      const baseSet = async () => {
        const row = await t.db('branch_scans').where({ check_id: check }).first<{ issue_ids: string[] | null }>();
        return row?.issue_ids ? [...row.issue_ids].sort() : row?.issue_ids;
      };
      await store.recordBranchScan(t.db, check, 'B1', at);
      expect(await baseSet()).to.equal(null);
      await store.keepBaseSet(t.db, check);
      expect(await baseSet()).to.deep.equal([a.id, b.id].sort());
      // The pull request scan's ingestion moves detections to it; the set taken before stays.
      await t.db('issue_detection_state').where({ issue_id: a.id }).update({ scan_id: 'PR1' });
      await store.keepBaseSet(t.db, check);
      expect(await baseSet()).to.deep.equal([a.id, b.id].sort());
      expect((await store.baseScan(t.db, check))?.scanId).to.equal('B1');
      // A new scan of the branch is the base from now on: its set is taken anew, when needed.
      await t.db('issue_detection_state').where({ issue_id: b.id }).update({ scan_id: 'B2' });
      await store.recordBranchScan(t.db, check, 'B2', at);
      expect(await baseSet()).to.equal(null);
      await store.keepBaseSet(t.db, check);
      expect(await baseSet()).to.deep.equal([b.id]);
    });
  });
}
