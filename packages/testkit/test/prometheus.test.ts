import { ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { ADMIN_PASSWORD, freePort, inCI, requireInfra, ScaledSystem, startScaledMode } from '@bulwark/testkit';

/** The prometheus binary on PATH (Debian's package, installed by `deploy/local/infra.sh install`). */
function prometheusBinary(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, 'prometheus');
    if (dir && fs.existsSync(candidate)) return candidate;
  }
  return undefined;
}

interface Sample {
  metric: Record<string, string>;
  value: [number, string];
}

describe('metrics scraped by a real Prometheus [scaled mode: separate processes on PostgreSQL, Kafka and Redis]', function () {
  let sys: ScaledSystem | undefined;
  let prometheus: ChildProcess | undefined;
  let workDir: string;
  let api: string;
  let targets: string[];

  const query = async (promql: string): Promise<Sample[]> => {
    const res = await fetch(`${api}/api/v1/query?query=${encodeURIComponent(promql)}`);
    const body = (await res.json()) as { status: string; data: { result: Sample[] }; error?: string };
    if (body.status !== 'success') throw new Error(`query ${promql} failed: ${body.error}`);
    return body.data.result;
  };
  const scalar = async (promql: string) => {
    const result = await query(promql);
    return result.length === 0 ? 0 : Number(result[0].value[1]);
  };
  const waitFor = async (what: string, probe: () => Promise<boolean>, ms = 60000) => {
    const deadline = Date.now() + ms;
    while (!(await probe().catch(() => false))) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  };

  before(async function () {
    this.timeout(240000);
    const infra = requireInfra(this, 'postgres', 'kafka', 'redis');
    const binary = prometheusBinary();
    if (!binary) {
      const message = 'needs the prometheus binary: "bash deploy/local/infra.sh install"';
      if (inCI()) throw new Error(`CI has no prometheus: ${message}`);
      console.log(`      [left out] ${this.test?.parent?.fullTitle()}: ${message}`);
      this.skip();
    }
    sys = await startScaledMode(infra);
    // Every process's /metrics: the gateways' and each service's HTTP port (the services that share
    // a process show the same registry, which Prometheus scrapes as targets of their own).
    targets = [...sys.gateways.map((g) => g.baseUrl), ...Object.values(sys.services)].map((u) => new URL(u).host);
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-prometheus-'));
    const config = path.join(workDir, 'prometheus.yml');
    fs.writeFileSync(
      config,
      [
        'global:',
        '  scrape_interval: 1s',
        '  scrape_timeout: 1s',
        'scrape_configs:',
        '  - job_name: bulwark',
        '    static_configs:',
        `      - targets: [${targets.map((t) => `'${t}'`).join(', ')}]`,
        '',
      ].join('\n'),
    );
    const port = await freePort();
    api = `http://127.0.0.1:${port}`;
    const log = fs.openSync(path.join(workDir, 'prometheus.log'), 'a');
    prometheus = spawn(
      binary,
      [
        `--config.file=${config}`,
        `--storage.tsdb.path=${path.join(workDir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { stdio: ['ignore', log, log] },
    );
    fs.closeSync(log);
    await waitFor('prometheus to answer', async () => (await fetch(`${api}/-/ready`)).ok);
  });

  after(async function () {
    this.timeout(60000);
    if (prometheus && prometheus.exitCode === null) {
      const exited = new Promise((resolve) => prometheus!.once('exit', resolve));
      prometheus.kill('SIGTERM');
      const timer = setTimeout(() => prometheus!.kill('SIGKILL'), 10000);
      await exited;
      clearTimeout(timer);
    }
    await sys?.stop();
    if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
  });

  it('scrapes every process, and sees requests through the gateway counted and timed by route template', async function () {
    this.timeout(180000);
    await waitFor('every target scraped and up', async () => {
      const up = await query('up{job="bulwark"}');
      return up.length === targets.length && up.every((s) => s.value[1] === '1');
    });
    const requests =
      'sum(bulwark_http_requests_total{component="gateway",route="/api/v1/auth/me",method="GET",status="200"})';
    const before = await scalar(requests);

    const admin = sys!.api.as(await sys!.api.login('admin', ADMIN_PASSWORD));
    for (let i = 0; i < 5; i++) expect((await admin.get('/api/v1/auth/me')).status).to.equal(200);
    // A raw path with an id never becomes a label: it is counted under its template (or as unmatched).
    expect((await admin.get('/api/v1/project/no-such-project-code')).status).to.equal(404);

    await waitFor('the five requests counted', async () => (await scalar(requests)) >= before + 5);
    // Each process is scraped on its own schedule: the identity process may be scraped later than the gateway.
    const identityServed =
      'sum(bulwark_http_requests_total{component="identity",route="/api/v1/auth/me",status="200"})';
    await waitFor(
      'the identity service to count the forwarded requests',
      async () => (await scalar(identityServed)) >= 5,
    );

    const buckets = await query(
      'bulwark_http_request_duration_seconds_bucket{component="gateway",route="/api/v1/auth/me",status="200",le="+Inf"}',
    );
    expect(buckets, 'the latency histogram has its buckets').to.not.be.empty;

    const routes = (await query('count by (route) (bulwark_http_requests_total)')).map((s) => s.metric.route);
    expect(routes).to.include('/api/v1/project/{project_code}');
    expect(
      routes.filter((r) => r.includes('no-such-project-code')),
      'no raw path as a label',
    ).to.be.empty;

    // The gateway authenticates each token over gRPC with identity: both sides count the calls.
    expect(await scalar('sum(bulwark_grpc_client_handled_total{code="OK"})')).to.be.greaterThan(0);
    expect(await scalar('sum(bulwark_grpc_server_handled_total{code="OK"})')).to.be.greaterThan(0);
    // Read at scrape time from each service's database, and the process metrics of every process.
    expect(await query('bulwark_outbox_backlog')).to.have.length.of.at.least(6);
    expect(await query('bulwark_db_pool_connections{state="used"}')).to.have.length.of.at.least(6);
    expect(await query('bulwark_scan_queue_depth'), 'the scanning process counts its queue').to.not.be.empty;
    expect(await query('process_cpu_seconds_total')).to.have.length(targets.length);
  });
});
