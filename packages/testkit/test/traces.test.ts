import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { captureLogLines } from '@bulwark/platform';
import { Api, ADMIN_PASSWORD, freePort, GitServer, RunningSystem, startAllMode, startGitServer, SystemUnderTest } from '../src';
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

const SPAN_KIND = { SERVER: 2, CLIENT: 3, CONSUMER: 5 };

/** A real OTLP/HTTP receiver on loopback: it keeps every span of every JSON export it is sent. */
async function startOtlpReceiver(): Promise<{ url: string; spans: OtlpSpan[]; requests: number; close(): Promise<void> }> {
  const received = { spans: [] as OtlpSpan[], requests: 0 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces' || !String(req.headers['content-type']).startsWith('application/json')) {
        res.writeHead(415).end();
        return;
      }
      received.requests++;
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] };
      for (const rs of body.resourceSpans) for (const ss of rs.scopeSpans) received.spans.push(...ss.spans);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`,
    spans: received.spans,
    get requests() {
      return received.requests;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const attr = (s: OtlpSpan, key: string) => {
  const v = s.attributes.find((a) => a.key === key)?.value;
  return v?.stringValue ?? (v?.intValue === undefined ? undefined : String(v.intValue));
};

describe('traces over OTLP and metrics on METRICS_PORT [TARGET=all]', function () {
  let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  let sys: RunningSystem;
  let git: GitServer;
  let metricsPort: number;
  const t = {} as { admin: Api };

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
    const env = await scanSetup({ admin: t.admin, sys } as unknown as SystemUnderTest, git, 'app', [MANUAL_TOOL_TYPE]);
    const check = await t.admin.post('/api/v1/check', { layer_id: env.layerId, security_tool_id: env.tools[0], scan_source_id: env.sourceId, source_auth: { branch_name: 'main' }, run_scan_task: { type: 'manual' } });
    expect(check.status).to.equal(200);

    // The caller starts the trace: its span is the root, sampled.
    const traceId = randomBytes(16).toString('hex');
    const callerSpanId = randomBytes(8).toString('hex');
    const logs: string[] = [];
    const stopCapture = captureLogLines((line) => logs.push(line));
    let scanId: string;
    try {
      const report = semgrepReport([{ rule: 'python.lang.security.eval', line: 3, code: 'eval(data)', path: 'traced.py' }]);
      const upload = await t.admin
        .withHeaders({ 'content-type': 'application/json', traceparent: `00-${traceId}-${callerSpanId}-01` })
        .request('POST', `/api/v1/check/${check.body.id}/results`, undefined, report);
      expect(upload.status, JSON.stringify(upload.body)).to.equal(200);
      scanId = upload.body.scan_result_id;
      const deadline = Date.now() + 60000;
      while ((await t.admin.get(`/api/v1/issues/count?filter[scan]=${scanId}`)).body.count !== 1) {
        if (Date.now() > deadline) throw new Error('the upload was not ingested');
        await new Promise((r) => setTimeout(r, 250));
      }
    } finally {
      stopCapture();
    }

    const inTrace = () => receiver.spans.filter((s) => s.traceId === traceId);
    const streamServer = () => inTrace().find((s) => s.kind === SPAN_KIND.SERVER && s.name.endsWith('/StreamFindings'));
    const deadline = Date.now() + 30000;
    while (!streamServer()) {
      if (Date.now() > deadline) throw new Error(`spans of the ingestion never arrived: ${JSON.stringify(inTrace().map((s) => s.name))}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    const spans = inTrace();
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const parentOf = (s: OtlpSpan) => {
      const parent = byId.get(s.parentSpanId ?? '');
      expect(parent, `parent of ${s.name} (${attr(s, 'bulwark.component')}) is in the trace`).to.not.equal(undefined);
      return parent!;
    };

    // From the end of the chain back to the caller: each hop's span is the child of the one before.
    const grpcServer = streamServer()!;
    expect(attr(grpcServer, 'bulwark.component')).to.equal('scanning');
    const grpcClient = parentOf(grpcServer);
    expect([grpcClient.kind, grpcClient.name, attr(grpcClient, 'bulwark.component')]).to.deep.equal([SPAN_KIND.CLIENT, grpcServer.name, 'issues']);
    const consumer = parentOf(grpcClient);
    expect([consumer.kind, attr(consumer, 'messaging.consumer.group.name'), attr(consumer, 'bulwark.event.type')]).to.deep.equal([SPAN_KIND.CONSUMER, 'issues.ingestion', 'scan.completed']);
    const scanningHttp = parentOf(consumer);
    expect([scanningHttp.kind, scanningHttp.name, attr(scanningHttp, 'bulwark.component')]).to.deep.equal([SPAN_KIND.SERVER, 'POST /api/v1/check/{check_id}/results', 'scanning']);
    const gatewayHttp = parentOf(scanningHttp);
    expect([gatewayHttp.kind, gatewayHttp.name, attr(gatewayHttp, 'bulwark.component'), attr(gatewayHttp, 'http.response.status_code')]).to.deep.equal([
      SPAN_KIND.SERVER, 'POST /api/v1/check/{check_id}/results', 'gateway', '200',
    ]);
    expect(gatewayHttp.parentSpanId, 'the gateway continues the caller\u2019s trace').to.equal(callerSpanId);

    const ingested = logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.message === 'scan ingested' && l.scanId === scanId);
    expect(ingested?.traceId, 'the ingestion\u2019s log line names the trace').to.equal(traceId);

    // METRICS_PORT moves /metrics off the gateway's public port; the findings counter shows the ingestion.
    expect((await sys.api.get('/metrics')).status).to.equal(404);
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    const findings = /^bulwark_ingested_findings_total (\d+)/m.exec(text);
    expect(Number(findings?.[1])).to.be.at.least(1);
  });
});
