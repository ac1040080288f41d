/**
 * End to end through the gateway: a synthetic SARIF report (`bench/generate.js`) uploaded to a check
 * whose layer has a quality gate, timed from the upload request's start until `GET /issues/count`
 * shows every issue of the scan and the scan result carries its gate verdict; then the same report
 * again (all unchanged). Both modes: scaled (separate processes on the PostgreSQL, Kafka and Redis of
 * deploy/local/infra.sh) and TARGET=all (one process, embedded). Each run uses a fresh project.
 * Next to the figures: the floor measured in the same run, JSON.parse of the file plus a COPY of its
 * rows into PostgreSQL. Run: `bash bench/e2e/run.sh` (BENCH_MODES, BENCH_RUNS, BENCH_FINDINGS, BENCH_CPU_PROF, BENCH_MEMORY).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { Client } from 'pg';
import {
  ADMIN_PASSWORD,
  Api,
  infra,
  type Json,
  startAllModeProcess,
  startScaledMode,
  uniqueSuffix,
} from '@bulwark/testkit';

const MODES = (process.env.BENCH_MODES ?? 'scaled,all').split(',');
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const FINDINGS = Number(process.env.BENCH_FINDINGS ?? 100_000);
// BENCH_OWN_PROCESS=scanning: those services run in a process of their own (scaled mode), so their memory is told apart.
const OWN_PROCESS = (process.env.BENCH_OWN_PROCESS ?? '').split(',').filter(Boolean);
const MANUAL_TOOL_TYPE = 20;
// The client polls a few times a second with one token for minutes. BENCH_CPU_PROF=<dir>: every
// process of the system writes a CPU profile there when it stops; BENCH_MEMORY=<dir>: its memory's
// peaks (bench/e2e/memory.js); BENCH_NODE_OPTIONS: options for every process (V8's heap settings, say).
// The processes write into these folders when they exit, so they must exist by then.
for (const dir of [process.env.BENCH_CPU_PROF, process.env.BENCH_MEMORY])
  if (dir) fs.mkdirSync(dir, { recursive: true });
const PRELOADS = [
  ...(process.env.BENCH_CPU_PROF ? [path.join(__dirname, 'profile.js')] : []),
  ...(process.env.BENCH_MEMORY ? [path.join(__dirname, 'memory.js')] : []),
];
const SETTINGS: Record<string, string> = {
  RATE_LIMIT_PER_TOKEN_PER_MINUTE: '1000000',
  LOG_LEVEL: 'warn',
  ...(PRELOADS.length || process.env.BENCH_NODE_OPTIONS
    ? {
        NODE_OPTIONS: [...PRELOADS.map((p) => `--require ${p}`), process.env.BENCH_NODE_OPTIONS ?? ''].join(' ').trim(),
      }
    : {}),
  ...(process.env.BENCH_CPU_PROF ? { BENCH_CPU_PROF_DIR: path.resolve(process.env.BENCH_CPU_PROF) } : {}),
  ...(process.env.BENCH_MEMORY ? { BENCH_MEMORY_DIR: path.resolve(process.env.BENCH_MEMORY) } : {}),
};

interface Run {
  newS: number;
  unchangedS: number;
  floorS: number;
  rssGrowthMb: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function ok<T = Json>(what: string, res: { status: number; body: T }): T {
  if (res.status !== 200) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Resident and peak resident memory of a process, in MB (Linux /proc). */
function memory(pid: number): { rss: number; hwm: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
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

/** A project with a layer gated by "no high severity", a manual tool and a check to upload to. */
async function newCheck(api: Api): Promise<string> {
  const code = `e2e-${uniqueSuffix()}`;
  ok(
    'project',
    await api.post('/api/v1/project', { code, name: `Bench ${code}`, description: 'end-to-end benchmark', tags: [] }),
  );
  const layer = ok(
    'layer',
    await api.post('/api/v1/layer', {
      name: 'code',
      description: 'source code',
      project_code: code,
      layer_type_id: 1,
      is_template: false,
    }),
  );
  const source = ok(
    'source',
    await api.post('/api/v1/source', {
      name: `repo ${code}`,
      description: 'bench',
      source_type_id: 1,
      settings: { url: 'http://127.0.0.1:9/bench.git', branch_name: 'main', auth_method: 'Anonymous' },
    }),
  );
  const tool = ok(
    'tool',
    await api.post('/api/v1/tool', {
      description: 'uploaded SARIF',
      type_id: MANUAL_TOOL_TYPE,
      settings: { scan_result_lang: 'EN' },
    }),
  );
  const gate = ok('gate', await api.post('/api/v1/quality-gate', { name: `no highs ${code}` }));
  ok(
    'condition',
    await api.post('/api/v1/condition', {
      quality_gate_id: gate.id,
      condition_type: 'severity',
      condition_value: 'high',
      operator: 'not_greater_than',
      value: '0',
    }),
  );
  ok(
    'link',
    await api.post('/api/v1/quality-gate/link-layer', {
      layer_id: layer.id,
      quality_gates: [{ quality_gate_id: gate.id, action: 'inform' }],
    }),
  );
  return ok(
    'check',
    await api.post('/api/v1/check', {
      layer_id: layer.id,
      security_tool_id: tool.id,
      scan_source_id: source.id,
      source_auth: { branch_name: 'main' },
      run_scan_task: { type: 'manual' },
    }),
  ).id;
}

interface Upload {
  /** Seconds from the upload request's start until every issue of the scan is visible and its gate verdict stored. */
  seconds: number;
  scanId: string;
  /** Wall clock of the request's start (ms), to place the services' own timestamps on the same line. */
  startedAt: number;
  answeredS: number;
}

async function uploadAndWait(api: Api, token: string, checkId: string, file: string): Promise<Upload> {
  const startedAt = Date.now();
  const started = process.hrtime.bigint();
  const res = await fetch(`${api.baseUrl}/api/v1/check/${checkId}/results?file_name=${path.basename(file)}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'content-length': String(fs.statSync(file).size),
    },
    body: Readable.toWeb(fs.createReadStream(file)) as ReadableStream,
    duplex: 'half',
  } as RequestInit);
  const { scan_result_id: id } = ok('upload', { status: res.status, body: await res.json() }) as {
    scan_result_id: string;
  };
  const upload = Number(process.hrtime.bigint() - started) / 1e9;
  // Distinct findings: the upload merged true duplicates, and each becomes one issue.
  const expected = ok('scan result', await api.get(`/api/v1/scan-result/${id}`)).findings_count;
  const deadline = Date.now() + 600000;
  for (;;) {
    // The verdict reaches the scan result once the ingestion has committed (quality_gate.evaluated),
    // so it comes first; only then are the scan's issues counted, a pass over every issue that would
    // otherwise compete with the ingestion it measures four times a second.
    const verdict = ok('scan result', await api.get(`/api/v1/scan-result/${id}`)).quality_gate;
    const count = verdict ? ok('count', await api.get(`/api/v1/issues/count?filter[scan]=${id}`)).count : undefined;
    if (count === expected) break;
    if (Date.now() > deadline)
      throw new Error(`scan ${id}: ${count ?? 'no verdict and unknown'} of ${expected} issues after 10 minutes`);
    await sleep(250);
  }
  const total = Number(process.hrtime.bigint() - started) / 1e9;
  console.log(
    `    ${expected} findings: upload answered after ${upload.toFixed(2)} s, issues and verdict after ${total.toFixed(2)} s`,
  );
  return { seconds: total, scanId: id, startedAt, answeredS: upload };
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

async function benchMode(mode: string, file: string, pgUrl: string): Promise<Run[]> {
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
      const fresh = await uploadAndWait(api, token, checkId, file);
      const unchanged = await uploadAndWait(api, token, checkId, file);
      if ('env' in sys) for (const up of [fresh, unchanged]) console.log(await phases(sys.env, up));
      const [newS, unchangedS] = [fresh.seconds, unchanged.seconds];
      // Growth of the peak over the resident size before this run, summed over the processes.
      const growth = pids.map((p, k) => Math.max(0, memory(p).hwm - before[k]));
      const rssGrowthMb = growth.reduce((sum, g) => sum + g, 0);
      const floorS = await floor(file, pgUrl);
      runs.push({ newS, unchangedS, floorS, rssGrowthMb });
      console.log(
        `  run ${n + 1}: new ${newS.toFixed(2)} s, unchanged ${unchangedS.toFixed(2)} s, floor ${floorS.toFixed(2)} s, peak RSS growth ${rssGrowthMb.toFixed(0)} MB (${names.map((m, k) => `${m} ${growth[k].toFixed(0)}`).join(', ')})`,
      );
    }
    return runs;
  } finally {
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
    await new Promise<void>((resolve, reject) =>
      spawn(process.execPath, [path.join(__dirname, '../generate.js'), dir, String(FINDINGS)], {
        stdio: ['ignore', 'ignore', 'inherit'],
      }).on('exit', (c) => (c === 0 ? resolve() : reject(new Error(`generate.js exited with ${c}`)))),
    );
    const file = path.join(dir, 'sarif-100k.sarif');
    console.log(
      `report: ${(fs.statSync(file).size / 2 ** 20).toFixed(1)} MiB, ${FINDINGS} results; ${RUNS} runs per mode\n`,
    );
    const table: string[] = [];
    for (const mode of MODES) {
      const runs = await benchMode(mode, file, i.pgUrl);
      const [n, u, f] = [
        median(runs.map((r) => r.newS)),
        median(runs.map((r) => r.unchangedS)),
        median(runs.map((r) => r.floorS)),
      ];
      const rss = Math.max(...runs.map((r) => r.rssGrowthMb));
      table.push(
        `| ${mode} | ${n.toFixed(2)} s | ${Math.round(FINDINGS / n)} | ${(n / f).toFixed(1)} | ${u.toFixed(2)} s | ${(u / f).toFixed(1)} | ${f.toFixed(2)} s | ${rss.toFixed(0)} MB |`,
      );
    }
    console.log(
      `\n| mode | new: end to end (median) | findings/s | × floor | unchanged: end to end (median) | × floor | floor (median) | peak RSS growth (max) |\n|---|---|---|---|---|---|---|---|\n${table.join('\n')}`,
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
