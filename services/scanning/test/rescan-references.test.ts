import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { DATABASE_BACKENDS, TestDatabase } from '@bulwark/testkit';
import { migrations } from '../src/migrations';
import type { FindingsBatch } from '../src/domain/findings-batch';
import { importReportFile, importScanReport } from '../src/scans/report-import';
import { recordAgainstBase, rescanBase } from '../src/scans/rescan-diff';
import { ScanFindings } from '../src/scans/scan-findings';
import { findingStore } from '../src/store/findings';
import { statsStore } from '../src/store/stats';
import { rescanReport } from './rescan-report';

for (const backend of DATABASE_BACKENDS) {
  describe(`a rescan references the findings its check's previous scan stored, on ${backend.name}`, function () {
    let t: TestDatabase;
    let dir: string;
    const checkId = randomUUID();
    let finished = Date.parse('2026-11-01T00:00:00Z');
    before(async function () {
      t = await backend.open(this, 'scanning', migrations);
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-rescan-'));
    });
    after(async () => {
      await t?.close();
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    });

    /** Imports a report as the upload does (in one transaction), against the check's previous scan. */
    async function scan(report: string) {
      const id = randomUUID();
      const file = path.join(dir, `${id}.sarif`);
      fs.writeFileSync(file, report);
      return t.db.transaction(async (trx) => {
        await trx('scans').insert({
          id,
          check_id: checkId,
          layer_id: randomUUID(),
          project_code: 'p',
          security_tool_id: randomUUID(),
          tool_type_id: 1,
          kind: 'upload',
          state: 'parsing',
        });
        const base = await rescanBase(trx, { id, checkId });
        const batches: FindingsBatch[] = [];
        const outcome = importReportFile({ path: file, base: base?.hashes }, (b) => batches.push(b));
        if (!outcome.ok) throw new Error(outcome.message);
        for (const b of batches) await findingStore.insertBatch(trx, id, b);
        const diff = await recordAgainstBase(trx, id, outcome.report, base);
        finished += 60000;
        await trx('scans')
          .where({ id })
          .update({ state: 'completed', finished_at: new Date(finished) });
        return { id, diff, stored: batches.flatMap((b) => b.seqs) };
      });
    }

    /** What the hand-over gives for a scan, and what parsing its report alone gives. */
    async function handedOver(scanId: string) {
      const findings = await ScanFindings.of(t.db, scanId);
      const all = [];
      for (let after = 0; after < findings.lastSeq; after += 7) all.push(...(await findings.range(after, 7)));
      return all.map((f) => ({ seq: f.seq, finding: JSON.parse(f.findingJson) as unknown }));
    }
    const parsedAlone = (report: string) =>
      importScanReport(Buffer.from(report), {}).findings.map((f, i) => ({
        seq: i + 1,
        finding: JSON.parse(JSON.stringify(f)),
      }));

    const results = Array.from({ length: 20 }, (_, n) => ({ n, line: 10 + n }));
    const changed = [...results.filter((r) => r.n > 1), { n: 1, line: 12 }, { n: 20, line: 30 }];
    const reports = {
      first: rescanReport('2026-11-01T10:00:00Z', results),
      again: rescanReport('2026-11-02T10:00:00Z', results),
      changed: rescanReport('2026-11-03T10:00:00Z', changed),
    };

    it('stores only what changed, hands over exactly the findings of its own report, and never chains references', async () => {
      const first = await scan(reports.first);
      expect(first.stored).to.have.length(20);
      expect(first.diff).to.equal(undefined);

      const again = await scan(reports.again);
      expect(again.stored, 'the same findings in new bytes store nothing').to.deep.equal([]);
      expect(again.diff).to.deep.equal({ base_scan_result_id: first.id, added: 0, vanished: 0 });
      expect(await handedOver(again.id)).to.deep.equal(parsedAlone(reports.again));

      const third = await scan(reports.changed);
      expect(third.stored, 'the new finding and the moved one').to.have.length(2);
      expect(third.diff).to.deep.equal({ base_scan_result_id: again.id, added: 2, vanished: 2 });
      expect(await handedOver(third.id)).to.deep.equal(parsedAlone(reports.changed));
      const holders = await t.db('scan_finding_refs').where('scan_id', third.id).pluck('holder_id');
      expect(holders, 'references point at the rows, not at a scan that references them').to.deep.equal([first.id]);

      // One side of the diff each: the base's vanished findings come from the rows their scan references.
      const vanished = await (await ScanFindings.of(t.db, again.id)).at([1, 2]);
      expect(vanished.map((f) => (JSON.parse(f.findingJson) as { filePath: string }).filePath)).to.deep.equal([
        'src/f0.py',
        'src/f1.py',
      ]);

      // The page and the statistics read references alike.
      const page = await findingStore.page(t.db, third.id, { page: 2, limit: 5 });
      expect(page.total).to.equal(20);
      expect(page.items).to.deep.equal(
        parsedAlone(reports.changed)
          .slice(5, 10)
          .map((f) => f.finding),
      );
      expect((await statsStore.totals(t.db, third.id)).count).to.equal(20);
      const versus = await statsStore.versus(t.db, third.id, first.id);
      expect([versus.new.count, versus.fixed.count, versus.unchanged.count]).to.deep.equal([1, 1, 19]);
    });

    it('hands over what parsing alone gives when later findings of a group change the first one (its ordinal, merged duplicates)', async () => {
      // a.py's group: the first finding (line 30) is handed over at once, then a lower line (10)
      // changes its ordinal and a duplicate at 30 merges into it; b.py's first finding keeps rank 0.
      const grouped = (lines: number[]) => [
        ...lines.map((line, n) => ({ n: 100 + n, line, file: 'a.py' })),
        { n: 200, line: 5, file: 'b.py' },
        { n: 201, line: 9, file: 'b.py' },
        // Enough others for the change below to stay a diff (at most a quarter changed).
        ...Array.from({ length: 30 }, (_, n) => ({ n, line: 10 + n })),
      ];
      const own = {
        first: rescanReport('2026-11-04T10:00:00Z', grouped([30, 10, 30, 20]), 'grouped'),
        again: rescanReport('2026-11-05T10:00:00Z', grouped([30, 10, 30, 20]), 'grouped'),
        shifted: rescanReport('2026-11-06T10:00:00Z', grouped([30, 10, 30, 20, 1]), 'grouped'),
      };
      const first = await scan(own.first);
      expect(await handedOver(first.id)).to.deep.equal(parsedAlone(own.first));
      const again = await scan(own.again);
      expect(again.diff, 'the same findings in new bytes').to.deep.equal({
        base_scan_result_id: first.id,
        added: 0,
        vanished: 0,
      });
      expect(await handedOver(again.id)).to.deep.equal(parsedAlone(own.again));
      const shifted = await scan(own.shifted);
      // Line 1 shifts every rank of a.py's group: three findings changed, one added.
      expect(shifted.diff).to.deep.equal({ base_scan_result_id: again.id, added: 4, vanished: 3 });
      expect(await handedOver(shifted.id)).to.deep.equal(parsedAlone(own.shifted));
    });
  });
}
