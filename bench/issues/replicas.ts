/**
 * Ingestion end to end in the scaled mode, with 1 and then 2 replicas of the issues service: reports
 * uploaded through the gateway until their findings are issues, then the time to recover when the
 * replica ingesting a large report is SIGKILLed. Run: `npm run build`, then
 * `eval "$(bash deploy/local/infra.sh env)" && npx tsx bench/issues/replicas.ts`.
 * BENCH_SCANS (8) reports of BENCH_FINDINGS_PER_SCAN (12,500) findings each, one project each;
 * BENCH_KILL_FINDINGS (100,000) for the kill; KAFKA_SESSION_TIMEOUT_MS (15,000, the default).
 */
import knex, { Knex } from 'knex';
import {
  ADMIN_PASSWORD,
  Api,
  infra,
  ScaledSystem,
  startGitServer,
  startScaledMode,
  SystemUnderTest,
  GitServer,
  type Json,
} from '@bulwark/testkit';
import { MANUAL_TOOL_TYPE, scanSetup } from '../../services/scanning/test/scanning.suite';
import { largeReport } from '../../services/issues/test/issues.suite';

const SCANS = Number(process.env.BENCH_SCANS ?? 8);
const PER_SCAN = Number(process.env.BENCH_FINDINGS_PER_SCAN ?? 12_500);
const KILL_FINDINGS = Number(process.env.BENCH_KILL_FINDINGS ?? 100_000);
const SESSION_TIMEOUT_MS = process.env.KAFKA_SESSION_TIMEOUT_MS ?? '15000';
const PARTITIONS = '4';

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Bench {
  sys: ScaledSystem;
  admin: Api;
  git: GitServer;
  /** A new project with an uploadable check: its id. */
  check(): Promise<string>;
  upload(check: string, report: string): Promise<string>;
  ingested(scan: string, count: number): Promise<void>;
  ingestedScans(process: string): Promise<number>;
  stop(): Promise<void>;
}

async function start(replicas: 1 | 2): Promise<Bench> {
  const i = infra();
  if (!i.pgUrl || !i.redisUrl || !i.kafkaBrokers)
    throw new Error('PostgreSQL, Redis and Kafka are needed: eval "$(bash deploy/local/infra.sh env)"');
  const sys = await startScaledMode(
    { ...i, pgUrl: i.pgUrl, redisUrl: i.redisUrl, kafkaBrokers: i.kafkaBrokers, scannerPath: i.scannerPath ?? '' },
    {
      KAFKA_PARTITIONS: PARTITIONS,
      KAFKA_SESSION_TIMEOUT_MS: SESSION_TIMEOUT_MS,
      RATE_LIMIT_PER_TOKEN_PER_MINUTE: '1000000',
      LOG_LEVEL: 'warn',
    },
    // One replica in a process of its own too, so both runs differ only in the number of issues processes.
    replicas === 1 ? { ownProcess: ['issues'] } : { replicas: { issues: 2 } },
  );
  const admin = sys.api.as(await sys.api.login('admin', ADMIN_PASSWORD));
  const git = await startGitServer();
  git.addRepository('app', { 'app.py': 'print(1)\n' });
  const t: SystemUnderTest = { mode: 'scaled', sys, admin, anon: sys.api };
  const ok = (res: { status: number; body: Json }, what: string) => {
    if (res.status !== 200) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  for (;;) {
    const g = await sys.consumerGroup('issues.ingestion');
    if (g.state === 'Stable' && g.members === replicas) break;
    await sleep(200);
  }
  return {
    sys,
    admin,
    git,
    async check() {
      const e = await scanSetup(t, git, 'app', [MANUAL_TOOL_TYPE]);
      return ok(
        await admin.post('/api/v1/check', {
          layer_id: e.layerId,
          security_tool_id: e.tools[0],
          scan_source_id: e.sourceId,
          source_auth: { branch_name: 'main' },
          run_scan_task: { type: 'manual' },
        }),
        'check',
      ).id;
    },
    async upload(check, report) {
      return ok(
        await admin
          .withHeaders({ 'content-type': 'application/json' })
          .request('POST', `/api/v1/check/${check}/results`, undefined, report),
        'upload',
      ).scan_result_id;
    },
    async ingested(scan, count) {
      for (;;) {
        const res = await admin.get(`/api/v1/issues/count?filter[scan]=${scan}`);
        if (res.status === 200 && res.body.count === count) return;
        await sleep(200);
      }
    },
    async ingestedScans(process) {
      const text = await (await fetch(`${sys.processUrl(process)}/metrics`)).text();
      return Number(/^bulwark_ingested_scans_total (\S+)$/m.exec(text)?.[1] ?? 0);
    },
    async stop() {
      await git.close();
      await sys.stop();
    },
  };
}

/** Uploads SCANS reports at once, each into its own project, and times them until all are issues. */
async function throughput(b: Bench, processes: string[]): Promise<string> {
  const report = largeReport(PER_SCAN);
  const checks = await Promise.all(Array.from({ length: SCANS }, () => b.check()));
  const started = Date.now();
  const scans = await Promise.all(checks.map((c) => b.upload(c, report)));
  const uploaded = Date.now() - started;
  await Promise.all(scans.map((s) => b.ingested(s, PER_SCAN)));
  const ms = Date.now() - started;
  const split = await Promise.all(processes.map((p) => b.ingestedScans(p)));
  const total = SCANS * PER_SCAN;
  return `| ${processes.length} | ${SCANS} × ${PER_SCAN.toLocaleString('en')} | ${seconds(uploaded)} | ${seconds(ms)} | ${Math.round(total / (ms / 1000)).toLocaleString('en')} | ${split.join(' / ')} |`;
}

/** The replicas' transactions that have written, by process (each names itself to PostgreSQL). */
async function writers(db: Knex): Promise<string[]> {
  return (
    await db.raw(
      "select application_name from pg_stat_activity where datname = current_database() and backend_xid is not null and application_name like 'issues-%'",
    )
  ).rows.map((r: { application_name: string }) => r.application_name);
}

async function recovery(b: Bench): Promise<string[]> {
  const report = largeReport(KILL_FINDINGS);
  const db = knex({ client: 'pg', connection: b.sys.env.ISSUES_DATABASE_URL, pool: { min: 0, max: 1 } });
  try {
    let started = Date.now();
    await b.ingested(await b.upload(await b.check(), report), KILL_FINDINGS);
    const plain = Date.now() - started;

    started = Date.now();
    const scan = await b.upload(await b.check(), report);
    let victim: string | undefined;
    while (!(victim = (await writers(db))[0])) await sleep(100);
    const killedAfter = Date.now() - started;
    await b.sys.stopOne(victim, 'SIGKILL');
    const killedAt = Date.now();
    const survivor = victim === 'issues-1' ? 'issues-2' : 'issues-1';
    while (!(await writers(db)).includes(survivor)) await sleep(100);
    const takeover = Date.now() - killedAt;
    await b.ingested(scan, KILL_FINDINGS);
    const done = Date.now();
    await b.sys.startOne(victim);
    return [
      `| uninterrupted, upload to issues | ${seconds(plain)} |`,
      `| killed: upload to the kill (the victim writing) | ${seconds(killedAfter)} |`,
      `| killed: the kill to the survivor writing (takeover) | ${seconds(takeover)} |`,
      `| killed: the kill to all issues stored (recovery) | ${seconds(done - killedAt)} |`,
      `| killed: upload to issues | ${seconds(done - started)} |`,
    ];
  } finally {
    await db.destroy();
  }
}

async function main() {
  console.log(
    `${SCANS} reports of ${PER_SCAN} findings uploaded at once, one project each; ${PARTITIONS} partitions; session timeout ${SESSION_TIMEOUT_MS} ms\n`,
  );
  console.log(
    '| issues replicas | reports × findings | all uploads answered | all ingested | findings/s | scans ingested per replica |\n|---|---|---|---|---|---|',
  );
  const one = await start(1);
  try {
    console.log(await throughput(one, ['issues']));
  } finally {
    await one.stop();
  }
  const two = await start(2);
  try {
    console.log(await throughput(two, ['issues-1', 'issues-2']));
    console.log(
      `\n${KILL_FINDINGS.toLocaleString('en')} findings, 2 replicas of issues, one SIGKILLed while it writes:\n\n| run | time |\n|---|---|`,
    );
    console.log((await recovery(two)).join('\n'));
  } finally {
    await two.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
