/**
 * GET /api/v1/issues?filter[severity]=high&limit=50 under 50 concurrent clients (wrk, a process of its
 * own), right after an import and again on the settled database. The imported issues are written by a
 * real ingestion: the SARIF of bench/generate.js uploaded through the gateway, timed until its issues
 * and gate verdict are visible; the rest of the total (scaled mode) is filled beforehand with
 * bench/issues/dataset.ts and settled. Then again once the counts are compacted (the service's periodic
 * task), and once settled as autovacuum leaves the tables in time (`vacuum analyze`). BENCH_MODE=all (default; 100,000 issues, all
 * imported) or scaled (1,000,000, of which 100,000 imported); BENCH_TOTAL_ISSUES, BENCH_FINDINGS (the
 * import), BENCH_SECONDS (per measurement, 20). Needs `wrk` (Debian: apt-get install wrk). Run:
 * `npm run build`, then `eval "$(bash deploy/local/infra.sh env)" && npx tsx bench/issues/load.ts`.
 */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import knex, { Knex } from 'knex';
import { ADMIN_PASSWORD } from '@bulwark/testkit';
import { newCheck, uploadAndWait } from '../e2e/upload';
import { issueStore } from '../../services/issues/src/store/issues/issue-store';
import { fillIssues, settle } from './dataset';
import { startSystem } from './system';

const MODE = process.env.BENCH_MODE ?? 'all';
const TOTAL_ISSUES = Number(process.env.BENCH_TOTAL_ISSUES ?? (MODE === 'all' ? 100_000 : 1_000_000));
const IMPORTED = Math.min(TOTAL_ISSUES, Number(process.env.BENCH_FINDINGS ?? 100_000));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const CLIENTS = 50;
const LIST = '/api/v1/issues?filter[severity]=high&limit=50';
const SETTINGS = { RATE_LIMIT_PER_TOKEN_PER_MINUTE: '100000000', LOG_LEVEL: 'warn' };

interface Load {
  perSecond: number;
  p50: number;
  p99: number;
}

/** wrk's duration ("812.00us", "1.10s") in ms. */
function ms(text: string): number {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(text);
  if (!m) throw new Error(`wrk: unexpected duration ${text}`);
  return Number(m[1]) * { us: 0.001, ms: 1, s: 1000, m: 60000 }[m[2] as 'us' | 'ms' | 's' | 'm'];
}

/** The list under CLIENTS concurrent connections for SECONDS; every answer must be a 200. */
async function load(baseUrl: string, token: string): Promise<Load> {
  const { stdout } = await promisify(execFile)('wrk', [
    '-t2',
    `-c${CLIENTS}`,
    `-d${SECONDS}s`,
    '--timeout',
    '60s',
    '--latency',
    '-H',
    `authorization: Bearer ${token}`,
    `${baseUrl}${LIST}`,
  ]);
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(stdout);
  const errors = /Socket errors: (.*)/.exec(stdout);
  if (non2xx || errors) throw new Error(`wrk: failed requests\n${stdout}`);
  const percentile = (p: number) => ms(new RegExp(`^\\s+${p}%\\s+(\\S+)`, 'm').exec(stdout)![1]);
  return { perSecond: Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)![1]), p50: percentile(50), p99: percentile(99) };
}

/** When the issue tables were last analyzed, by hand or by autovacuum, and their rows as the planner knows them. */
async function statistics(db: Knex): Promise<string> {
  const { rows } = await db.raw<{ rows: Record<string, string | null>[] }>(
    `select s.relname, c.reltuples::bigint as reltuples, s.n_mod_since_analyze,
       to_char(s.last_analyze, 'HH24:MI:SS') as analyzed, to_char(s.last_autoanalyze, 'HH24:MI:SS') as autoanalyzed
     from pg_stat_user_tables s join pg_class c on c.oid = s.relid
     where s.relname in ('issue_records', 'issue_detection_state') order by s.relname`,
  );
  return rows
    .map(
      (r) =>
        `${r.relname}: ${r.reltuples} rows known, ${r.n_mod_since_analyze} changed since, analyzed ${r.analyzed ?? 'never'}, autoanalyzed ${r.autoanalyzed ?? 'never'}`,
    )
    .join('; ');
}

const loadAverage = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

async function main() {
  if (!fs.existsSync('/usr/bin/wrk')) throw new Error('wrk is needed: apt-get install wrk');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-load-'));
  const { system, issuesDb } = await startSystem(MODE, SETTINGS);
  const db = knex({ client: 'pg', connection: issuesDb });
  try {
    console.log(`${MODE} mode, ${TOTAL_ISSUES} issues, ${IMPORTED} of them imported`);
    if (TOTAL_ISSUES > IMPORTED) {
      await fillIssues(db, TOTAL_ISSUES - IMPORTED);
      await settle(db);
    }
    await new Promise<void>((resolve, reject) =>
      spawn(process.execPath, [path.join(__dirname, '../generate.js'), dir, String(IMPORTED)], {
        stdio: ['ignore', 'ignore', 'inherit'],
      }).on('exit', (c) => (c === 0 ? resolve() : reject(new Error(`generate.js exited with ${c}`)))),
    );
    const token = await system.api.login('admin', ADMIN_PASSWORD);
    const api = system.api.as(token);
    const checkId = await newCheck(api);
    await uploadAndWait(api, token, checkId, path.join(dir, 'sarif-100k.sarif'));
    const rows: string[] = [];
    // Between the two, what the service's periodic count compaction alone changes.
    const states: [string, (() => Promise<void>) | undefined][] = [
      ['right after the import', undefined],
      ['counts compacted', () => issueStore.compactCounts(db)],
      ['settled (vacuum analyze)', () => settle(db)],
    ];
    for (const [state, step] of states) {
      await step?.();
      console.log(`  ${state}: ${await statistics(db)}`);
      const before = loadAverage();
      const l = await load(api.baseUrl, token);
      console.log(`  after the load: ${await statistics(db)}`);
      rows.push(
        `| ${MODE} | ${TOTAL_ISSUES} | ${state} | ${l.perSecond.toFixed(0)} | ${l.p50.toFixed(1)} ms | ${l.p99.toFixed(1)} ms | ${before} → ${loadAverage()} |`,
      );
    }
    console.log(
      `\n| mode | issues | when | requests/s | p50 | p99 | load average (1, 5, 15 min) |\n|---|---|---|---|---|---|---|\n${rows.join('\n')}`,
    );
  } finally {
    await db.destroy();
    await system.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
