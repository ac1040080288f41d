import { expect } from 'chai';
import knex, { Knex } from 'knex';
import {
  ADMIN_PASSWORD,
  Api,
  GitServer,
  metricSum,
  requireInfra,
  ScaledSystem,
  startGitServer,
  startScaledMode,
  SystemUnderTest,
  type Json,
  manualCheck,
} from '@bulwark/testkit';
import { MANUAL_TOOL_TYPE, scanSetup } from '../../scanning/test/scanning.suite';
import { issueSnapshot, largeReport, semgrepReport } from './issues.suite';

const GITLEAKS_TOOL_TYPE = 2;
/** Short enough to keep the test brief, above the broker's minimum (group.min.session.timeout.ms, 6 s). */
const SESSION_TIMEOUT_MS = 10000;
const PARTITIONS = 4;
const N = 100_000;
const INGESTION_GROUP = 'issues.ingestion';

describe(`scale-out: two replicas each of scanning and issues, two gateways, Kafka topics of ${PARTITIONS} partitions [real PostgreSQL, Kafka, Redis]`, function () {
  let sys: ScaledSystem;
  let admin: Api;
  let token: string;
  let git: GitServer;
  let db: Knex;
  let t: SystemUnderTest;

  const ok = (res: { status: number; body: Json }) => {
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body;
  };
  const metrics = async (process: string) => (await fetch(`${sys.processUrl(process)}/metrics`)).text();
  const ingestedBy = async (process: string) => metricSum(await metrics(process), 'bulwark_ingested_scans_total');
  const upload = async (checkId: string, report: string, via = admin) =>
    ok(
      await via
        .withHeaders({ 'content-type': 'application/json' })
        .request('POST', `/api/v1/check/${checkId}/results`, undefined, report),
    ).scan_result_id as string;
  /** Waits until a scan's findings are issues. A gateway whose replica was just killed may answer 502 once. */
  const ingested = async (scanId: string, count: number, ms = 300000) => {
    const deadline = Date.now() + ms;
    for (;;) {
      const res = await admin.get(`/api/v1/issues/count?filter[scan]=${scanId}`);
      if (res.status === 200 && res.body.count === count) return;
      if (![200, 502, 503].includes(res.status))
        throw new Error(`count answered ${res.status}: ${JSON.stringify(res.body)}`);
      if (Date.now() > deadline) throw new Error(`scan ${scanId} not ingested`);
      await new Promise((r) => setTimeout(r, 250));
    }
  };
  const waitFor = async (what: string, probe: () => Promise<boolean>, ms = 60000) => {
    const deadline = Date.now() + ms;
    while (!(await probe())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const groupSettled = async (members: number) => {
    const g = await sys.consumerGroup(INGESTION_GROUP);
    return g.state === 'Stable' && g.members === members;
  };
  /** The issues replicas holding a transaction that has written (PostgreSQL knows each process by its application_name). */
  const writers = async (): Promise<string[]> =>
    (
      await db.raw(
        "select application_name from pg_stat_activity where datname = current_database() and backend_xid is not null and application_name like 'issues-%'",
      )
    ).rows.map((r: { application_name: string }) => r.application_name);

  before(async function () {
    this.timeout(240000);
    const infra = requireInfra(this, 'postgres', 'kafka', 'redis', 'scanners');
    sys = await startScaledMode(
      infra,
      {
        KAFKA_PARTITIONS: String(PARTITIONS),
        KAFKA_SESSION_TIMEOUT_MS: String(SESSION_TIMEOUT_MS),
        SCAN_CONCURRENCY: '1',
        RATE_LIMIT_PER_TOKEN_PER_MINUTE: '100000',
      },
      { replicas: { scanning: 2, issues: 2 } },
    );
    token = await sys.api.login('admin', ADMIN_PASSWORD);
    admin = sys.api.as(token);
    t = { mode: 'scaled', sys, admin, anon: sys.api };
    db = knex({ client: 'pg', connection: sys.env.ISSUES_DATABASE_URL, pool: { min: 0, max: 2 } });
    git = await startGitServer();
    git.addRepository('app', {
      'app.py': 'import subprocess\n',
      'config.env': 'AWS_ACCESS_KEY_ID=AKIAQYLPMN5HHHFPZAM2\n',
    });
    // Both replicas' consumers have joined and split the partitions, so events can reach either.
    await waitFor('both issues replicas in the ingestion group', () => groupSettled(2));
  });
  after(async function () {
    this.timeout(60000);
    await db?.destroy();
    await git?.close();
    await sys?.stop();
  });

  it('spreads uploads and scan runs over both scanning replicas, and the ingestions over both issues replicas', async function () {
    this.timeout(180000);
    const env = await scanSetup(t, git, 'app', [MANUAL_TOOL_TYPE]);
    // Checks are the events' keys: 24 of them land on both replicas' partitions but with odds of 2^-23.
    const checks = await Promise.all(Array.from({ length: 24 }, () => manualCheck(admin, env)));
    const scans = await Promise.all(
      checks.map((c, n) =>
        upload(
          c,
          semgrepReport([
            { rule: 'spread.rule', line: 1, code: `spread_${'abcdefghijklmnopqrstuvwx'[n]}()`, path: `spread${n}.py` },
          ]),
          sys.gateways[n % 2].as(token),
        ),
      ),
    );
    for (const s of scans) await ingested(s, 1);

    const uploads = await Promise.all(
      ['scanning-1', 'scanning-2'].map(async (p) =>
        metricSum(await metrics(p), 'bulwark_http_requests_total', {
          component: 'scanning',
          method: 'POST',
          route: '/api/v1/check/{check_id}/results',
          status: '200',
        }),
      ),
    );
    expect(uploads.reduce((a, b) => a + b)).to.equal(24);
    expect(
      uploads.every((n) => n > 0),
      `uploads per scanning replica: ${uploads.join(',')}`,
    ).to.equal(true);
    const ingestions = await Promise.all(['issues-1', 'issues-2'].map(ingestedBy));
    expect(ingestions.reduce((a, b) => a + b)).to.equal(24);
    expect(
      ingestions.every((n) => n > 0),
      `ingestions per issues replica: ${ingestions.join(',')}`,
    ).to.equal(true);

    // One Gitleaks tool per check: the per-tool limit is shared by all workers; one scan at a time per worker.
    const runs = await scanSetup(t, git, 'app', Array(6).fill(GITLEAKS_TOOL_TYPE));
    const runChecks = await Promise.all(
      runs.tools.map(
        async (tool) =>
          ok(
            await admin.post('/api/v1/check', {
              layer_id: runs.layerId,
              security_tool_id: tool,
              scan_source_id: runs.sourceId,
              source_auth: { branch_name: 'main' },
              run_scan_task: { type: 'manual' },
            }),
          ).id as string,
      ),
    );
    const runIds = await Promise.all(
      runChecks.map(async (c) => ok(await admin.post(`/api/v1/check/${c}/run`)).scan_result_id as string),
    );
    for (const id of runIds) {
      let state = '';
      await waitFor(
        `scan ${id} to end`,
        async () =>
          ['completed', 'failed', 'stopped'].includes((state = ok(await admin.get(`/api/v1/scan-result/${id}`)).state)),
        120000,
      );
      expect(state, `scan ${id}`).to.equal('completed');
    }
    const ran = await Promise.all(
      ['scanning-1', 'scanning-2'].map(async (p) =>
        metricSum(await metrics(p), 'bulwark_scan_duration_seconds_count', {
          tool_type: 'Gitleaks',
          state: 'completed',
        }),
      ),
    );
    expect(ran.reduce((a, b) => a + b)).to.equal(6);
    expect(
      ran.every((n) => n > 0),
      `scan runs per scanning replica: ${ran.join(',')}`,
    ).to.equal(true);
  });

  it(`SIGKILL of the issues replica ingesting ${N.toLocaleString('en')} findings: the other takes it over once the broker notices (a session timeout) and the group rebalances (less than another), and ends with exactly the issues of an uninterrupted run`, async function () {
    this.timeout(900000);
    const big = largeReport(N);
    const [crashed, plain] = [
      await scanSetup(t, git, 'app', [MANUAL_TOOL_TYPE]),
      await scanSetup(t, git, 'app', [MANUAL_TOOL_TYPE]),
    ];
    const scanId = await upload(await manualCheck(admin, crashed), big);
    let victim = '';
    await waitFor(
      'a replica to write the ingestion',
      async () => Boolean((victim = (await writers())[0] ?? '')),
      120000,
    );
    // Written but not committed: the whole scan commits at once, so nothing is visible yet.
    expect((await db('issues').where('project_code', crashed.code).count({ n: '*' }))[0].n).to.equal('0');
    const survivor = victim === 'issues-1' ? 'issues-2' : 'issues-1';
    await sys.stopOne(victim, 'SIGKILL');
    const killedAt = Date.now();

    // The broker notices the silent member after one session timeout; the rebalance that follows waits
    // at most one more (the rebalance timeout is the session timeout) before the survivor consumes.
    await waitFor(
      'the survivor to take the ingestion over',
      async () => (await writers()).includes(survivor),
      4 * SESSION_TIMEOUT_MS,
    );
    const resumedAfter = Date.now() - killedAt;
    expect(resumedAfter, `ingestion resumed ${resumedAfter} ms after the kill`).to.be.below(2 * SESSION_TIMEOUT_MS);
    await ingested(scanId, N);
    await sys.startOne(victim);
    await waitFor('the restarted replica back in the group', () => groupSettled(2));

    await ingested(await upload(await manualCheck(admin, plain), big), N);
    const [a, b] = [await issueSnapshot(db, crashed.code), await issueSnapshot(db, plain.code)];
    expect(a).to.have.length(N);
    expect(a).to.deep.equal(b);
    expect(new Set(a.map((i) => i.match_key)).size).to.equal(N);
    expect((await db('ingested_scans').where('scan_id', scanId).count({ n: '*' }))[0].n).to.equal('1');
  });

  it('a replica leaving and joining again rebalances the group without stalling ingestion for a session timeout', async function () {
    this.timeout(300000);
    const env = await scanSetup(t, git, 'app', [MANUAL_TOOL_TYPE]);
    const checks = await Promise.all(Array.from({ length: 16 }, () => manualCheck(admin, env)));
    // One small scan after another, each timed from its upload to its issue, while the group changes.
    const latencies: number[] = [];
    let stop = false;
    let n = 0;
    const traffic = (async () => {
      while (!stop) {
        const started = Date.now();
        const tag = (n++).toString(26).replace(/[0-9]/g, (d) => 'qrstuvwxyz'[Number(d)]);
        await ingested(
          await upload(
            checks[n % checks.length],
            semgrepReport([{ rule: 'rebalance.rule', line: 1, code: `step_${tag}()`, path: `step_${tag}.py` }]),
          ),
          1,
          4 * SESSION_TIMEOUT_MS,
        );
        latencies.push(Date.now() - started);
      }
    })();
    try {
      await waitFor('traffic to flow', async () => latencies.length >= 3);
      await sys.stopOne('issues-1');
      await waitFor('the group to settle on one member', () => groupSettled(1));
      const before = latencies.length;
      await waitFor('traffic on one replica', async () => latencies.length >= before + 3);
      await sys.startOne('issues-1');
      await waitFor('the group to settle on two members', () => groupSettled(2));
      // The rejoined replica takes partitions and consumes from them.
      await waitFor(
        'the rejoined replica to ingest',
        async () => (await ingestedBy('issues-1')) > 0,
        4 * SESSION_TIMEOUT_MS,
      );
    } finally {
      stop = true;
      await traffic;
    }
    expect(Math.max(...latencies), `upload-to-issue times: ${latencies.join(', ')} ms`).to.be.below(SESSION_TIMEOUT_MS);
  });
});
