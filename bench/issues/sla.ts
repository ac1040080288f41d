/**
 * SLA re-dating at scale (issue #30): a fresh database on the real PostgreSQL, 1,000,000 issues of 99
 * projects (bench/issues/dataset.ts: three quarters open), then the statements of an SLA policy
 * change as SlaPolicies makes them (the policy written, every project's days resolved, the issues
 * whose days changed re-dated, one transaction), and KEV loads re-dating the issues whose catalog
 * due date changed (the issue_sla trigger on the enrichment's writes), and the policy's KEV days
 * changed (only the known-exploited issues re-dated). The trigger's cost on
 * ingestion is bench/issues/insert-cost.ts's `no-sla` variant.
 *
 *   eval "$(bash deploy/local/infra.sh env)"; npx tsx bench/issues/sla.ts   (BENCH_TOTAL_ISSUES, BENCH_RUNS)
 */
import type { Trx } from '@bulwark/platform';
import type { SlaDays } from '../../services/issues/src/domain/sla';
import type { KevFeed } from '../../services/issues/src/domain/intel-feeds';
import { IssueEnrichment } from '../../services/issues/src/intel/enrichment';
import { intelStore } from '../../services/issues/src/store/intel';
import { slaClockStore } from '../../services/issues/src/store/sla-clock';
import { slaPolicyStore, SlaPolicyWrite } from '../../services/issues/src/store/sla-policies';
import { backendCpu } from '../postgres-backend';
import { fillIssues, loadAverage, runBench } from './dataset';

const TOTAL = Number(process.env.BENCH_TOTAL_ISSUES ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const days = (high: number, critical = 7): SlaDays => ({ critical, high, medium: 90, low: 180, info: 365 });
const everyProject = (high: number): SlaPolicyWrite => ({
  name: 'every project',
  projectTags: [],
  projectCodes: [],
  days: days(high),
  knownExploitedDays: 14,
});

/**
 * A catalog of 1,300 entries, 167 of them among the dataset's 500 CVEs (CVE-2025-0, -10, … -4990, a
 * tenth of the issues, 200 each): 33,400 issues; `moved` moves a tenth of the entries' due dates.
 */
const kevFeed = (moved: number): KevFeed => ({
  catalogVersion: `bench-${moved}`,
  records: Array.from({ length: 1300 }, (_, i) => ({
    cve: `CVE-2025-${i * 30}`,
    dateAdded: '2026-01-01',
    dueDate: i % 10 === 0 && moved > 0 ? `2026-0${moved}-15` : '2026-12-01',
    ransomware: false,
  })),
});

runBench('sla', async (db) => {
  const enrichment = new IssueEnrichment();
  let t = Date.now();
  await fillIssues(db, TOTAL);
  // The projects as the catalog's events leave them: every other one tagged internet-facing.
  await db.raw(`insert into catalog_projects (project_code, tags)
      select 'proj-' || p, case when p % 2 = 0 then array['internet-facing'] else '{}' end from generate_series(0, 98) p`);
  await db.raw('vacuum analyze issue_records');
  console.log(`setup: ${TOTAL} issues in ${Date.now() - t} ms; load average ${loadAverage()}`);

  // Wall time, and the CPU time of the transaction's backend (steadier on a shared machine).
  const timed = async (label: string, work: (trx: Trx) => Promise<unknown>) => {
    t = Date.now();
    let cpu = NaN;
    const redated = await db.transaction(async (trx) => {
      const pid = (await trx.raw<{ rows: { pid: number }[] }>('select pg_backend_pid() as pid')).rows[0].pid;
      const c0 = backendCpu(pid) ?? NaN;
      await work(trx);
      const n = await slaClockStore.applyToIssues(trx, await slaClockStore.resolve(trx, null));
      cpu = (backendCpu(pid) ?? NaN) - c0;
      return n;
    });
    console.log(`${label}: ${Date.now() - t} ms (backend CPU ${cpu.toFixed(1)} s), ${redated} issues re-dated`);
  };
  let policyId = '';
  await timed('first policy, every project', async (trx) => {
    policyId = (await slaPolicyStore.insert(trx, { ...everyProject(30), author: 'bench' })).id;
  });
  await db.raw('vacuum analyze issue_records');
  for (let run = 1; run <= RUNS; run++) {
    await timed(`high 30 → 14 days, run ${run}`, (trx) => slaPolicyStore.update(trx, policyId, everyProject(14)));
    await timed(`high 14 → 30 days, run ${run}`, (trx) => slaPolicyStore.update(trx, policyId, everyProject(30)));
    await timed(`the policy saved unchanged, run ${run}`, (trx) =>
      slaPolicyStore.update(trx, policyId, everyProject(30)),
    );
  }
  await timed('a tag policy: critical 3 days in the internet-facing half', (trx) =>
    slaPolicyStore.insert(trx, {
      name: 'internet-facing',
      projectTags: ['internet-facing'],
      projectCodes: [],
      days: days(30, 3),
      knownExploitedDays: 14,
      author: 'bench',
    }),
  );

  const kev = async (label: string, feed: KevFeed) => {
    t = Date.now();
    const changed = await db.transaction(async (trx) => {
      await intelStore.replaceKev(trx, feed, 'import');
      return enrichment.enrichOpen(trx);
    });
    console.log(`${label}: ${Date.now() - t} ms, ${changed} issues changed`);
  };
  await kev('KEV first load (1,300 CVEs)', kevFeed(0));
  for (let run = 1; run <= RUNS; run++) {
    await kev(`KEV: a tenth of the due dates moved earlier, run ${run}`, kevFeed(run));
    await kev(`KEV: moved back, run ${run}`, kevFeed(0));
  }
  // Only the known-exploited issues of the projects the policy for every project still decides (the
  // internet-facing half keeps the tag policy's 14 days).
  await timed('the KEV days 14 → 7', (trx) =>
    slaPolicyStore.update(trx, policyId, { ...everyProject(30), knownExploitedDays: 7 }),
  );
});
