/**
 * Issues service benchmark on a real PostgreSQL (BULWARK_TEST_PG_URL): ingestion of a 100,000-finding
 * scan (new, then unchanged), then list and count queries with 1,000,000 issues stored, with their
 * query plans. Run: `npx tsx bench/issues/bench.ts` after `eval "$(bash deploy/local/infra.sh env)"`.
 */
import { createHash, randomUUID } from 'node:crypto';
import os from 'node:os';
import type { Finding } from '@bulwark/findings';
import { createLogger, openDatabase } from '@bulwark/platform';
import { SCAN_EVENTS } from '@bulwark/contracts';
import { Ingestion } from '../../services/issues/src/ingestion/ingestion';
import type { ScanCompleted } from '../../services/issues/src/ingestion/input';
import { migrations } from '../../services/issues/src/migrations';
import { GateEvaluation } from '../../services/issues/src/gate-evaluation';
import { IssueEnrichment } from '../../services/issues/src/intel/enrichment';
import { SlaProjects } from '../../services/issues/src/sla/sla-projects';
import { issueStore, SortKey } from '../../services/issues/src/store/issues/issue-store';
import { backendCpu } from '../postgres-backend';
import { dropDatabase, fillIssues, p95, QUERIES, settle } from './dataset';

const FINDINGS = Number(process.env.BENCH_FINDINGS ?? 100_000);
const TOTAL_ISSUES = Number(process.env.BENCH_TOTAL_ISSUES ?? 1_000_000);
const RUNS = 40;
const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;

function finding(i: number): Finding {
  const rule = `rule.${i % 300}`;
  const file = `src/module${i % 4000}/file${i % 97}.py`;
  return {
    tool: 'Semgrep',
    toolCategory: 'sast',
    format: 'semgrep',
    ruleId: rule,
    title: `Problem of ${rule}`,
    description: `Description of ${rule} in ${file}`,
    severity: SEVERITIES[i % 5],
    tags: [],
    cwes: [79 + (i % 40)],
    vulnerabilityIds: i % 10 === 0 ? [`CVE-2025-${10000 + (i % 5000)}`] : [],
    references: [],
    endpoints: [],
    toolFingerprints: {},
    fingerprint: createHash('sha256').update(`f${i}`).digest('hex'),
    occurrences: 1,
    filePath: file,
    startLine: 1 + (i % 500),
    snippet: `call_${i}(x)`,
    cvssV3: i % 3 === 0 ? { vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', score: (i % 100) / 10 } : undefined,
  };
}

const findings = Array.from({ length: FINDINGS }, (_, i) => finding(i));

/** StreamFindings as the scanning service serves it: JSON per finding, in chunks. */
const scanning = {
  async getScan(req: { scanResultId: string }) {
    return { id: req.scanResultId, state: 'completed' };
  },
  async *streamFindings(req: { chunkSize: number }) {
    for (let i = 0; i < findings.length; i += req.chunkSize) {
      const chunk = findings.slice(i, i + req.chunkSize);
      yield { lastSeq: i + chunk.length, findingsJson: chunk.map((f) => JSON.stringify(f)) };
    }
  },
};
const catalog = {
  async getTool() {
    return { id: 't', name: 'Semgrep' };
  },
  async getProject() {
    return { code: 'bench', tags: [] };
  },
};

async function main() {
  const base = process.env.BULWARK_TEST_PG_URL;
  if (!base) throw new Error('BULWARK_TEST_PG_URL is not set: eval "$(bash deploy/local/infra.sh env)"');
  const url = new URL(base);
  url.pathname = `/bulwark_bench_issues_${Date.now()}`;
  const db = await openDatabase({ service: 'issues-bench', url: url.toString(), dataDir: '/tmp', migrations });
  const log = createLogger('bench');
  const ingestion = new Ingestion({
    db,
    scanning: scanning as never,
    catalog: catalog as never,
    gates: new GateEvaluation(),
    intel: new IssueEnrichment(),
    sla: new SlaProjects(),
    log,
    chunkSize: Number(process.env.ISSUES_INGEST_CHUNK ?? 2000),
  });
  const scan = (id: string, digest?: string): ScanCompleted => ({
    scan_result_id: id,
    check_id: 'check-1',
    layer_id: 'layer-1',
    project_code: 'bench',
    findings_count: FINDINGS,
    tool_id: 't',
    findings_digest: digest,
  });
  const ingest = async (label: string, id: string, digest?: string) => {
    const started = process.hrtime.bigint();
    const cpu = process.cpuUsage();
    let backend = '';
    const event = {
      id: randomUUID(),
      type: SCAN_EVENTS.scanCompleted,
      topic: 't',
      key: 'check-1',
      occurredAt: '',
      payload: scan(id, digest),
      headers: {},
    };
    // As the consumer runs it: the reads (the findings spooled) before the transaction, then the writes.
    const input = await ingestion.read(event);
    try {
      await db.transaction(async (trx) => {
        // The CPU time of the transaction's PostgreSQL backend, when the server runs on this machine:
        // on a shared machine CPU seconds say more than wall time.
        const pid: number = (await trx.raw('select pg_backend_pid() as pid')).rows[0].pid;
        const before = backendCpu(pid);
        await ingestion.write(event, trx, input);
        const after = backendCpu(pid);
        backend = before === undefined || after === undefined ? 'n/a' : `${(after - before).toFixed(2)} s`;
      });
    } finally {
      await ingestion.release(input);
    }
    const s = Number(process.hrtime.bigint() - started) / 1e9;
    const used = process.cpuUsage(cpu);
    console.log(
      `| ${label} | ${FINDINGS} | ${s.toFixed(2)} s | ${Math.round(FINDINGS / s)} | ${((used.user + used.system) / 1e6).toFixed(2)} s | ${backend} |`,
    );
  };
  console.log(
    `load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  console.log(
    '| ingestion | findings | time | findings/s | CPU of this process (the stub included) | CPU of the PostgreSQL backend |\n|---|---|---|---|---|---|',
  );
  // The scanning service's digest of the findings: equal digests mark an unchanged re-import.
  await ingest('new scan into an empty project', randomUUID(), 'same-findings');
  await ingest('the same findings again (all unchanged), re-detected set-wise', randomUUID(), 'same-findings');
  await ingest('the same findings again without a digest, matched one by one', randomUUID());

  if (process.env.BENCH_INGEST_ONLY === '1') return dropDatabase(db, base, url);
  // Fill up to the target with issues of 99 other projects, written directly (the ingestion path is measured above).
  const missing = TOTAL_ISSUES - FINDINGS;
  const fillStart = Date.now();
  await fillIssues(db, missing);
  await settle(db);
  const groups = (await db('issue_counts').count({ n: '*' }))[0].n;
  console.log(
    `\nfilled ${missing} more issues in ${((Date.now() - fillStart) / 1000).toFixed(1)} s; ${(await db('issues').count({ n: '*' }))[0].n} stored in ${groups} count groups\n`,
  );

  const filters = QUERIES.map((q) => [q.label, q.filter] as const);
  const order = { sort: 'first_detected_at' as SortKey, desc: true, limit: 50 };
  console.log(
    '| query | first page p95 | deep page (page 200, keyset) p95 | deep page (page 200, offset) p95 | count p95 | page + total (as GET /issues) p95 | rows |\n|---|---|---|---|---|---|---|',
  );
  const plans: string[] = [];
  for (const [label, f] of filters) {
    // The cursor of page 200, found once by walking (what a client paging with next_cursor holds).
    let cursor: string | undefined;
    for (let page = 1; page < 200; page++)
      cursor = (await issueStore.list(db, f, { ...order, page: 1, cursor })).nextCursor ?? undefined;
    const time = async (fn: () => Promise<unknown>) => {
      const xs: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const t0 = process.hrtime.bigint();
        await fn();
        xs.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
      return `${p95(xs).toFixed(1)} ms`;
    };
    const first = await time(() => issueStore.list(db, f, { ...order, page: 1 }));
    const deep = await time(() => issueStore.list(db, f, { ...order, page: 1, cursor }));
    const offset = await time(() => issueStore.list(db, f, { ...order, page: 200 }));
    const count = await time(() => issueStore.count(db, f));
    const endpoint = await time(() =>
      Promise.all([issueStore.list(db, f, { ...order, page: 1 }), issueStore.count(db, f)]),
    );
    console.log(
      `| ${label} | ${first} | ${deep} | ${offset} | ${count} | ${endpoint} | ${await issueStore.count(db, f)} |`,
    );
    const explain = async (q: { toSQL(): { sql: string; bindings: readonly unknown[] } }) => {
      const { sql, bindings } = q.toSQL();
      return (await db.raw(`explain (analyze, costs off, timing on, summary on) ${sql}`, bindings as never)).rows
        .map((r: Record<string, string>) => r['QUERY PLAN'])
        .join('\n');
    };
    plans.push(`-- ${label}: first page\n${await explain(issueStore.listQuery(db, f, { ...order, page: 1 }))}`);
    plans.push(
      `-- ${label}: deep page by keyset\n${await explain(issueStore.listQuery(db, f, { ...order, page: 1, cursor }))}`,
    );
    plans.push(`-- ${label}: count\n${await explain(issueStore.countQuery(db, f))}`);
  }
  console.log(`\n${plans.join('\n\n')}`);
  await dropDatabase(db, base, url);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
