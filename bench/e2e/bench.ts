/**
 * End to end through the gateway: a synthetic SARIF report (`bench/generate.js`) uploaded to a check
 * whose layer has a quality gate, timed from the upload request's start until `GET /issues/count`
 * shows every issue of the scan and the scan result carries its gate verdict; then the same report
 * again (all unchanged, the same bytes), a rescan (the same findings in new bytes: another run id and
 * start time) and a rescan with 1 % of the findings changed (gone, new and on moved lines). Both modes: scaled (separate processes on the PostgreSQL, Kafka and Redis of
 * deploy/local/infra.sh) and TARGET=all (one process, embedded). Each run uses a fresh project.
 * Next to the figures: the floor measured in the same run, JSON.parse of the file plus a COPY of its
 * rows into PostgreSQL. Run: `bash bench/e2e/run.sh` (BENCH_MODES, BENCH_RUNS, BENCH_FINDINGS, BENCH_CASES, BENCH_CPU_PROF, BENCH_MEMORY, BENCH_ENV).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { Client } from 'pg';
import { ADMIN_PASSWORD, infra, startAllModeProcess, startScaledMode } from '@bulwark/testkit';
import { newCheck, Upload, uploadAndWait } from './upload';

const MODES = (process.env.BENCH_MODES ?? 'scaled,all').split(',');
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const FINDINGS = Number(process.env.BENCH_FINDINGS ?? 100_000);
// BENCH_CASES=new: only the new scan's upload (the memory target is about one upload, not four).
const ONLY_NEW = process.env.BENCH_CASES === 'new';
// BENCH_OWN_PROCESS=scanning: those services run in a process of their own (scaled mode), so their memory is told apart.
const OWN_PROCESS = (process.env.BENCH_OWN_PROCESS ?? '').split(',').filter(Boolean);
// The client polls a few times a second with one token for minutes. BENCH_CPU_PROF=<dir>: every
// process of the system writes a CPU profile there when it stops; BENCH_MEMORY=<dir>: its memory's
// peaks (bench/e2e/memory.js); BENCH_NODE_OPTIONS: options for every process (V8's heap settings, say).
// The processes write into these folders when they exit, so they must exist by then.
for (const dir of [process.env.BENCH_CPU_PROF, process.env.BENCH_MEMORY, process.env.BENCH_LOGS])
  if (dir) fs.mkdirSync(dir, { recursive: true });
const PRELOADS = [
  ...(process.env.BENCH_CPU_PROF ? [path.join(__dirname, 'profile.js')] : []),
  ...(process.env.BENCH_MEMORY ? [path.join(__dirname, 'memory.js')] : []),
];
const SETTINGS: Record<string, string> = {
  RATE_LIMIT_PER_TOKEN_PER_MINUTE: '1000000',
  // BENCH_LOG_LEVEL=info with BENCH_LOGS=<dir>: the TARGET=all process's log is kept there (the phases of its ingestions).
  LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
  ...(PRELOADS.length || process.env.BENCH_NODE_OPTIONS
    ? {
        NODE_OPTIONS: [...PRELOADS.map((p) => `--require ${p}`), process.env.BENCH_NODE_OPTIONS ?? ''].join(' ').trim(),
      }
    : {}),
  // BENCH_ENV='NAME=value NAME=value': more environment for every process (MALLOC_ARENA_MAX, say).
  ...Object.fromEntries(
    (process.env.BENCH_ENV ?? '')
      .split(' ')
      .filter(Boolean)
      .map((kv) => {
        const m = /^(\w+)=(.*)$/.exec(kv);
        if (!m) throw new Error(`BENCH_ENV: "${kv}" is not NAME=value`);
        return [m[1], m[2]];
      }),
  ),
  ...(process.env.BENCH_CPU_PROF ? { BENCH_CPU_PROF_DIR: path.resolve(process.env.BENCH_CPU_PROF) } : {}),
  ...(process.env.BENCH_MEMORY ? { BENCH_MEMORY_DIR: path.resolve(process.env.BENCH_MEMORY) } : {}),
};

interface Run {
  newS: number;
  unchangedS: number;
  rescanS: number;
  changedS: number;
  floorS: number;
  rssGrowthMb: number;
  /** CPU seconds of the system's processes (every thread, not the databases) during the new scan's upload and ingestion. */
  newCpuS: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Resident and peak resident memory of a process, in MB (Linux /proc). */
function memory(pid: number): { rss: number; hwm: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
}

/** CPU seconds a process has used, user and system, all its threads (Linux /proc, clock ticks of 1/100 s). */
function cpuSeconds(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** JSON.parse of the file, then its results as rows COPYed into a temporary table (psql, one session). */
async function floor(file: string, pgUrl: string): Promise<number> {
  const started = process.hrtime.bigint();
  const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
  const esc = (v: unknown) =>
    String(v).replace(/[\\\t\n\r]/g, (c) => ({ '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' })[c]!);
  const psql = spawn(
    'psql',
    [
      pgUrl,
      '-q',
      '-v',
      'ON_ERROR_STOP=1',
      '-c',
      'create temp table f (fingerprint text, rule text, level text, uri text, line int, message text, snippet text)',
      '-c',
      'copy f from stdin',
    ],
    { stdio: ['pipe', 'inherit', 'inherit'] },
  );
  const done = new Promise<void>((resolve, reject) =>
    psql.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`psql exited with ${code}`)))),
  );
  const rows = function* () {
    for (const r of doc.runs[0].results) {
      const loc = r.locations[0].physicalLocation;
      yield `${[r.partialFingerprints.primaryLocationLineHash, r.ruleId, r.level, loc.artifactLocation.uri, loc.region.startLine, r.message.text, loc.region.snippet.text].map(esc).join('\t')}\n`;
    }
  };
  Readable.from(rows()).pipe(psql.stdin);
  await done;
  return Number(process.hrtime.bigint() - started) / 1e9;
}

async function queryOne<T>(url: string, sql: string, params: unknown[]): Promise<T | undefined> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows[0] as T | undefined;
  } finally {
    await client.end();
  }
}

/**
 * Where the time after the upload's answer went (scaled mode), from the services' own rows: when
 * scanning's transaction that wrote scan.completed began, when its relay marked it published (after
 * Kafka's acknowledgement), when the issues consumer's transaction began (its inbox row), when the
 * verdict reached scanning (inside that transaction), and when issues' relay published the
 * issues.ingested event of the same transaction (so shortly after its commit). PostgreSQL's now() is
 * a transaction's start, so each mark is the start of the step it names.
 */
async function phases(env: Record<string, string>, up: Upload): Promise<string> {
  const at = (t: Date | null | undefined) => (t ? ((t.getTime() - up.startedAt) / 1000).toFixed(2) : '?');
  const completed = await queryOne<{ id: string; created_at: Date; published_at: Date | null }>(
    env.SCANNING_DATABASE_URL,
    "select id, created_at, published_at from bulwark_outbox where type = 'scan.completed' and payload->>'scan_result_id' = $1",
    [up.scanId],
  );
  const verdict = await queryOne<{ updated_at: Date }>(
    env.SCANNING_DATABASE_URL,
    'select updated_at from scans where id = $1',
    [up.scanId],
  );
  const consumed = completed
    ? await queryOne<{ processed_at: Date }>(
        env.ISSUES_DATABASE_URL,
        "select processed_at from bulwark_inbox where consumer = 'issues.ingestion' and message_id = $1",
        [completed.id],
      )
    : undefined;
  const ingested = await queryOne<{ published_at: Date | null }>(
    env.ISSUES_DATABASE_URL,
    "select published_at from bulwark_outbox where type = 'issues.ingested' and payload->>'scan_result_id' = $1",
    [up.scanId],
  );
  return `      phases (s from the request): answered ${up.answeredS.toFixed(2)}, scan.completed written ${at(completed?.created_at)}, published ${at(completed?.published_at)}, consumer began ${at(consumed?.processed_at)}, verdict at scanning ${at(verdict?.updated_at)}, issues.ingested published ${at(ingested?.published_at)}, seen ${up.seconds.toFixed(2)}`;
}

interface Reports {
  /** The report of every new scan, uploaded twice (the second time byte for byte). */
  base: string;
  /** The same findings in new bytes. */
  rescan: string;
  /** The rescan with 1 % of the findings changed. */
  changed: string;
}

async function benchMode(mode: string, reports: Reports, pgUrl: string): Promise<Run[]> {
  const i = infra();
  const t0 = Date.now();
  const sys =
    mode === 'scaled'
      ? await startScaledMode({ ...i, scannerPath: i.scannerPath ?? '' } as Required<typeof i>, SETTINGS, {
          ownProcess: OWN_PROCESS,
        })
      : await startAllModeProcess(SETTINGS);
  console.log(`${mode}: ready after ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  const pids = 'children' in sys ? sys.children.map((c) => c.proc.pid!) : [sys.pid];
  const names = 'children' in sys ? sys.children.map((c) => c.name) : ['all'];
  try {
    const token = await sys.api.login('admin', ADMIN_PASSWORD);
    const api = sys.api.as(token);
    const runs: Run[] = [];
    for (let n = 0; n < RUNS; n++) {
      const checkId = await newCheck(api);
      const before = pids.map((p) => memory(p).rss);
      const cpuBefore = pids.map(cpuSeconds);
      const fresh = await uploadAndWait(api, token, checkId, reports.base);
      const cpu = pids.map((p, k) => cpuSeconds(p) - cpuBefore[k]);
      const newCpuS = cpu.reduce((sum, s) => sum + s, 0);
      const others = ONLY_NEW
        ? []
        : [
            await uploadAndWait(api, token, checkId, reports.base),
            await uploadAndWait(api, token, checkId, reports.rescan),
            await uploadAndWait(api, token, checkId, reports.changed),
          ];
      if ('env' in sys) for (const up of [fresh, ...others]) console.log(await phases(sys.env, up));
      const [newS, unchangedS, rescanS, changedS] = [fresh, ...others].map((up) => up.seconds);
      // Growth of the peak over the resident size before this run, summed over the processes.
      const growth = pids.map((p, k) => Math.max(0, memory(p).hwm - before[k]));
      const rssGrowthMb = growth.reduce((sum, g) => sum + g, 0);
      const floorS = await floor(reports.base, pgUrl);
      runs.push({ newS, unchangedS, rescanS, changedS, floorS, rssGrowthMb, newCpuS });
      const laterCases = ONLY_NEW
        ? ''
        : `unchanged ${unchangedS.toFixed(2)} s, rescan ${rescanS.toFixed(2)} s, 1 % changed ${changedS.toFixed(2)} s, `;
      console.log(
        `  run ${n + 1} (load ${os.loadavg()[0].toFixed(1)}): new ${newS.toFixed(2)} s (${newCpuS.toFixed(1)} CPU-s: ${names.map((m, k) => `${m} ${cpu[k].toFixed(1)}`).join(', ')}), ${laterCases}floor ${floorS.toFixed(2)} s, peak RSS growth ${rssGrowthMb.toFixed(0)} MB (${names.map((m, k) => `${m} ${growth[k].toFixed(0)}`).join(', ')})`,
      );
    }
    return runs;
  } finally {
    if (process.env.BENCH_LOGS && 'dataDir' in sys)
      fs.copyFileSync(path.join(sys.dataDir, 'all.log'), path.join(process.env.BENCH_LOGS, `all-${Date.now()}.log`));
    await sys.stop();
  }
}

async function main() {
  const i = infra();
  if (!i.pgUrl)
    throw new Error(
      'PostgreSQL is needed (the floor, and the scaled mode with Kafka and Redis): eval "$(bash deploy/local/infra.sh env)"',
    );
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-e2e-'));
  try {
    for (const variant of ONLY_NEW ? [[]] : [[], ['rescan:1'], ['changed:2']])
      await new Promise<void>((resolve, reject) =>
        spawn(process.execPath, [path.join(__dirname, '../generate.js'), dir, String(FINDINGS), ...variant], {
          stdio: ['ignore', 'ignore', 'inherit'],
        }).on('exit', (c) => (c === 0 ? resolve() : reject(new Error(`generate.js exited with ${c}`)))),
      );
    const reports: Reports = {
      base: path.join(dir, 'sarif-100k.sarif'),
      rescan: path.join(dir, 'sarif-100k-rescan-1.sarif'),
      changed: path.join(dir, 'sarif-100k-changed-2.sarif'),
    };
    console.log(
      `report: ${(fs.statSync(reports.base).size / 2 ** 20).toFixed(1)} MiB, ${FINDINGS} results; ${RUNS} runs per mode\n`,
    );
    const table: string[] = [];
    for (const mode of MODES) {
      const runs = await benchMode(mode, reports, i.pgUrl);
      const [n, u, r, c, f, cpu] = (['newS', 'unchangedS', 'rescanS', 'changedS', 'floorS', 'newCpuS'] as const).map(
        (k) => median(runs.map((run) => run[k])),
      );
      const rss = Math.max(...runs.map((run) => run.rssGrowthMb));
      const timed = (s: number) => (s === undefined ? '— | —' : `${s.toFixed(2)} s | ${(s / f).toFixed(1)}`);
      table.push(
        `| ${mode} | ${timed(n)} | ${cpu.toFixed(1)} s | ${Math.round(FINDINGS / n)} | ${timed(u)} | ${timed(r)} | ${timed(c)} | ${f.toFixed(2)} s | ${rss.toFixed(0)} MB |`,
      );
    }
    console.log(
      `\n| mode (medians) | new: end to end | × floor | new: CPU | findings/s | unchanged (same bytes) | × floor | rescan (new bytes) | × floor | rescan, 1 % changed | × floor | floor | peak RSS growth (max) |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n${table.join('\n')}`,
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
