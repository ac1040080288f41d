import { present } from '@bulwark/platform';
import { Api } from './http';
import { requireInfra } from './infra';
import { ADMIN_PASSWORD, Mode, RunningSystem, startAllMode, startScaledMode } from './system';

/** What an HTTP suite gets: the running system and an admin client, both set once its `before` ran. */
export interface SystemUnderTest {
  readonly mode: Mode;
  readonly sys: RunningSystem;
  /** The gateway, logged in as the built-in admin. */
  readonly admin: Api;
  /** The gateway, anonymous. */
  readonly anon: Api;
}

export type HttpSuite = (t: SystemUnderTest) => void;

const MODES: { mode: Mode; label: string; start: (ctx: Mocha.Context) => Promise<RunningSystem> }[] = [
  {
    mode: 'all',
    label: 'TARGET=all: one process, embedded PostgreSQL, in-process bus, memory cache',
    start: () => startAllMode(),
  },
  {
    mode: 'scaled',
    label: 'scaled: identity, services and two gateways as separate processes on PostgreSQL, Kafka and Redis',
    start: async (ctx) => startScaledMode(requireInfra(ctx, 'postgres', 'kafka', 'redis')),
  },
];

/**
 * The suites BULWARK_TEST_SUITES names (separated by `;`), or all of them when it is unset or empty: a
 * service's `npm test` sets it to run that service's suites alone. A name no suite has is an error,
 * so a renamed suite cannot leave a service's run silently empty.
 */
function chosenSuites(suites: Record<string, HttpSuite>): [string, HttpSuite][] {
  const names = (process.env.BULWARK_TEST_SUITES ?? '')
    .split(';')
    .map((n) => n.trim())
    .filter(Boolean);
  if (names.length === 0) return Object.entries(suites);
  const unknown = names.filter((n) => !(n in suites));
  if (unknown.length > 0) throw new Error(`BULWARK_TEST_SUITES names no suite: ${unknown.join('; ')}`);
  return Object.entries(suites).filter(([name]) => names.includes(name));
}

/** Runs the same HTTP suites once per run mode, each mode on one freshly started system. */
export function describeSystem(suites: Record<string, HttpSuite>): void {
  const chosen = chosenSuites(suites);
  for (const m of MODES) {
    describe(`through the gateway [${m.label}]`, function () {
      let sys: RunningSystem | undefined;
      const started = () => present(sys, 'the running system');
      before(async function () {
        this.timeout(180000);
        sys = await m.start(this);
      });
      after(async function () {
        this.timeout(60000);
        await sys?.stop();
      });
      for (const [name, suite] of chosen) {
        describe(name, () => {
          // Each suite logs in on its own, so per-token rate limits of one suite do not reach the next.
          let admin: Api | undefined;
          before(async () => {
            admin = started().api.as(await started().api.login('admin', ADMIN_PASSWORD));
          });
          suite({
            mode: m.mode,
            get sys() {
              return started();
            },
            get admin() {
              return present(admin, 'the admin session');
            },
            get anon() {
              return started().api;
            },
          });
        });
      }
    });
  }
}
