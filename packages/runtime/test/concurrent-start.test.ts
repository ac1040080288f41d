import { ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import knex from 'knex';
import { SERVICE_NAMES } from '@bulwark/platform';
import { createTestDatabase, freePort, requireInfra, scaledEnv } from '@bulwark/testkit';

const MAIN = path.resolve(__dirname, '../dist/main.js');

interface Replica {
  proc: ChildProcess;
  logFile: string;
  httpUrls: Record<string, string>;
}

function logLines(file: string): Record<string, unknown>[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

async function waitReady(replicas: Replica[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const pending = new Set(replicas.flatMap((r) => Object.values(r.httpUrls)));
  while (pending.size > 0) {
    const dead = replicas.find((r) => r.proc.exitCode !== null);
    if (dead)
      throw new Error(
        `a replica exited with ${dead.proc.exitCode}:\n${fs.readFileSync(dead.logFile, 'utf8').slice(-4000)}`,
      );
    if (Date.now() > deadline) throw new Error(`not ready after ${timeoutMs} ms: ${[...pending].join(', ')}`);
    for (const url of [...pending]) {
      const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2000) }).catch(() => undefined);
      if (res?.ok) pending.delete(url);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

function stop(r: Replica): Promise<void> {
  if (r.proc.exitCode !== null || r.proc.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => r.proc.kill('SIGKILL'), 20000);
    r.proc.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    r.proc.kill('SIGTERM');
  });
}

// Two replicas of the same services start at the same moment on fresh databases of one real
// PostgreSQL server, as pods of a Deployment do: both must become ready, and each database must have
// been migrated exactly once (one replica applies every migration, the other waits and applies none).
describe('two replicas starting together on one PostgreSQL server', function () {
  const replicas: Replica[] = [];
  const dbs: { url: string; drop(): Promise<void> }[] = [];
  let logDir = '';

  before(async function () {
    const i = requireInfra(this, 'postgres', 'redis', 'kafka');
    this.timeout(240000);
    logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-concurrent-'));
    dbs.push(...(await Promise.all(SERVICE_NAMES.map((s) => createTestDatabase(i.pgUrl, `cc_${s}`)))));
    const shared: Record<string, string> = {
      ...scaledEnv(i, logDir),
      PATH: process.env.PATH ?? '',
      TARGET: SERVICE_NAMES.join(','),
    };
    SERVICE_NAMES.forEach((s, n) => (shared[`${s.toUpperCase()}_DATABASE_URL`] = dbs[n].url));
    for (const name of ['a', 'b']) {
      const env = { ...shared };
      const httpUrls: Record<string, string> = {};
      for (const s of SERVICE_NAMES) {
        const [http, grpc] = [await freePort(), await freePort()];
        env[`${s.toUpperCase()}_HTTP_PORT`] = String(http);
        env[`${s.toUpperCase()}_GRPC_PORT`] = String(grpc);
        httpUrls[s] = `http://127.0.0.1:${http}`;
      }
      const logFile = path.join(logDir, `${name}.log`);
      const out = fs.openSync(logFile, 'a');
      replicas.push({ proc: spawn(process.execPath, [MAIN], { env, stdio: ['ignore', out, out] }), logFile, httpUrls });
      fs.closeSync(out);
    }
    await waitReady(replicas, 200000);
  });

  after(async function () {
    this.timeout(60000);
    await Promise.all(replicas.map(stop));
    await Promise.all(dbs.map((d) => d.drop().catch(() => undefined)));
    if (logDir) fs.rmSync(logDir, { recursive: true, force: true });
  });

  it('migrates each database once: one replica applies every migration, the other none', async () => {
    const applied = (r: Replica) =>
      Object.fromEntries(
        logLines(r.logFile)
          .filter((l) => l.message === 'database ready')
          .map((l) => [String(l.component).replace(/\.db$/, ''), Number(l.migrationsApplied)]),
      );
    const [a, b] = replicas.map(applied);
    for (const [n, s] of SERVICE_NAMES.entries()) {
      const db = knex({ client: 'pg', connection: dbs[n].url, pool: { min: 0, max: 1 } });
      try {
        const rows = await db<{ name: string }>('knex_migrations').select('name');
        const names = rows.map((r) => r.name);
        expect(new Set(names).size, `${s}: a migration recorded twice`).to.equal(names.length);
        expect(names.length, `${s}: migrations recorded`).to.be.greaterThan(0);
        expect(
          [a[s], b[s]].sort((x, y) => x - y),
          `${s}: migrations applied by each replica`,
        ).to.deep.equal([0, names.length]);
      } finally {
        await db.destroy();
      }
    }
  });

  it('leaves both replicas serving', async () => {
    for (const r of replicas) {
      for (const url of Object.values(r.httpUrls)) expect((await fetch(`${url}/readyz`)).status, url).to.equal(200);
    }
  });
});
