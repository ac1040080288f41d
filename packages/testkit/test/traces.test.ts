import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { expect } from 'chai';
import { captureLogLines } from '@bulwark/platform';
import {
  Api,
  ADMIN_PASSWORD,
  freePort,
  GitServer,
  requireInfra,
  RunningSystem,
  ScaledSystem,
  startAllMode,
  startGitServer,
  startScaledMode,
  SystemUnderTest,
  manualCheck,
} from '@bulwark/testkit';
import { MANUAL_TOOL_TYPE, scanSetup } from '../../../services/scanning/test/scanning.suite';
import { semgrepReport } from '../../../services/issues/test/issues.suite';

/** One span as OTLP/HTTP JSON carries it (ids in hex). */
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: { stringValue?: string; intValue?: string | number } }[];
}

const SPAN_KIND = { INTERNAL: 1, SERVER: 2, CLIENT: 3, CONSUMER: 5 };
const GITLEAKS_TOOL_TYPE = 2;

/** A real OTLP/HTTP receiver on loopback: it keeps every span of every JSON export it is sent. */
interface OtlpReceiver {
  /** The OTLP/HTTP traces URL to configure. */
  url: string;
  spans: OtlpSpan[];
  close(): Promise<void>;
}

async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: OtlpSpan[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (
        req.method !== 'POST' ||
        req.url !== '/v1/traces' ||
        !String(req.headers['content-type']).startsWith('application/json')
      ) {
        res.writeHead(415).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[];
      };
      for (const rs of body.resourceSpans) for (const ss of rs.scopeSpans) spans.push(...ss.spans);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`,
    spans,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const attr = (s: OtlpSpan, key: string) => {
  const v = s.attributes.find((a) => a.key === key)?.value;
  return v?.stringValue ?? (v?.intValue === undefined ? undefined : String(v.intValue));
};

/** A traceparent of the caller's own (sampled) span, so the test knows the trace to look for. */
const callerTrace = () => ({ traceId: randomBytes(16).toString('hex'), callerSpanId: randomBytes(8).toString('hex') });
const waitIngested = async (admin: Api, scanId: string, issues: (n: number) => boolean) => {
  const deadline = Date.now() + 240000;
  while (!issues((await admin.get(`/api/v1/issues/count?filter[scan]=${scanId}`)).body.count)) {
    if (Date.now() > deadline) throw new Error(`scan ${scanId} was not ingested`);
    await new Promise((r) => setTimeout(r, 250));
  }
};

/** What the test checks of a span: its kind, its component, and its name (a consumer's: the event type). */
const summary = (s: OtlpSpan) => [
  s.kind,
  attr(s, 'bulwark.component'),
  s.kind === SPAN_KIND.CONSUMER ? attr(s, 'bulwark.event.type') : s.name,
];

/**
 * The spans from the scanning server span of the ingestion's StreamFindings call up, parent by
 * parent, to the one whose parent is the caller's span. Spans arrive in batches in any order, so
 * this waits until the chain links up.
 */
const chainToCaller = async (receiver: OtlpReceiver, traceId: string, callerSpanId: string): Promise<OtlpSpan[]> => {
  const deadline = Date.now() + 30000;
  for (;;) {
    const spans = receiver.spans.filter((s) => s.traceId === traceId);
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const chain: OtlpSpan[] = [];
    for (
      let s = spans.find((x) => x.kind === SPAN_KIND.SERVER && x.name.endsWith('/StreamFindings'));
      s;
      s = byId.get(s.parentSpanId ?? '')
    ) {
      chain.push(s);
      if (s.parentSpanId === callerSpanId) return chain;
    }
    if (Date.now() > deadline)
      throw new Error(
        `the trace never linked up to the caller: ${JSON.stringify(chain.map(summary))} of ${JSON.stringify(spans.map(summary))}`,
      );
    await new Promise((r) => setTimeout(r, 250));
  }
};

/** Uploads a one-finding report as a caller whose span is `callerSpanId`, and waits for its ingestion. */
const uploadTraced = async (admin: Api, checkId: string, traceId: string, callerSpanId: string): Promise<string> => {
  const report = semgrepReport([{ rule: 'python.lang.security.eval', line: 3, code: 'eval(data)', path: 'traced.py' }]);
  const upload = await admin
    .withHeaders({ 'content-type': 'application/json', traceparent: `00-${traceId}-${callerSpanId}-01` })
    .request('POST', `/api/v1/check/${checkId}/results`, undefined, report);
  expect(upload.status, JSON.stringify(upload.body)).to.equal(200);
  await waitIngested(admin, upload.body.scan_result_id, (n) => n === 1);
  return upload.body.scan_result_id as string;
};

const UPLOAD_ROUTE = 'POST /api/v1/check/{check_id}/results';
const STREAM_FINDINGS = '/bulwark.scanning.v1.ScanningService/StreamFindings';
/** The ingestion's part of every chain, bottom-up: the gRPC hop, then the bus hop. */
const INGESTION = [
  [SPAN_KIND.SERVER, 'scanning', STREAM_FINDINGS],
  [SPAN_KIND.CLIENT, 'issues', STREAM_FINDINGS],
  [SPAN_KIND.CONSUMER, 'issues.ingestion', 'scan.completed'],
];

describe('traces over OTLP and metrics on METRICS_PORT [TARGET=all]', function () {
  let receiver: OtlpReceiver;
  let sys: RunningSystem;
  let git: GitServer;
  let metricsPort: number;
  const t = {} as { admin: Api };
  const underTest = (): SystemUnderTest => ({ mode: 'all', sys, admin: t.admin, anon: sys.api });

  before(async function () {
    this.timeout(180000);
    receiver = await startOtlpReceiver();
    metricsPort = await freePort();
    sys = await startAllMode({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: receiver.url, METRICS_PORT: String(metricsPort) });
    t.admin = sys.api.as(await sys.api.login('admin', ADMIN_PASSWORD));
    git = await startGitServer();
    git.addRepository('app', { 'app.py': 'import subprocess\n' });
  });

  after(async function () {
    this.timeout(60000);
    await sys?.stop();
    await git?.close();
    await receiver?.close();
  });

  it('follows an upload in one trace: gateway, scanning over HTTP, the bus to issues, and the gRPC calls of its ingestion; logs carry the trace id', async function () {
    this.timeout(120000);
    const env = await scanSetup(underTest(), git, 'app', [MANUAL_TOOL_TYPE]);
    const checkId = await manualCheck(t.admin, env);
    const { traceId, callerSpanId } = callerTrace();
    const logs: string[] = [];
    const stopCapture = captureLogLines((line) => logs.push(line));
    let scanId: string;
    try {
      scanId = await uploadTraced(t.admin, checkId, traceId, callerSpanId);
    } finally {
      stopCapture();
    }

    expect((await chainToCaller(receiver, traceId, callerSpanId)).map(summary)).to.deep.equal([
      ...INGESTION,
      [SPAN_KIND.SERVER, 'scanning', UPLOAD_ROUTE],
      [SPAN_KIND.SERVER, 'gateway', UPLOAD_ROUTE],
    ]);

    const ingested = logs
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.message === 'scan ingested' && l.scanId === scanId);
    expect(ingested?.traceId, 'the ingestion\u2019s log line names the trace').to.equal(traceId);

    // METRICS_PORT moves /metrics off the gateway's public port; the findings counter shows the ingestion.
    expect((await sys.api.get('/metrics')).status).to.equal(404);
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    const findings = /^bulwark_ingested_findings_total (\d+)/m.exec(text);
    expect(Number(findings?.[1])).to.be.at.least(1);
  });

  it('follows a check run in one trace: the request, the queued scan\u2019s run by a worker, and its ingestion', async function () {
    this.timeout(300000);
    requireInfra(this, 'scanners');
    git.addRepository('secrets', path.resolve(__dirname, '../../../services/scanning/test/fixtures/secrets-app'));
    const env = await scanSetup(underTest(), git, 'secrets', [GITLEAKS_TOOL_TYPE]);
    const checkId = await manualCheck(t.admin, env);
    const { traceId, callerSpanId } = callerTrace();
    const run = await t.admin
      .withHeaders({ traceparent: `00-${traceId}-${callerSpanId}-01` })
      .post(`/api/v1/check/${checkId}/run`);
    expect(run.status, JSON.stringify(run.body)).to.equal(200);
    await waitIngested(t.admin, run.body.scan_result_id, (n) => n > 0);

    const route = 'POST /api/v1/check/{check_id}/run';
    const chain = await chainToCaller(receiver, traceId, callerSpanId);
    expect(chain.map(summary)).to.deep.equal([
      ...INGESTION,
      [SPAN_KIND.INTERNAL, 'scanning', 'scan run'],
      [SPAN_KIND.SERVER, 'scanning', route],
      [SPAN_KIND.SERVER, 'gateway', route],
    ]);
    expect([attr(chain[3], 'bulwark.tool_type'), attr(chain[3], 'bulwark.scan.end')]).to.deep.equal([
      'Gitleaks',
      'completed',
    ]);

    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(text).to.match(/^bulwark_scan_duration_seconds_count\{tool_type="Gitleaks",state="completed"\} [1-9]/m);
  });
});

describe('traces over OTLP across processes [scaled mode: the gateway, identity and the services as separate processes on PostgreSQL, Kafka and Redis]', function () {
  let receiver: OtlpReceiver;
  let sys: ScaledSystem | undefined;
  let git: GitServer;
  let admin: Api;

  before(async function () {
    this.timeout(240000);
    const infra = requireInfra(this, 'postgres', 'kafka', 'redis');
    receiver = await startOtlpReceiver();
    sys = await startScaledMode(infra, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: receiver.url });
    admin = sys.api.as(await sys.api.login('admin', ADMIN_PASSWORD));
    git = await startGitServer();
    git.addRepository('app', { 'app.py': 'import subprocess\n' });
  });

  after(async function () {
    this.timeout(60000);
    await sys?.stop();
    await git?.close();
    await receiver?.close();
  });

  it('follows an upload from a gateway process to the services process, through Kafka to the ingestion and its gRPC calls', async function () {
    this.timeout(180000);
    const env = await scanSetup({ mode: 'scaled', sys: sys!, admin, anon: sys!.api }, git, 'app', [MANUAL_TOOL_TYPE]);
    const checkId = await manualCheck(admin, env);
    const { traceId, callerSpanId } = callerTrace();
    await uploadTraced(admin, checkId, traceId, callerSpanId);
    const chain = await chainToCaller(receiver, traceId, callerSpanId);
    expect(chain.map(summary)).to.deep.equal([
      ...INGESTION,
      [SPAN_KIND.SERVER, 'scanning', UPLOAD_ROUTE],
      [SPAN_KIND.SERVER, 'gateway', UPLOAD_ROUTE],
    ]);
  });
});
