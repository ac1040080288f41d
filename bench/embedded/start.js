#!/usr/bin/env node
// Embedded mode's footprint: time from spawn to the gateway's `/readyz` answering 200, on a fresh
// data directory (first start) and again on the same one (restart), and the process's resident
// memory once idle. Each run uses its own data directory, removed at the end.
//
//   node bench/embedded/start.js            (BENCH_RUNS=5, BENCH_IDLE_MS=10000, BENCH_PORT=7400)
//   NODE_OPTIONS=--cpu-prof node bench/embedded/start.js   (profiles land in the working directory)
'use strict';
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const MAIN = path.resolve(__dirname, '../../packages/runtime/dist/main.js');
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 10000);
const PORT = Number(process.env.BENCH_PORT ?? 7400);

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const TICKS_PER_SECOND = 100;

/** CPU time (user + system) the process has used, in seconds: less at the mercy of a busy machine than wall time. */
function cpuSeconds(pid) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** Resident set of the process and its descendants (scanner children, if any), in MB. */
function rssMb(pid) {
  const pids = [pid];
  for (let i = 0; i < pids.length; i++) {
    const children = fs.readFileSync(`/proc/${pids[i]}/task/${pids[i]}/children`, 'utf8').trim();
    if (children) pids.push(...children.split(/\s+/).map(Number));
  }
  let kb = 0;
  for (const p of pids) {
    const m = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${p}/status`, 'utf8'));
    if (m) kb += Number(m[1]);
  }
  return kb / 1024;
}

async function startOnce(dataDir, logName) {
  const log = fs.openSync(path.join(dataDir, '..', logName), 'a');
  const began = process.hrtime.bigint();
  const proc = spawn(process.execPath, [MAIN], {
    env: {
      ...process.env,
      TARGET: 'all',
      BULWARK_DATA_DIR: dataDir,
      PORT: String(PORT),
      BULWARK_ADMIN_PASSWORD: 'bench-admin-password-1',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', log, log],
  });
  fs.closeSync(log);
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  for (;;) {
    if (proc.exitCode !== null)
      throw new Error(`bulwark exited with ${proc.exitCode}; see ${path.join(dataDir, '..', logName)}`);
    try {
      const res = await fetch(`http://127.0.0.1:${PORT}/readyz`, { signal: AbortSignal.timeout(2000) });
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    await sleep(50);
  }
  const readySeconds = Number(process.hrtime.bigint() - began) / 1e9;
  const cpu = cpuSeconds(proc.pid);
  await sleep(IDLE_MS);
  const rss = rssMb(proc.pid);
  proc.kill('SIGTERM');
  const code = await exited;
  if (code !== 0) throw new Error(`bulwark stopped with exit code ${code}`);
  return { readySeconds, cpu, rss };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function main() {
  if (!fs.existsSync(MAIN)) throw new Error(`${MAIN} is missing: run npm run build first`);
  const first = [];
  const restart = [];
  for (let i = 0; i < RUNS; i++) {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-embedded-bench-'));
    const dataDir = path.join(root, 'data');
    try {
      first.push(await startOnce(dataDir, 'first.log'));
      restart.push(await startOnce(dataDir, 'restart.log'));
      const show = (r) => `${r.readySeconds.toFixed(2)} s (${r.cpu.toFixed(1)} s CPU), ${r.rss.toFixed(0)} MB idle`;
      console.log(`run ${i + 1}: first start ${show(first[i])}; restart ${show(restart[i])}`);
    } catch (err) {
      console.error(`run ${i + 1} failed (logs kept in ${root}): ${err.message}`);
      process.exitCode = 1;
      return;
    }
    fs.rmSync(root, { recursive: true, force: true });
  }
  const row = (name, runs) => {
    const s = runs.map((r) => r.readySeconds);
    return `| ${name} | ${median(s).toFixed(2)} s | ${Math.min(...s).toFixed(2)}–${Math.max(...s).toFixed(2)} s | ${median(runs.map((r) => r.cpu)).toFixed(1)} s | ${median(runs.map((r) => r.rss)).toFixed(0)} MB |`;
  };
  console.log(`\nmedian of ${RUNS} runs, RSS ${IDLE_MS / 1000} s after /readyz:\n`);
  console.log('| start | to /readyz 200 (median) | range | CPU used until then (median) | idle RSS (median) |');
  console.log('|---|---|---|---|---|');
  console.log(row('first (fresh data directory)', first));
  console.log(row('restart (same data directory)', restart));
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
