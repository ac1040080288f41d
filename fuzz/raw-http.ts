/**
 * Raw-HTTP fuzzing: malformed request lines, paths, headers and bodies over TCP sockets, against a
 * started Bulwark in TARGET=all (its gateway, and each service's own HTTP port, as a caller that
 * reaches a service directly would). Seeded, bounded in requests and time. It fails when any answer
 * is a 5xx, when the process died or no longer answers /healthz, or when the run left a 5xx in the
 * error log or a failed request in the process's log (an aborted body answers nobody, so only the
 * logs tell whether it was taken as an internal error).
 *
 *   npx tsx fuzz/raw-http.ts                              # after npm run build
 *   FUZZ_RAW_SEED=7 FUZZ_RAW_REQUESTS=20000 FUZZ_RAW_SECONDS=600 npx tsx fuzz/raw-http.ts
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ROUTES } from '@bulwark/contracts';
import { InternalAuth } from '@bulwark/platform';
import { ADMIN_PASSWORD, freePort, startAllModeProcess } from '@bulwark/testkit';
import { exchange, printable } from './raw-http/exchange';
import { Random } from './raw-http/random';
import { FuzzTarget, fuzzRequest } from './raw-http/requests';

const SEED = Number(process.env.FUZZ_RAW_SEED ?? 20261128);
const MAX_REQUESTS = Number(process.env.FUZZ_RAW_REQUESTS ?? 10000);
const MAX_SECONDS = Number(process.env.FUZZ_RAW_SECONDS ?? 120);
const REPORT_DIR = path.resolve(process.env.FUZZ_REPORT_DIR ?? '.fuzz-report');
/** Connections at once; a request not answered in this time (a body that never ends) is let go. */
const CONCURRENCY = 8;
const ANSWER_TIMEOUT_MS = 1000;
/** The services with an HTTP server of their own, each fuzzed on its port beside the gateway. */
const SERVICES = ['identity', 'catalog', 'scanning', 'issues', 'reporting', 'notifications'] as const;
/** Lines of the process's log that say a request failed: errors logged while answering one (with its id). */
const FAILED_REQUEST_LOG = /"level":"error".*"requestId"/;

interface Failure {
  index: number;
  target: string;
  what: string;
  request: string;
}

async function main(): Promise<number> {
  const started = Date.now();
  const internalSecret = randomBytes(32).toString('hex');
  const servicePorts = new Map<string, number>();
  for (const service of SERVICES) servicePorts.set(service, await freePort());
  console.log(`fuzz-raw: seed ${SEED}, at most ${MAX_REQUESTS} requests or ${MAX_SECONDS} s; starting TARGET=all`);
  const sys = await startAllModeProcess({
    ...Object.fromEntries(SERVICES.map((s) => [`${s.toUpperCase()}_HTTP_PORT`, String(servicePorts.get(s))])),
    BULWARK_INTERNAL_SECRET: internalSecret,
    RATE_LIMIT_PER_IP_PER_MINUTE: '1000000',
    RATE_LIMIT_PER_TOKEN_PER_MINUTE: '1000000',
    LOG_LEVEL: 'warn',
  });
  const logFile = path.join(sys.dataDir, 'all.log');
  const failures: Failure[] = [];
  const tally = new Map<string, number>();
  const count = (key: string) => tally.set(key, (tally.get(key) ?? 0) + 1);
  let sent = 0;
  try {
    const admin = sys.api.as(await sys.api.login('admin', ADMIN_PASSWORD));
    // An API token: a logout among the fuzzed requests cannot end it, as it would a login token.
    const apiToken = (
      await admin.post('/api/v1/token', {
        name: 'raw-http fuzz',
        expires_at: new Date(Date.now() + 86400000).toISOString(),
      })
    ).body.token as string;
    const session = await fetch(`${sys.api.baseUrl}/api/v1/auth/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }),
    });
    const cookies = session.headers.getSetCookie().map((c) => c.slice(0, c.indexOf(';')));
    const csrf = cookies.find((c) => c.startsWith('bulwark_csrf='))?.slice('bulwark_csrf='.length) ?? '';
    const me = (await admin.get('/api/v1/auth/me')).body.user as { id: string };
    const gatewayAuth = new InternalAuth(internalSecret, 'gateway');
    const asAdmin = () =>
      gatewayAuth.forPrincipal({
        userId: me.id,
        username: 'admin',
        permissions: {},
        projects: null,
        tokenKind: 'api',
        tokenId: 'raw-http-fuzz',
      });

    const gatewayPaths = [
      ...ROUTES.map((r) => r.path),
      '/api/v1/auth/session',
      '/api/v1/swagger/index.html',
      '/api/v1/swagger/{file}',
      '/healthz',
      '/readyz',
      '/metrics',
      '/',
      '/assets/{file}',
      '/issues',
    ];
    const targets: [number, FuzzTarget][] = [
      [
        6,
        {
          name: 'gateway',
          port: Number(new URL(sys.api.baseUrl).port),
          paths: gatewayPaths,
          credentials: (r) =>
            r.weighted<() => string[]>([
              [4, () => [`Authorization: Bearer ${apiToken}`]],
              [2, () => [`Cookie: ${cookies.join('; ')}`, ...(r.chance(0.7) ? [`X-CSRF-Token: ${csrf}`] : [])]],
              [
                1,
                () => [
                  `Authorization: ${r.pick(['Bearer \xff\xfe', 'Bearer', 'Basic YTpi', 'Bearer a.b.c', 'Bearer bwk_x'])}`,
                ],
              ],
              [
                1,
                () => [`Cookie: bulwark_session=${r.pick(['\xff', 'a.b.c', ''])}; bulwark_csrf=x`, 'X-CSRF-Token: x'],
              ],
            ])(),
        },
      ],
      ...SERVICES.map((service): [number, FuzzTarget] => [
        1,
        {
          name: service,
          port: servicePorts.get(service) ?? 0,
          paths: [...ROUTES.filter((r) => r.service === service).map((r) => r.path), '/healthz', '/readyz'],
          credentials: (r) =>
            r.weighted<() => string[]>([
              [4, () => [`X-Bulwark-Internal: ${asAdmin()}`]],
              [
                1,
                () => [`X-Bulwark-Internal: ${r.pick(['\xff\xfe', 'a.b.c', gatewayAuth.forService().slice(0, 40)])}`],
              ],
            ])(),
        },
      ]),
    ];

    const random = new Random(SEED);
    const deadline = started + MAX_SECONDS * 1000;
    const worker = async () => {
      while (sent < MAX_REQUESTS && Date.now() < deadline) {
        // Made in the order of their index, whichever connection sends them: a seed gives the same requests.
        const index = sent++;
        const target = random.weighted(targets);
        const request = fuzzRequest(random, target);
        const result = await exchange(target.port, request, ANSWER_TIMEOUT_MS);
        const key: string = result.status ? `${Math.floor(result.status / 100)}xx` : result.outcome;
        count(key);
        if ((result.status ?? 0) >= 500 || result.outcome === 'refused')
          failures.push({
            index,
            target: target.name,
            what: result.statusLine ?? 'connection refused',
            request: printable(request.pieces),
          });
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));

    const alive = sys.alive();
    const healthy = async (url: string) =>
      (await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(5000) }).catch(() => undefined))?.status === 200;
    const gatewayHealthy = alive && (await healthy(sys.api.baseUrl));
    const unhealthy: string[] = [];
    for (const [service, port] of servicePorts)
      if (!(alive && (await healthy(`http://127.0.0.1:${port}`)))) unhealthy.push(service);
    // The error log's records travel through the outbox and the bus: a moment to arrive.
    await new Promise((r) => setTimeout(r, 2000));
    const logged = alive
      ? ((await admin.get('/api/v1/errors-log?limit=1000')).body.items as { code: string; route: string }[]).filter(
          (e) => e.code.startsWith('http.'),
        )
      : [];
    const failedLines = fs
      .readFileSync(logFile, 'utf8')
      .split('\n')
      .filter((l) => FAILED_REQUEST_LOG.test(l));

    const seconds = Math.round((Date.now() - started) / 1000);
    const classes = [...tally.entries()]
      .sort()
      .map(([k, n]) => `${k} ${n}`)
      .join(', ');
    console.log(
      `fuzz-raw: seed ${SEED}: ${sent} requests in ${seconds} s (${classes}), ${failures.length} answers 5xx or refused, ` +
        `${logged.length} 5xx records in the error log, ${failedLines.length} failed requests in the log, ` +
        `process alive: ${alive ? 'yes' : 'no'}, /healthz: gateway ${gatewayHealthy ? 'yes' : 'no'}, services ${unhealthy.length ? `not ${unhealthy.join(', ')}` : 'yes'}`,
    );
    for (const f of failures.slice(0, 10))
      console.log(
        `fuzz-raw: seed ${SEED}, request #${f.index} to the ${f.target}: ${f.what}; its bytes, to replay:\n` +
          `  (printf '%b' '${f.request}'; sleep 2) | nc 127.0.0.1 <port>\n`,
      );
    for (const e of logged.slice(0, 10)) console.log(`fuzz-raw: error log: ${e.code} ${e.route}`);
    for (const l of failedLines.slice(0, 10)) console.log(`fuzz-raw: log: ${l.slice(0, 600)}`);
    const ok =
      failures.length === 0 &&
      logged.length === 0 &&
      failedLines.length === 0 &&
      gatewayHealthy &&
      unhealthy.length === 0;
    if (!ok) {
      fs.mkdirSync(REPORT_DIR, { recursive: true });
      fs.copyFileSync(logFile, path.join(REPORT_DIR, 'raw-http-server.log'));
      console.log(
        `fuzz-raw: failed with seed ${SEED}; the process's log is in ${path.join(REPORT_DIR, 'raw-http-server.log')}`,
      );
    }
    return ok ? 0 : 1;
  } catch (err) {
    console.error(`fuzz-raw: seed ${SEED}: the run failed:`, err);
    return 1;
  } finally {
    if (process.env.FUZZ_RAW_KEEP_LOG || failures.length > 0 || !sys.alive()) {
      fs.mkdirSync(REPORT_DIR, { recursive: true });
      fs.copyFileSync(logFile, path.join(REPORT_DIR, 'raw-http-server.log'));
    }
    // A process that does not stop cleanly fails the run too (stop() says why).
    await sys.stop().catch((err: unknown) => {
      console.error(`fuzz-raw: seed ${SEED}: ${String(err)}`);
      process.exitCode = 1;
    });
  }
}

main().then(
  (code) => process.exit(process.exitCode || code),
  (err: unknown) => {
    console.error('fuzz-raw: could not run:', err);
    process.exit(1);
  },
);
