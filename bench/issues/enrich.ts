/**
 * Re-enrichment of a million open issues from the exploit intelligence feeds (issue #30): a fresh
 * database on the real PostgreSQL, 1,000,000 issues each naming a CVE, then the EPSS feed's 300,000
 * scores and a KEV catalog of 1,300 loaded as the service loads them (new table, swapped in) and
 * the open issues naming a CVE whose values changed enriched in the same transaction; then, BENCH_RUNS
 * times, the same feed again (nothing to write), a feed whose scores moved for a tenth of the CVEs,
 * and the first feed again (the tenth moved back).
 *
 *   eval "$(bash deploy/local/infra.sh env)"; npx tsx bench/issues/enrich.ts   (BENCH_TOTAL_ISSUES, BENCH_RUNS)
 */
import { IssueEnrichment } from '../../services/issues/src/intel/enrichment';
import type { EpssFeed, KevFeed } from '../../services/issues/src/domain/intel-feeds';
import { intelStore } from '../../services/issues/src/store/intel';
import { fillIssues, loadAverage, runBench } from './dataset';

const TOTAL = Number(process.env.BENCH_TOTAL_ISSUES ?? 1_000_000);
const CVES = 300_000;
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const cveOf = (n: number) => `CVE-2025-${String(10000 + n)}`;

function epssFeed(shift: number, every: number): EpssFeed {
  const records = Array.from({ length: CVES }, (_, n) => {
    const base = (n % 1000) / 1000;
    return { cve: cveOf(n), epss: n % every === 0 ? (base + shift) % 1 : base, percentile: (n % 997) / 997 };
  });
  return { modelVersion: 'v2025.03.14', scoreDate: new Date().toISOString(), records };
}

const kevFeed: KevFeed = {
  catalogVersion: 'bench',
  records: Array.from({ length: 1300 }, (_, i) => ({
    cve: cveOf(i * 211),
    dateAdded: '2025-01-01',
    dueDate: '2025-02-01',
    ransomware: i % 5 === 0,
  })),
};

runBench('intel', async (db) => {
  const enrichment = new IssueEnrichment();
  let t = Date.now();
  await fillIssues(db, TOTAL);
  // Every issue open and naming one of the feed's CVEs (a third also an alias), so every row is re-enriched.
  await db.raw(
    `update issue_records set status_id = 1, cve = 'CVE-2025-' || (10000 + abs(hashtext(match_key)) % ${CVES * 1.2}),
         vulnerability_ids = case when abs(hashtext(id::text)) % 3 = 0 then array['GHSA-x', 'CVE-2025-' || (10000 + abs(hashtext(id::text)) % ${CVES})] else '{}' end`,
  );
  await db.raw('vacuum analyze issue_records');
  console.log(`setup: ${TOTAL} issues in ${Date.now() - t} ms`);

  const timed = async (label: string, feed: EpssFeed, withKev: boolean) => {
    t = Date.now();
    let loadMs = 0;
    const changed = await db.transaction(async (trx) => {
      await intelStore.replaceEpss(trx, feed, 'import');
      if (withKev) await intelStore.replaceKev(trx, kevFeed, 'import');
      loadMs = Date.now() - t;
      return enrichment.enrichOpen(trx);
    });
    const total = Date.now() - t;
    console.log(
      `${label}: load ${loadMs} ms, enrich ${total - loadMs} ms, ${changed} issues changed, total ${total} ms`,
    );
  };
  console.log(`load average ${loadAverage()}`);
  await timed('first load (EPSS 300,000 + KEV 1,300)', epssFeed(0, 1), true);
  await db.raw('vacuum analyze issue_records');
  for (let run = 1; run <= RUNS; run++) {
    await timed(`same feed again (no row written), run ${run}`, epssFeed(0, 1), false);
    // Each run moves a tenth of the scores from the feed before it (and the last one back).
    await timed(`a tenth of the scores moved, run ${run}`, epssFeed(0.25 * run, 10), false);
    await timed(`the tenth moved back, run ${run}`, epssFeed(0, 1), false);
  }
});
