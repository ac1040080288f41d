import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { DATABASE_BACKENDS, TestDatabase } from '@bulwark/testkit';
import type { ServiceData } from '@bulwark/platform';
import type { EpssRecord, KevRecord } from '../src/domain/intel-feeds';
import { STATUS } from '../src/domain/statuses';
import { IssueEnrichment } from '../src/intel/enrichment';
import { migrations } from '../src/migrations';
import { SlaProjects } from '../src/sla/sla-projects';
import { intelStore } from '../src/store/intel';
import { issueStore } from '../src/store/issues/issue-store';
import { slaClockStore } from '../src/store/sla-clock';
import { slaPolicyStore } from '../src/store/sla-policies';
import { issue } from './fixtures';

const kevRecord = (cve: string, dueDate: string): KevRecord => ({
  cve,
  dateAdded: '2026-01-05',
  dueDate,
  ransomware: false,
});

// A feed load re-enriches only the open issues naming a CVE whose values changed (migration 0025):
// what every open issue shows must still be what a re-enrichment of all of them would give.
for (const backend of DATABASE_BACKENDS) {
  describe(`re-enrichment of the CVEs a feed load changed on ${backend.name}`, function () {
    let t: TestDatabase;
    let data: ServiceData;
    const enrichment = new IssueEnrichment();
    const project = `p-${randomUUID().slice(0, 8)}`;
    const ids: Record<string, string> = {};
    before(async function () {
      t = await backend.open(this, 'issues', migrations);
      data = { db: t.db, transaction: (work) => t.db.transaction(work) };
      const now = { firstDetectedAt: new Date().toISOString() };
      const rows = [
        // Its own CVE, in lower case as some scanners write it; its scanner gave an EPSS of its own.
        issue(project, 1, { ...now, cve: 'cve-2026-1', vulnerabilityIds: [], epss: 0.01 }),
        // Two ids: the highest score of the two, the earliest KEV due date.
        issue(project, 2, { ...now, cve: 'CVE-2026-2', vulnerabilityIds: ['GHSA-aaaa', 'CVE-2026-3'] }),
        // Only through an alias.
        issue(project, 3, { ...now, cve: null, vulnerabilityIds: ['CVE-2026-3'] }),
        // Closed while the feeds change.
        issue(project, 4, { ...now, cve: 'CVE-2026-4', vulnerabilityIds: [], severity: 'critical', severityRank: 5 }),
        // None: never written.
        issue(project, 5, { ...now, cve: null, vulnerabilityIds: [] }),
      ];
      await data.transaction(async (trx) => {
        await new SlaProjects().atIngestion(trx, project, []);
        await issueStore.insertMany(trx, rows);
        await slaPolicyStore.insert(trx, {
          name: 'sla',
          author: 'test',
          projectCodes: [project],
          projectTags: [],
          days: { critical: 300, high: 300, medium: 300, low: 300, info: 300 },
          knownExploitedDays: null,
        });
        await slaClockStore.applyToIssues(trx, await slaClockStore.resolve(trx, [project]));
      });
      rows.forEach((r, i) => (ids[i + 1] = r.id));
    });
    after(async () => t?.close());

    const load = (epss: EpssRecord[] | null, kev: KevRecord[] | null) =>
      data.transaction(async (trx) => {
        if (epss)
          await intelStore.replaceEpss(trx, { modelVersion: 'v', scoreDate: '2026-11-28', records: epss }, 'import');
        if (kev) await intelStore.replaceKev(trx, { catalogVersion: 'c', records: kev }, 'import');
        return enrichment.enrichOpen(trx);
      });
    const view = async (n: number) => {
      const i = await issueStore.get(t.db, ids[n]);
      if (!i) throw new Error(`issue ${n} not found`);
      return i;
    };
    const intelOf = async (n: number) => {
      const i = await view(n);
      return { epss: i.epss, percentile: i.epssPercentile, kev: i.knownExploited, due: i.kevDueDate };
    };
    const epss = (scores: Record<string, number>): EpssRecord[] =>
      Object.entries(scores).map(([cve, s]) => ({ cve, epss: s, percentile: s / 2 }));

    it('enriches every open issue naming a CVE at the first load, through its CVE or an alias', async () => {
      const changed = await load(epss({ 'CVE-2026-1': 0.5, 'CVE-2026-2': 0.2, 'CVE-2026-3': 0.4, 'CVE-2026-4': 0.3 }), [
        kevRecord('CVE-2026-2', '2027-03-01'),
        kevRecord('CVE-2026-3', '2027-02-01'),
      ]);
      expect(changed).to.equal(4);
      expect(await intelOf(1)).to.deep.equal({ epss: 0.5, percentile: 0.25, kev: false, due: null });
      expect(await intelOf(2)).to.deep.equal({ epss: 0.4, percentile: 0.2, kev: true, due: '2027-02-01' });
      expect(await intelOf(3)).to.deep.equal({ epss: 0.4, percentile: 0.2, kev: true, due: '2027-02-01' });
      expect(await intelOf(5)).to.deep.equal({ epss: null, percentile: null, kev: false, due: null });
    });

    it('writes nothing when a feed comes again unchanged, and only the issues of the CVEs whose values moved', async () => {
      expect(
        await load(epss({ 'CVE-2026-1': 0.5, 'CVE-2026-2': 0.2, 'CVE-2026-3': 0.4, 'CVE-2026-4': 0.3 }), null),
      ).to.equal(0);
      // A KEV entry's date added changes no issue.
      expect(
        await load(null, [
          { ...kevRecord('CVE-2026-2', '2027-03-01'), dateAdded: '2026-02-02' },
          kevRecord('CVE-2026-3', '2027-02-01'),
        ]),
      ).to.equal(0);
      expect(
        await load(epss({ 'CVE-2026-1': 0.6, 'CVE-2026-2': 0.2, 'CVE-2026-3': 0.4, 'CVE-2026-4': 0.3 }), null),
      ).to.equal(1);
      expect(await intelOf(1)).to.include({ epss: 0.6 });
      expect(await intelOf(2)).to.include({ epss: 0.4 });
    });

    it('re-dates the SLA of the issues whose KEV due date moved, and restores a scanner’s own value when the feed drops a CVE', async () => {
      const dueBefore = (await view(3)).slaDueAt;
      expect(dueBefore).to.equal('2027-02-02T00:00:00.000Z');
      expect(await load(null, [kevRecord('CVE-2026-2', '2027-03-01'), kevRecord('CVE-2026-3', '2027-01-10')])).to.equal(
        2,
      );
      expect(await intelOf(2)).to.include({ kev: true, due: '2027-01-10' });
      expect((await view(3)).slaDueAt).to.equal('2027-01-11T00:00:00.000Z');

      expect(await load(epss({ 'CVE-2026-2': 0.2, 'CVE-2026-3': 0.4, 'CVE-2026-4': 0.3 }), null)).to.equal(1);
      expect(await intelOf(1)).to.deep.equal({ epss: 0.01, percentile: null, kev: false, due: null });
    });

    it('gives an issue reopened after loads made while it was closed the current values, and its SLA the KEV due date', async () => {
      const setStatus = (status: number) =>
        data.transaction((trx) => issueStore.setStatusMany(trx, [ids[4]], status, undefined, new Date().toISOString()));
      await setStatus(STATUS.riskAccepted);
      expect(
        await load(epss({ 'CVE-2026-2': 0.2, 'CVE-2026-3': 0.4, 'CVE-2026-4': 0.9 }), [
          kevRecord('CVE-2026-2', '2027-03-01'),
          kevRecord('CVE-2026-3', '2027-01-10'),
          kevRecord('CVE-2026-4', '2026-12-24'),
        ]),
      ).to.equal(0);
      expect(await intelOf(4)).to.include({ epss: 0.3, kev: false });
      expect((await view(4)).slaDueAt).to.equal(null);

      await setStatus(STATUS.confirmed);
      expect(await intelOf(4)).to.deep.equal({ epss: 0.9, percentile: 0.45, kev: true, due: '2026-12-24' });
      const reopened = await view(4);
      // Plus the moments it spent accepted (the clock paused).
      expect(Date.parse(reopened.slaDueAt ?? '') - Date.parse('2026-12-25T00:00:00Z')).to.be.within(0, 60_000);
      expect(reopened.riskScore).to.equal(80);
    });
  });
}
