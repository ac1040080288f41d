/** The million-issue data set both issue benchmarks query, and the queries they time. */
import os from 'node:os';
import knex, { Knex } from 'knex';
import { openDatabase } from '@bulwark/platform';
import { migrations } from '../../services/issues/src/migrations';
import type { IssueFilter } from '../../services/issues/src/store/issues/issue-store';
import { issueStore } from '../../services/issues/src/store/issues/issue-store';

/**
 * Writes `missing` issues of 99 projects in one statement: 300 layers, 1,000 checks, 4 tools, every
 * severity and status, a tenth with a CVE, a third with CVSS, first detections spread over days.
 */
export async function fillIssues(db: Knex, missing: number): Promise<void> {
  await db.raw(
    `with g as (select gen_random_uuid() as id, g from generate_series(1, ?) g),
     records as (
       insert into issue_records (id, project_code, scope_id, match_key, layer_id, check_id, first_scan_id, tool_id, tool_name, scanner, category, title, severity, severity_rank,
         rule_id, status_id, cve, vulnerability_ids, cwes, file_path, start_line, cvss_v3, cvss_max, fingerprint, occurrences, first_detected_at)
       select id, 'proj-' || (g % 99), '', md5(g::text), 'layer-' || (g % 300), 'check-' || (g % 1000), 'scan-' || (g % 5000), 't',
         (array['Semgrep','Trivy','Gitleaks','Bandit'])[1 + g % 4], 'scanner', (array['sast','sca','secrets','iac'])[1 + g % 4], 'Problem ' || (g % 300),
         (array['critical','high','medium','low','info'])[1 + g % 5], 5 - g % 5, 'rule.' || (g % 300), (array[1,1,1,2,3,4,5,8])[1 + g % 8],
         case when g % 10 = 0 then 'CVE-2025-' || (g % 5000) end, case when g % 10 = 0 then array['CVE-2025-' || (g % 5000)] else '{}' end, array[79 + g % 40],
         'src/f' || (g % 4000) || '.py', g % 500, case when g % 3 = 0 then (g % 100) / 10.0 end, case when g % 3 = 0 then (g % 100) / 10.0 end, md5(g::text), 1,
         now() - (g || ' seconds')::interval
       from g)
     insert into issue_detection_state (issue_id, scan_id, last_detected_at, updated_at)
     select id, 'scan-' || (g % 5000), now() - ((g % 86400) || ' seconds')::interval, now() from g`,
    [missing],
  );
}

/** What the service's periodic compaction and autovacuum do after a bulk load: one count row per group, statistics, the visibility map. */
export async function settle(db: Knex): Promise<void> {
  await issueStore.compactCounts(db);
  await db.raw('vacuum analyze issue_records');
  await db.raw('vacuum analyze issue_detection_state');
  await db.raw('vacuum analyze issue_counts');
}

export const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.ceil(xs.length * 0.95) - 1];

/**
 * The timed filters, as the store takes them and as GET /api/v1/issues takes them. The third one's
 * 3 projects are the caller's project scope at the store; over HTTP (as admin) filter[project_code].
 */
export const QUERIES: { label: string; filter: IssueFilter; query: string }[] = [
  {
    label: 'one filter: severity=high',
    filter: { projects: null, severities: ['high'] },
    query: 'filter[severity]=high',
  },
  {
    label: 'three filters: project, severity (2), status (2)',
    filter: { projects: null, projectCodes: ['proj-7'], severities: ['high', 'critical'], statuses: [1, 8] },
    query:
      'filter[project_code]=proj-7&filter[severity]=high&filter[severity]=critical&filter[status]=1&filter[status]=8',
  },
  {
    label: 'three filters within 3 projects: severity, status, category',
    filter: { projects: ['proj-1', 'proj-2', 'proj-3'], severities: ['high'], statuses: [1], categories: ['sast'] },
    query:
      'filter[project_code]=proj-1&filter[project_code]=proj-2&filter[project_code]=proj-3&filter[severity]=high&filter[status]=1&filter[category]=sast',
  },
];

/**
 * Runs a benchmark in a fresh database named after it on the real PostgreSQL of deploy/local/infra.sh
 * (the issues service's migrations applied), prints the load average at its end and drops the database.
 */
export function runBench(name: string, work: (db: Knex) => Promise<void>): void {
  const run = async () => {
    const base = process.env.BULWARK_TEST_PG_URL;
    if (!base) throw new Error('BULWARK_TEST_PG_URL is not set: eval "$(bash deploy/local/infra.sh env)"');
    const url = new URL(base);
    url.pathname = `/bulwark_bench_${name}_${Date.now()}`;
    const db = await openDatabase({ service: 'issues-bench', url: url.toString(), dataDir: '/tmp', migrations });
    try {
      await work(db);
      console.log(`load average ${loadAverage()}`);
    } finally {
      await dropDatabase(db, base, url);
    }
  };
  run().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}

/** The machine's load averages over 1, 5 and 15 minutes, as the figures in bench/README.md give them. */
export const loadAverage = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

/** Closes the benchmark's database and drops it, through a connection to `base` (the server's own database). */
export async function dropDatabase(db: Knex, base: string, url: URL): Promise<void> {
  await db.destroy();
  const admin = knex({ client: 'pg', connection: base });
  await admin.raw('drop database ??', [url.pathname.slice(1)]);
  await admin.destroy();
}
