import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { DATABASE_BACKENDS, TestDatabase } from '@bulwark/testkit';
import { migrations } from '../src/migrations';
import { findingStore } from '../src/store/findings';

for (const backend of DATABASE_BACKENDS) {
  describe(`scanning's findings store on ${backend.name}`, function () {
    let t: TestDatabase;
    before(async function () {
      t = await backend.open(this, 'scanning', migrations);
    });
    after(async () => t?.close());

    async function scanWith(seqs: number[]): Promise<string> {
      const id = randomUUID();
      await t.db('scans').insert({
        id,
        check_id: randomUUID(),
        layer_id: randomUUID(),
        project_code: 'p',
        security_tool_id: randomUUID(),
        tool_type_id: 1,
        kind: 'upload',
        state: 'completed',
      });
      if (seqs.length)
        await findingStore.insertBatch(t.db, id, {
          seqs,
          json: JSON.stringify(seqs.map((n) => ({ fingerprint: `fp${n}`, severity: 'high', title: `t${n}` }))),
        });
      return id;
    }

    it('hands findings over in ranges of the key, each at most the span, together exactly the stored ones', async () => {
      const scan = await scanWith([1, 2, 3, 4, 5, 6, 7]);
      expect(await findingStore.lastSeq(t.db, scan)).to.equal(7);
      const first = await findingStore.chunk(t.db, scan, 0, 3);
      expect(first.map((r) => r.seq)).to.deep.equal([1, 2, 3]);
      expect(JSON.parse(first[0].findingJson)).to.deep.equal({ fingerprint: 'fp1', severity: 'high', title: 't1' });
      expect((await findingStore.chunk(t.db, scan, 3, 3)).map((r) => r.seq)).to.deep.equal([4, 5, 6]);
      expect((await findingStore.chunk(t.db, scan, 6, 3)).map((r) => r.seq)).to.deep.equal([7]);
      expect(await findingStore.chunk(t.db, scan, 7, 3)).to.deep.equal([]);
    });

    it('keeps to its own scan, and a scan without findings has none to hand over', async () => {
      const empty = await scanWith([]);
      const other = await scanWith([1, 2]);
      expect(await findingStore.lastSeq(t.db, empty)).to.equal(0);
      expect(await findingStore.chunk(t.db, empty, 0, 10)).to.deep.equal([]);
      expect((await findingStore.chunk(t.db, other, 0, 10)).map((r) => r.seq)).to.deep.equal([1, 2]);
    });
  });
}
