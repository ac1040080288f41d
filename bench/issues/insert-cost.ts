/**
 * What writing 100,000 new issues costs PostgreSQL, and where: the same prepared rows inserted into
 * the issue tables of a fresh database (the service's migrations) in several ways, each timed in
 * wall seconds and in CPU seconds of the transaction's backend (read from /proc, so the server must
 * run on this machine; on a shared machine the CPU figure is the one to compare):
 *
 * - `chunked`: what ingestion does, 2,000 rows per `insert … select from unnest(arrays)`;
 * - `chunked without …`: the same with the SLA trigger or the index on the issues' CVEs dropped;
 * - `copy+merge`: a COPY of every row into a temporary table, then one `insert … select`;
 * - `copy+merge without …`: the same with parts of the schema dropped inside the transaction, which
 *   is rolled back (the cost of each index and of the count trigger, by difference).
 *
 * Run: `npx tsx bench/issues/insert-cost.ts` after `eval "$(bash deploy/local/infra.sh env)"`
 * (BENCH_FINDINGS, BENCH_CVE_EVERY, BENCH_VARIANTS: a comma-separated subset of the labels' keys below).
 */
import { createHash, randomUUID } from 'node:crypto';
import os from 'node:os';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { from as copyFrom } from 'pg-copy-streams';
import { openDatabase, Trx } from '@bulwark/platform';
import { migrations } from '../../services/issues/src/migrations';
import { issueStore, NewIssue } from '../../services/issues/src/store/issues/issue-store';
import { backendCpu, copyText } from '../postgres-backend';
import { dropDatabase } from './dataset';

const N = Number(process.env.BENCH_FINDINGS ?? 100_000);
/** Every how many rows one names a CVE (10: a mixed upload; 1: a dependency scan's, every row). */
const CVE_EVERY = Number(process.env.BENCH_CVE_EVERY ?? 10);
const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'];

const INDEXES = {
  identity: ['drop index issues_identity'],
  pkey: ['alter table issue_records drop constraint issues_pkey cascade'],
  first: ['drop index issues_project_first', 'drop index issues_first'],
  composites: [
    'drop index issues_project_status_sev',
    'drop index issues_check_status',
    'drop index issues_layer_status',
    'drop index issues_tool',
  ],
  partial: [
    'drop index issues_cve',
    'drop index issues_lib',
    'drop index issues_assignee',
    'drop index issues_rule',
    'drop index issues_duplicate',
  ],
  gin: ['drop index issues_cwes'],
  trigger: ['drop trigger issues_counted_insert on issue_records'],
  sla: ['drop trigger issue_sla_insert on issue_records'],
  cves: ['drop index issues_cves'],
};
const VARIANTS: Record<string, { label: string; drop?: string[]; chunked?: boolean }> = {
  chunked: { label: 'chunked (ingestion today): insert … select from unnest, 2,000 rows each', chunked: true },
  'no-sla': { label: 'chunked without the SLA trigger (issue_sla_insert)', drop: INDEXES.sla, chunked: true },
  'no-cves': {
    label: "chunked without the index on the issues' CVEs (issues_cves)",
    drop: INDEXES.cves,
    chunked: true,
  },
  copy: { label: 'copy+merge: COPY into a temporary table, one insert … select' },
  'no-trigger': { label: 'copy+merge without the count trigger', drop: INDEXES.trigger },
  'no-gin': { label: 'copy+merge without the GIN index on cwes', drop: INDEXES.gin },
  'no-pkey': { label: 'copy+merge without the primary key', drop: INDEXES.pkey },
  'no-identity': { label: 'copy+merge without the identity index', drop: INDEXES.identity },
  'no-first': { label: 'copy+merge without the two first_detected_at indexes', drop: INDEXES.first },
  'no-composites': {
    label: 'copy+merge without the four (project|check|layer|tool, status…) indexes',
    drop: INDEXES.composites,
  },
  'no-partial': { label: 'copy+merge without the five partial indexes (all NULL here)', drop: INDEXES.partial },
  bare: { label: 'copy+merge into the bare heap (no index, no trigger)', drop: Object.values(INDEXES).flat() },
};

const at = new Date().toISOString();
const rows: NewIssue[] = Array.from({ length: N }, (_, i) => ({
  id: randomUUID(),
  projectCode: 'bench',
  scopeId: '',
  matchKey: createHash('sha256').update(`k${i}`).digest('hex'),
  layerId: 'layer-1',
  checkId: 'check-1',
  scanId: 'scan-1',
  firstScanId: 'scan-1',
  toolId: 't',
  toolName: 'Semgrep',
  scanner: 'Semgrep',
  category: 'sast',
  title: `Problem of rule.${i % 300}`,
  description: `Description of rule.${i % 300} in src/module${i % 4000}/file${i % 97}.py`,
  severity: SEVERITIES[i % 5],
  severityRank: 5 - (i % 5),
  ruleId: `rule.${i % 300}`,
  statusId: 1,
  cve: i % CVE_EVERY === 0 ? `CVE-2025-${10000 + (i % 5000)}` : null,
  vulnerabilityIds: i % CVE_EVERY === 0 ? [`CVE-2025-${10000 + (i % 5000)}`] : [],
  cwes: [79 + (i % 40)],
  libName: null,
  libVersion: null,
  filePath: `src/module${i % 4000}/file${i % 97}.py`,
  startLine: 1 + (i % 500),
  cvssV2: null,
  cvssV3: i % 3 === 0 ? (i % 100) / 10 : null,
  cvssV4: null,
  cvssUnknown: null,
  cvssMax: i % 3 === 0 ? (i % 100) / 10 : null,
  epss: null,
  knownExploited: false,
  fingerprint: createHash('sha256').update(`f${i}`).digest('hex'),
  occurrences: 1,
  findings: 1,
  suppression: null,
  securityRuleId: null,
  firstDetectedAt: at,
  lastDetectedAt: at,
  updatedAt: at,
}));
const FIELDS = Object.keys(rows[0]) as (keyof NewIssue)[];
/** The column of each field: its name in snake_case. */
const COLUMNS = FIELDS.map((f) => f.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`));
/** The columns of issue_records (scan_id and the detection times are in issue_detection_state). */
const RECORD_COLUMNS = COLUMNS.filter((c) => !['scan_id', 'last_detected_at', 'updated_at'].includes(c));

async function copyAndMerge(trx: Trx, pid: number): Promise<string> {
  await trx.raw('create temp table stage (like issues including defaults) on commit drop');
  const c0 = backendCpu(pid) ?? NaN;
  const connection = await (
    trx.client as { acquireConnection(): Promise<{ query(stream: unknown): NodeJS.WritableStream }> }
  ).acquireConnection();
  const lines = function* () {
    for (let i = 0; i < rows.length; i += 1000)
      yield rows
        .slice(i, i + 1000)
        .map((r) => `${FIELDS.map((f) => copyText(r[f])).join('\t')}\n`)
        .join('');
  };
  await pipeline(Readable.from(lines()), connection.query(copyFrom(`copy stage (${COLUMNS.join(', ')}) from stdin`)));
  const c1 = backendCpu(pid) ?? NaN;
  await trx.raw(
    `with records as (insert into issue_records (${RECORD_COLUMNS.join(', ')}) select ${RECORD_COLUMNS.join(', ')} from stage)
     insert into issue_detection_state (issue_id, scan_id, last_detected_at, updated_at) select id, scan_id, last_detected_at, updated_at from stage`,
  );
  return `COPY ${(c1 - c0).toFixed(2)} s, insert ${((backendCpu(pid) ?? NaN) - c1).toFixed(2)} s`;
}

async function main() {
  const base = process.env.BULWARK_TEST_PG_URL;
  if (!base) throw new Error('BULWARK_TEST_PG_URL is not set: eval "$(bash deploy/local/infra.sh env)"');
  const url = new URL(base);
  url.pathname = `/bulwark_bench_insert_${Date.now()}`;
  const db = await openDatabase({ service: 'issues-bench', url: url.toString(), dataDir: '/tmp', migrations });
  try {
    // The project has SLA days, so the issue_sla trigger dates every row as it would in production.
    await db.raw(`insert into sla_project_days (project_code, days_critical, days_high, days_medium, days_low, days_info,
      known_exploited_days) values ('bench', 7, 30, 90, 180, 365, 14)`);
    console.log(
      `load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}; ${N} rows`,
    );
    console.log('| variant | wall | backend CPU | of which |\n|---|---|---|---|');
    for (const key of (process.env.BENCH_VARIANTS ?? Object.keys(VARIANTS).join(',')).split(',')) {
      const v = VARIANTS[key];
      if (!v) throw new Error(`unknown variant ${key}`);
      await db.raw('truncate issue_records, issue_detection_state, issue_counts, issue_history cascade');
      await db.raw('vacuum analyze issue_records');
      const started = process.hrtime.bigint();
      let line = '';
      await db
        .transaction(async (trx) => {
          const pid: number = (await trx.raw('select pg_backend_pid() as pid')).rows[0].pid;
          for (const statement of v.drop ?? []) await trx.raw(statement);
          const c0 = backendCpu(pid) ?? NaN;
          let parts = '';
          if (v.chunked)
            for (let i = 0; i < rows.length; i += 2000) await issueStore.insertMany(trx, rows.slice(i, i + 2000));
          else parts = await copyAndMerge(trx, pid);
          line = `| ${v.label} | ${(Number(process.hrtime.bigint() - started) / 1e9).toFixed(2)} s | ${((backendCpu(pid) ?? NaN) - c0).toFixed(2)} s | ${parts} |`;
          // Every variant starts from the same empty table and the whole schema.
          throw new Error('rollback');
        })
        .catch((err: Error) => {
          if (err.message !== 'rollback') throw err;
        });
      console.log(line);
    }
  } finally {
    await dropDatabase(db, base, url);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
