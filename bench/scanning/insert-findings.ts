/**
 * What storing an upload's findings in `scan_findings` costs PostgreSQL: the findings of the
 * 100,000-result SARIF of `bench/generate.js`, parsed by the service's own import (`streamImportReport`,
 * each finding's JSON text as the parse worker makes it), written into a fresh scanning database in
 * one transaction per run, two ways, runs interleaved:
 *
 * - `jsonb`: batches of 2,000, one `insert … select … from jsonb_array_elements(?::jsonb)` each (the
 *   store before `COPY`);
 * - `copy`: batches of 2,000, one `COPY scan_findings … FROM STDIN` (text format) each, through
 *   pg-copy-streams on the transaction's own connection.
 *
 * Each run is timed in wall seconds and in CPU seconds of the transaction's backend (read from /proc,
 * so the server must run on this machine; on a shared machine the CPU figure is the one to compare),
 * and rolled back, so every run starts from the same empty table.
 *
 * Run: `npx tsx bench/scanning/insert-findings.ts` after `eval "$(bash deploy/local/infra.sh env)"`
 * (BENCH_FINDINGS, BENCH_RUNS, BENCH_REPORT: an existing SARIF instead of generating one).
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import knex from 'knex';
import { from as copyFrom } from 'pg-copy-streams';
import { streamImportReport } from '@bulwark/findings';
import { openDatabase, Trx } from '@bulwark/platform';
import { migrations } from '../../services/scanning/src/migrations';
import { backendCpu, copyText } from '../postgres-backend';

const N = Number(process.env.BENCH_FINDINGS ?? 100_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const BATCH = 2000;

interface Stored {
  seq: number;
  json: string;
  fingerprint: string;
  severity: string;
}

function findingsOf(file: string): Stored[] {
  const out: Stored[] = [];
  streamImportReport(
    file,
    { name: path.basename(file) },
    {
      found: (seq, f, json) =>
        out.push({ seq: seq + 1, json: json.text, fingerprint: f.fingerprint, severity: f.severity }),
    },
  );
  return out;
}

async function main() {
  const base = process.env.BULWARK_TEST_PG_URL;
  if (!base) throw new Error('BULWARK_TEST_PG_URL is not set: eval "$(bash deploy/local/infra.sh env)"');
  let report = process.env.BENCH_REPORT;
  if (!report) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-bench-'));
    const made = spawnSync(process.execPath, [path.join(__dirname, '../generate.js'), dir, String(N)], {
      stdio: 'inherit',
    });
    if (made.status !== 0) throw new Error(`generate.js exited with ${made.status}`);
    report = path.join(dir, 'sarif-100k.sarif');
  }
  const findings = findingsOf(report);
  const batches = (fn: (s: Stored[]) => string) => {
    const started = process.cpuUsage();
    const out: string[] = [];
    for (let i = 0; i < findings.length; i += BATCH) out.push(fn(findings.slice(i, i + BATCH)));
    const used = process.cpuUsage(started);
    return { out, nodeCpu: (used.user + used.system) / 1e6 };
  };
  const scanId = randomUUID();
  const jsonb = batches((b) => `[${b.map((f) => f.json).join(',')}]`);
  const copy = batches((b) =>
    b
      .map((f) => `${scanId}\t${f.seq}\t${copyText(f.fingerprint)}\t${copyText(f.severity)}\t${copyText(f.json)}\n`)
      .join(''),
  );
  const seqs = Array.from({ length: jsonb.out.length }, (_, i) =>
    findings.slice(i * BATCH, (i + 1) * BATCH).map((f) => f.seq),
  );
  const variants: Record<string, (trx: Trx) => Promise<void>> = {
    jsonb: async (trx) => {
      for (const [i, json] of jsonb.out.entries())
        await trx.raw(
          `insert into scan_findings (scan_id, seq, fingerprint, severity, finding)
           select ?, (?::int[])[t.n], t.f->>'fingerprint', t.f->>'severity', t.f from jsonb_array_elements(?::jsonb) with ordinality as t(f, n)`,
          [scanId, `{${seqs[i].join(',')}}`, json],
        );
    },
    copy: async (trx) => {
      const connection = (await trx.client.acquireConnection()) as { query(s: unknown): NodeJS.WritableStream };
      for (const rows of copy.out)
        await pipeline(
          Readable.from([rows]),
          connection.query(copyFrom('copy scan_findings (scan_id, seq, fingerprint, severity, finding) from stdin')),
        );
    },
  };

  const url = new URL(base);
  url.pathname = `/bulwark_bench_scan_findings_${Date.now()}`;
  const db = await openDatabase({ service: 'scanning-bench', url: url.toString(), dataDir: '/tmp', migrations });
  try {
    await db('scans').insert({
      id: scanId,
      check_id: randomUUID(),
      layer_id: randomUUID(),
      project_code: 'bench',
      security_tool_id: randomUUID(),
      tool_type_id: 1,
      kind: 'upload',
      state: 'parsing',
    });
    const mb = (n: number) => (n / 1e6).toFixed(1);
    console.log(
      `${findings.length} findings; JSON ${mb(jsonb.out.reduce((s, b) => s + b.length, 0))} MB, COPY text ${mb(copy.out.reduce((s, b) => s + b.length, 0))} MB`,
    );
    console.log(
      `building the batches in Node: jsonb ${jsonb.nodeCpu.toFixed(2)} CPU-s, copy ${copy.nodeCpu.toFixed(2)} CPU-s`,
    );
    console.log('| run | variant | load average | wall | backend CPU |\n|---|---|---|---|---|');
    for (let run = 1; run <= RUNS; run++) {
      for (const [name, write] of Object.entries(variants)) {
        await db.raw('vacuum analyze scan_findings');
        let line = '';
        await db
          .transaction(async (trx) => {
            const pid = (await trx.raw<{ rows: { pid: number }[] }>('select pg_backend_pid() as pid')).rows[0].pid;
            const load = os.loadavg()[0].toFixed(1);
            const c0 = backendCpu(pid) ?? NaN;
            const started = process.hrtime.bigint();
            await write(trx);
            const [{ count }] = await trx('scan_findings').count<{ count: string }[]>({ count: '*' });
            if (Number(count) !== findings.length) throw new Error(`${name} stored ${count} rows`);
            const wall = Number(process.hrtime.bigint() - started) / 1e9;
            line = `| ${run} | ${name} | ${load} | ${wall.toFixed(2)} s | ${((backendCpu(pid) ?? NaN) - c0).toFixed(2)} s |`;
            throw new Error('rollback');
          })
          .catch((err: Error) => {
            if (err.message !== 'rollback') throw err;
          });
        console.log(line);
      }
    }
  } finally {
    await db.destroy();
    const admin = knex({ client: 'pg', connection: base });
    await admin.raw('drop database ??', [url.pathname.slice(1)]);
    await admin.destroy();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
