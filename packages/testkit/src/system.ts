import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { startRuntime } from '@bulwark/runtime';
import { present, SERVICE_NAMES, ServiceName } from '@bulwark/platform';
import { Balancer, startBalancer } from './balancer';
import { Api } from './http';
import { createTestDatabase, Infra, uniqueSuffix } from './infra';
import { TEST_LICENSE_PUBLIC_KEY } from './license';

export const ADMIN_PASSWORD = 'admin-password-for-tests';

export type Mode = 'all' | 'scaled';

export interface RunningSystem {
  mode: Mode;
  /** The gateway (the first one when several run). */
  api: Api;
  /** Every gateway of the system: several in the scaled mode, to show they agree. */
  gateways: Api[];
  /** Each service's own HTTP address, to show it refuses what did not come through the gateway. */
  services: Record<string, string>;
  /** Scaled mode: SIGKILLs a process ('identity', 'services', 'gateway-1', ...) and starts it again, ready. */
  crashAndRestart?(name: string): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Limits the HTTP suites rely on: per token the default, which a test reaches in a loop and a suite's
 * shared token (polling for ingestions several times a second) stays under; per IP high enough for
 * the whole run.
 */
export const TEST_LIMITS = { RATE_LIMIT_PER_TOKEN_PER_MINUTE: '1200', RATE_LIMIT_PER_IP_PER_MINUTE: '1000000' };

/** Settings every test system shares: real scanners when installed, short scan leases so a lost worker shows quickly. */
function testSettings(): Record<string, string> {
  // The tests' Git servers and webhook receivers listen on 127.0.0.1: the one address of this host the tests open.
  // Task trackers are polled every 2 s, so a test sees the schedule move an issue. Licenses of the tests are signed with the
  // test vendor key; expiry is checked every second, so a license that expires in a test is noticed at once.
  return {
    ...TEST_LIMITS,
    SCAN_LEASE_SECONDS: '5',
    SCAN_POLL_MS: '200',
    OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32',
    TRACKERS_SYNC_MS: '2000',
    LICENSE_PUBLIC_KEY: TEST_LICENSE_PUBLIC_KEY,
    LICENSE_CHECK_INTERVAL_MS: '1000',
    // Nothing reaches the internet: the feeds' default addresses are a closed local port until a test
    // saves its own feed server's; small limits and a short deadline so the refusals are quick to provoke.
    INTEL_EPSS_URL: 'http://127.0.0.1:9/epss_scores-current.csv.gz',
    INTEL_KEV_URL: 'http://127.0.0.1:9/known_exploited_vulnerabilities.json',
    INTEL_POLL_MS: '500',
    // SLA breaches are looked for every half second, so a test sees one announced soon after it happens.
    ISSUES_SLA_POLL_MS: '500',
    // Pull request decorations are looked for every half second, so a test sees a comment soon after the verdict.
    ISSUES_DECORATION_POLL_MS: '500',
    INTEL_TIMEOUT_SECONDS: '2',
    INTEL_MAX_BYTES: '1048576',
    INTEL_MAX_DECOMPRESSED_BYTES: '4194304',
    ...(process.env.SCANNER_PATH ? { SCANNER_PATH: process.env.SCANNER_PATH } : {}),
  };
}

const REPO_ROOT = path.resolve(__dirname, '../../..');
const MAIN = path.join(REPO_ROOT, 'packages/runtime/dist/main.js');

/** The single-process mode, in this test process, on embedded defaults in a fresh data directory. */
export async function startAllMode(extraEnv: Record<string, string> = {}): Promise<RunningSystem> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-test-'));
  const runtime = await startRuntime({
    TARGET: 'all',
    BULWARK_DATA_DIR: dataDir,
    PORT: '0',
    BULWARK_ADMIN_PASSWORD: ADMIN_PASSWORD,
    ...testSettings(),
    ...extraEnv,
  });
  const httpUrlOf = (name: string) => present(runtime.modules.get(name)?.httpUrl, `${name}'s HTTP address`);
  const url = httpUrlOf('gateway');
  return {
    mode: 'all',
    api: new Api(url),
    gateways: [new Api(url)],
    services: Object.fromEntries(SERVICE_NAMES.map((s) => [s, httpUrlOf(s)])),
    async stop() {
      await runtime.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

const handedOut = new Set<number>();

/**
 * A port free now, below Linux's ephemeral range (32768 and up): a port the kernel handed out for
 * listening is also one it hands out for outgoing connections, and with many processes connecting
 * to Kafka and PostgreSQL one of them took it before the process meant to listen there started.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = 20000 + Math.floor(Math.random() * 12768);
    // Callers often pick several ports before starting anything: a port free now but already handed
    // out would be bound twice.
    if (handedOut.has(port)) continue;
    const free = await new Promise<boolean>((resolve) => {
      const srv = net.createServer();
      srv.once('error', () => resolve(false));
      srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
    });
    if (free) {
      handedOut.add(port);
      return port;
    }
  }
}

export interface Child {
  name: string;
  proc: ChildProcess;
  logFile: string;
}

function startProcess(name: string, env: Record<string, string>, logDir: string): Child {
  const logFile = path.join(logDir, `${name}.log`);
  const out = fs.openSync(logFile, 'a');
  const proc = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH ?? '', PGAPPNAME: name, ...env },
    stdio: ['ignore', out, out],
  });
  fs.closeSync(out);
  return { name, proc, logFile };
}

async function stopProcess(child: Child, signal: NodeJS.Signals = 'SIGTERM', graceMs = 20000): Promise<number | null> {
  if (child.proc.exitCode !== null || child.proc.signalCode !== null) return child.proc.exitCode;
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.proc.kill('SIGKILL'), graceMs);
    child.proc.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
    child.proc.kill(signal);
  });
}

async function waitReady(url: string, children: Child[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const dead = children.find((c) => c.proc.exitCode !== null);
    if (dead) throw new Error(`${dead.name} exited with ${dead.proc.exitCode}:\n${tail(dead.logFile)}`);
    try {
      const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2000) });
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(
    `system not ready after ${timeoutMs} ms:\n${children.map((c) => `--- ${c.name}\n${tail(c.logFile)}`).join('\n')}`,
  );
}

function tail(file: string, lines = 30): string {
  try {
    return fs.readFileSync(file, 'utf8').trim().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/**
 * The single-process mode as it ships: the built binary with TARGET=all in its own process, on
 * embedded defaults in a fresh data directory. Unlike `startAllMode`, a crash ends that process, not
 * the tests, `alive()` tells whether it still runs and `pid` lets a benchmark read its memory.
 */
export async function startAllModeProcess(
  extraEnv: Record<string, string> = {},
): Promise<RunningSystem & { alive(): boolean; pid: number; dataDir: string }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-all-'));
  const port = await freePort();
  const child = startProcess(
    'all',
    {
      TARGET: 'all',
      BULWARK_DATA_DIR: dataDir,
      PORT: String(port),
      BULWARK_ADMIN_PASSWORD: ADMIN_PASSWORD,
      LOG_LEVEL: 'info',
      ...testSettings(),
      ...extraEnv,
    },
    dataDir,
  );
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitReady(url, [child], 180000);
  } catch (err) {
    await stopProcess(child, 'SIGKILL');
    throw err;
  }
  return {
    mode: 'all',
    api: new Api(url),
    gateways: [new Api(url)],
    services: {},
    pid: present(child.proc.pid, 'the process id'),
    dataDir,
    alive: () => child.proc.exitCode === null && child.proc.signalCode === null,
    async stop() {
      const code = await stopProcess(child);
      if (code !== 0 && code !== null)
        throw new Error(`the process did not shut down cleanly (exit code ${code}):\n${tail(child.logFile)}`);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * What every process of one scaled deployment shares: this run's Kafka namespace and Redis prefix,
 * its secrets, the admin password and the test settings. Database URLs and ports are the caller's.
 */
export function scaledEnv(i: ScaledInfra, dataDir: string): Record<string, string> {
  const run = uniqueSuffix();
  return {
    KAFKA_BROKERS: i.kafkaBrokers.join(','),
    KAFKA_CLIENT_ID: `bulwark-test-${run}`,
    KAFKA_NAMESPACE: `test-${run}.`,
    REDIS_URL: i.redisUrl,
    REDIS_PREFIX: `bulwark-test-${run}:`,
    BULWARK_INTERNAL_SECRET: randomBytes(32).toString('hex'),
    IDENTITY_JWT_SECRET: randomBytes(32).toString('hex'),
    BULWARK_MASTER_KEY: randomBytes(32).toString('base64'),
    BULWARK_ADMIN_PASSWORD: ADMIN_PASSWORD,
    BULWARK_DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    ...testSettings(),
  };
}

export interface ScaledSystem extends RunningSystem {
  children: Child[];
  env: Record<string, string>;
  /** The HTTP address of a process's own (first) module, where its `/metrics` is: a replica's, not its balancer's. */
  processUrl(name: string): string;
  /** A consumer group of this deployment as the Kafka broker sees it (group name without the namespace). */
  consumerGroup(group: string): Promise<{ state: string; members: number }>;
  /** Stops a process (SIGTERM, or SIGKILL for a crash) and leaves it down. */
  stopOne(name: string, signal?: NodeJS.Signals): Promise<void>;
  /** Starts a stopped process again and waits until each of its modules is ready. */
  startOne(name: string): Promise<void>;
}

/** What the scaled mode runs on: the servers it needs, the directory optional. */
export type ScaledInfra = Infra & Required<Pick<Infra, 'pgUrl' | 'redisUrl' | 'kafkaBrokers' | 'scannerPath'>>;

export interface ScaledOptions {
  /** Services run in a process of their own (named after the service) instead of the shared one, so a test can take one down alone. */
  ownProcess?: string[];
  /**
   * Services run as several processes (`issues-1`, `issues-2`, ...) behind a balancer each for HTTP
   * and gRPC, the way a Kubernetes Service fronts a Deployment's replicas; the replicas share the
   * service's database and Kafka consumer groups.
   */
  replicas?: Partial<Record<ServiceName, number>>;
}

/**
 * The scaled mode: the gateway, identity, and the other five services as three separate processes
 * of the built binary, each service on its own database of the real PostgreSQL server, sharing the
 * real Kafka broker and Redis. Each process names itself to PostgreSQL (`application_name`), so a
 * test can tell which one holds a transaction.
 */
export async function startScaledMode(
  i: ScaledInfra,
  extraEnv: Record<string, string> = {},
  opts: ScaledOptions = {},
): Promise<ScaledSystem> {
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-scaled-'));
  const dbs = await Promise.all(SERVICE_NAMES.map((s) => createTestDatabase(i.pgUrl, `bw_${s}`)));
  const env: Record<string, string> = { ...scaledEnv(i, logDir), ...extraEnv };
  const replicated = SERVICE_NAMES.filter((s) => (opts.replicas?.[s] ?? 1) > 1);
  const replicaSpecs: Record<string, Record<string, string>> = {};
  const balancers: Balancer[] = [];
  for (const [idx, s] of SERVICE_NAMES.entries()) {
    const upper = s.toUpperCase();
    env[`${upper}_DATABASE_URL`] = dbs[idx].url;
    if (replicated.includes(s)) {
      const ports: [number, number][] = [];
      for (let n = 1; n <= (opts.replicas?.[s] ?? 1); n++) {
        const [http, grpc] = [await freePort(), await freePort()];
        ports.push([http, grpc]);
        replicaSpecs[`${s}-${n}`] = {
          TARGET: s,
          [`${upper}_HTTP_PORT`]: String(http),
          [`${upper}_GRPC_PORT`]: String(grpc),
        };
      }
      const [http, grpc] = [
        await startBalancer(ports.map(([h]) => `127.0.0.1:${h}`)),
        await startBalancer(ports.map(([, g]) => `127.0.0.1:${g}`)),
      ];
      balancers.push(http, grpc);
      env[`${upper}_HTTP_URL`] = `http://${http.address}`;
      env[`${upper}_GRPC_ADDR`] = grpc.address;
      continue;
    }
    const [http, grpc] = [await freePort(), await freePort()];
    env[`${upper}_HTTP_PORT`] = String(http);
    env[`${upper}_GRPC_PORT`] = String(grpc);
    env[`${upper}_HTTP_URL`] = `http://127.0.0.1:${http}`;
    env[`${upper}_GRPC_ADDR`] = `127.0.0.1:${grpc}`;
  }
  const own = opts.ownProcess ?? [];
  const gatewayPorts = [await freePort(), await freePort()];
  const specs: Record<string, Record<string, string>> = {
    identity: { ...env, TARGET: 'identity' },
    services: {
      ...env,
      TARGET: SERVICE_NAMES.filter((s) => s !== 'identity' && !own.includes(s) && !replicated.includes(s)).join(','),
    },
    ...Object.fromEntries(own.map((s) => [s, { ...env, TARGET: s }])),
    ...Object.fromEntries(Object.entries(replicaSpecs).map(([name, spec]) => [name, { ...env, ...spec }])),
    ...Object.fromEntries(
      gatewayPorts.map((port, n) => [`gateway-${n + 1}`, { ...env, TARGET: 'gateway', PORT: String(port) }]),
    ),
  };
  const ownUrls = (name: string) => {
    const spec = specs[name];
    if (!spec) throw new Error(`no process ${name}`);
    return spec.TARGET.split(',').map(
      (m) => `http://127.0.0.1:${m === 'gateway' ? spec.PORT : spec[`${m.toUpperCase()}_HTTP_PORT`]}`,
    );
  };
  const children = Object.entries(specs).map(([name, spec]) => startProcess(name, spec, logDir));
  const urls = gatewayPorts.map((port) => `http://127.0.0.1:${port}`);
  const closeBalancers = () => Promise.all(balancers.map((b) => b.close()));
  try {
    for (const url of urls) await waitReady(url, children, 120000);
    for (const name of Object.keys(replicaSpecs))
      for (const url of ownUrls(name)) await waitReady(url, children, 120000);
  } catch (err) {
    await Promise.all(children.map((c) => stopProcess(c, 'SIGKILL')));
    await closeBalancers();
    await Promise.all(dbs.map((d) => d.drop()));
    throw err;
  }
  return {
    mode: 'scaled',
    api: new Api(urls[0]),
    gateways: urls.map((u) => new Api(u)),
    services: Object.fromEntries(SERVICE_NAMES.map((s) => [s, env[`${s.toUpperCase()}_HTTP_URL`]])),
    children,
    env,
    processUrl: (name) => ownUrls(name)[0],
    async consumerGroup(group: string) {
      const admin = new Kafka({
        clientId: `${env.KAFKA_CLIENT_ID}-test`,
        brokers: i.kafkaBrokers,
        logLevel: logLevel.NOTHING,
      }).admin();
      await admin.connect();
      try {
        const [described] = (await admin.describeGroups([`${env.KAFKA_NAMESPACE}${group}`])).groups;
        return { state: described.state, members: described.members.length };
      } finally {
        await admin.disconnect();
      }
    },
    async crashAndRestart(name: string) {
      const i = children.findIndex((c) => c.name === name);
      if (i < 0) throw new Error(`no process ${name}`);
      await stopProcess(children[i], 'SIGKILL');
      children[i] = startProcess(name, specs[name], logDir);
      for (const url of urls) await waitReady(url, children, 120000);
    },
    async stopOne(name: string, signal: NodeJS.Signals = 'SIGTERM') {
      const child = children.find((c) => c.name === name);
      if (!child) throw new Error(`no process ${name}`);
      await stopProcess(child, signal);
    },
    async startOne(name: string) {
      const i = children.findIndex((c) => c.name === name);
      if (i < 0) throw new Error(`no process ${name}`);
      children[i] = startProcess(name, specs[name], logDir);
      for (const url of ownUrls(name)) await waitReady(url, children, 120000);
    },
    async stop() {
      const codes = await Promise.all([...children].reverse().map((c) => stopProcess(c)));
      await closeBalancers();
      await Promise.all(dbs.map((d) => d.drop().catch(() => undefined)));
      const bad = codes.filter((c) => c !== 0 && c !== null);
      if (bad.length > 0)
        throw new Error(`a process did not shut down cleanly (exit codes ${codes.join(', ')}); logs in ${logDir}`);
      fs.rmSync(logDir, { recursive: true, force: true });
    },
  };
}
