import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { expect } from 'chai';
import { InternalAuth } from '@bulwark/platform';
import {
  ADMIN_PASSWORD,
  Api,
  freePort,
  GitServer,
  RunningSystem,
  startAllModeProcess,
  startGitServer,
  uniqueSuffix,
  type Json,
  manualCheck,
} from '@bulwark/testkit';
import { MANUAL_TOOL_TYPE, scanSetup } from '../../services/scanning/test/scanning.suite';

interface RawResponse {
  status: number;
  body: Json;
}

/**
 * A request through Node's own HTTP client, which a `fetch` cannot make: with `Expect: 100-continue`
 * the body is sent only once the gateway invited it; without Content-Length it goes chunked.
 */
function rawRequest(
  baseUrl: string,
  o: {
    method: string;
    path: string;
    token?: string;
    headers?: Record<string, string>;
    chunks?: Buffer[];
    expectContinue?: boolean;
  },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {
      ...(o.token ? { authorization: `Bearer ${o.token}` } : {}),
      ...o.headers,
    };
    if (o.expectContinue) headers.expect = '100-continue';
    const req = http.request(`${baseUrl}${o.path}`, { method: o.method, headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined });
      });
    });
    // A server that refused the body may stop reading it: the answer is what counts.
    req.on('error', (err) => (req.writableEnded ? undefined : reject(err)));
    const sendBody = () => {
      for (const c of o.chunks ?? []) req.write(c);
      req.end();
    };
    if (o.expectContinue) req.on('continue', sendBody);
    else sendBody();
  });
}

/**
 * Writes `head` (its `\n` sent as CRLF) and `body` over a TCP connection, one character per byte,
 * and reads the answer's status and JSON body; with `abort`, goes away after the body, reading nothing.
 */
function overSocket(baseUrl: string, head: string, body = '', abort = false): Promise<RawResponse | undefined> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(new URL(baseUrl).port), '127.0.0.1');
    let text = '';
    socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => {
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text);
      resolve(
        status ? { status: Number(status[1]), body: JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) } : undefined,
      );
    });
    socket.write(Buffer.from(`${head.replace(/\n/g, '\r\n')}\r\n${body}`, 'latin1'), () => {
      if (abort) socket.destroy();
    });
  });
}

const fieldsOf = (res: { body: Json }) => (res.body?.error?.details ?? []).map((d: { field: string }) => d.field);

/** A SARIF report of two findings, padded with a property no parser reads to reach `bytes`. */
function sarifReport(bytes: number, marker: string): Buffer {
  const results = [1, 2].map((n) => ({
    ruleId: `hostile.rule-${n}`,
    level: 'error',
    message: { text: `finding ${n} ${marker}` },
    locations: [{ physicalLocation: { artifactLocation: { uri: `src/file${n}.py` }, region: { startLine: n } } }],
  }));
  const doc = {
    version: '2.1.0',
    runs: [{ tool: { driver: { name: 'hostile-sarif', rules: [] } }, results, properties: { padding: '' } }],
  };
  const base = Buffer.byteLength(JSON.stringify(doc));
  doc.runs[0].properties.padding = 'p'.repeat(Math.max(0, bytes - base));
  return Buffer.from(JSON.stringify(doc));
}

/**
 * Input an attacker controls, sent through the real gateway of the shipped binary in TARGET=all (one
 * process: a crash anywhere would end every service). Each answer is a 4xx in the error model naming
 * the field, and the process is still there afterwards.
 */
describe('hostile input through the gateway [TARGET=all, the built binary in its own process]', function () {
  this.timeout(300000);
  let sys: RunningSystem & { alive(): boolean; dataDir: string };
  let identityUrl: string;
  let internalAuth: InternalAuth;
  let git: GitServer;
  let admin: Api;
  let token: string;
  let project: string;
  let checkId: string;
  let gateId: string;

  const ok = (res: { status: number; body: Json }) => {
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body;
  };
  const refused = (res: { status: number; body: Json }, field: string) => {
    expect(res.status, JSON.stringify(res.body)).to.equal(400);
    expect(res.body.error.code).to.equal('invalid_request');
    expect(fieldsOf(res)).to.include(field);
  };

  /** Waits until the two findings of an uploaded report are issues. */
  const ingested = async (scan: string) => {
    const deadline = Date.now() + 60000;
    while (ok(await admin.get(`/api/v1/issues/count?filter[scan]=${scan}`)).count < 2) {
      if (Date.now() > deadline) throw new Error(`the findings of scan ${scan} were not ingested`);
      await new Promise((r) => setTimeout(r, 250));
    }
  };

  before(async () => {
    // Identity on a known port with a known internal secret: a body can be cut short there directly.
    const secret = randomBytes(32).toString('hex');
    internalAuth = new InternalAuth(secret, 'gateway');
    identityUrl = `http://127.0.0.1:${await freePort()}`;
    sys = await startAllModeProcess({ IDENTITY_HTTP_PORT: new URL(identityUrl).port, BULWARK_INTERNAL_SECRET: secret });
    git = await startGitServer();
    git.addRepository('app', { 'app.py': 'print(1)\n' });
    token = await sys.api.login('admin', ADMIN_PASSWORD);
    admin = sys.api.as(token);
    const env = await scanSetup({ mode: 'all', sys, admin, anon: sys.api }, git, 'app', [MANUAL_TOOL_TYPE]);
    project = env.code;
    checkId = await manualCheck(admin, env);
    gateId = ok(await admin.post('/api/v1/quality-gate', { name: `gate-${uniqueSuffix()}` })).id;
  });

  after(async () => {
    await git?.close();
    await sys?.stop();
  });

  afterEach(function () {
    if (sys && !sys.alive()) throw new Error(`the process died during "${this.currentTest?.title}"`);
  });

  describe('finding 2: text that is not ASCII where it crosses gRPC', () => {
    it('refuses an unknown project "\u00e9" on POST /report with 400 and the earlier summary download with 404, and the process keeps answering', async () => {
      refused(
        await admin.post('/api/v1/report', { name: 'x', type: 'summary', filter: { project_code: ['\u00e9'] } }),
        'filter.project_code',
      );
      expect(
        (await admin.get('/api/v1/report/summary/download?format=json&filter[project_code]=%C3%A9')).status,
      ).to.equal(404);
      expect(sys.alive()).to.equal(true);
      expect(ok(await admin.get(`/api/v1/project/${project}`)).code).to.equal(project);
      const report = ok(
        await admin.post('/api/v1/report', {
          name: 'Caf\u00e9 \u65e5\u672c',
          type: 'summary',
          filter: { project_code: [project] },
        }),
      );
      expect(report.name).to.equal('Caf\u00e9 \u65e5\u672c');
    });
  });

  describe('finding 3: Expect: 100-continue and body limits', () => {
    it('proxies a small JSON request with Expect: 100-continue with the caller\u2019s identity', async () => {
      const name = `expect-${uniqueSuffix()}`;
      const res = await rawRequest(sys.api.baseUrl, {
        method: 'POST',
        path: '/api/v1/quality-gate',
        token,
        expectContinue: true,
        headers: { 'content-type': 'application/json' },
        chunks: [Buffer.from(JSON.stringify({ name }))],
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.include({ name, author: 'admin' });
      const get = await rawRequest(sys.api.baseUrl, {
        method: 'GET',
        path: `/api/v1/quality-gate/${res.body.id}`,
        token,
        expectContinue: true,
      });
      expect(get.status, JSON.stringify(get.body)).to.equal(200);
    });

    it('accepts a 2 MiB report uploaded with Expect: 100-continue, as curl sends it, and ingests its findings', async () => {
      const marker = `expect-upload-${uniqueSuffix()}`;
      const report = sarifReport(2 * 1024 * 1024, marker);
      const res = await rawRequest(sys.api.baseUrl, {
        method: 'POST',
        path: `/api/v1/check/${checkId}/results`,
        token,
        expectContinue: true,
        headers: { 'content-type': 'application/json', 'content-length': String(report.length) },
        chunks: [report],
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      await ingested(res.body.scan_result_id);
    });

    it('refuses a chunked body over BODY_LIMIT_BYTES with 413 in the error model and creates nothing', async () => {
      const name = `too-large-${uniqueSuffix()}`;
      const res = await rawRequest(sys.api.baseUrl, {
        method: 'POST',
        path: '/api/v1/quality-gate',
        token,
        headers: { 'content-type': 'application/json' },
        chunks: [
          Buffer.from(`{"name":"${name}","padding":"`),
          ...Array.from({ length: 20 }, () => Buffer.alloc(64 * 1024, 'x')),
          Buffer.from('"}'),
        ],
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(413);
      expect(res.body.error.code).to.equal('payload_too_large');
      expect(ok(await admin.get(`/api/v1/quality-gates?search[name]=${name}`)).total).to.equal(0);
    });

    it('refuses a chunked body over the limit sent after Expect: 100-continue too', async () => {
      const res = await rawRequest(sys.api.baseUrl, {
        method: 'POST',
        path: '/api/v1/quality-gate',
        token,
        expectContinue: true,
        headers: { 'content-type': 'application/json' },
        chunks: Array.from({ length: 20 }, () => Buffer.alloc(64 * 1024, ' ')),
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(413);
      expect(res.body.error.code).to.equal('payload_too_large');
    });
  });

  describe('bytes, not schemas: malformed requests over a raw socket', () => {
    const logLines = () =>
      fs
        .readFileSync(path.join(sys.dataDir, 'all.log'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { level: string; message: string; requestId?: string; component: string });

    it('answers a malformed method, path, Content-Length, Transfer-Encoding or chunk with 400 naming the part, and an absurd declared length with 413', async () => {
      const cases: [string, string, number, string | undefined][] = [
        ['FOO /api/v1/projects HTTP/1.1\nHost: x\n', '', 400, 'method'],
        ['GET /api/v1/project/\xff HTTP/1.1\nHost: x\n', '', 400, 'path'],
        ['GET /api/v1/project/%ff HTTP/1.1\nHost: x\nConnection: close\n', '', 400, 'path'],
        [
          `GET /api/v1/project/%C0%AF HTTP/1.1\nHost: x\nAuthorization: Bearer ${token}\nConnection: close\n`,
          '',
          400,
          'path',
        ],
        [
          'POST /api/v1/auth/login HTTP/1.1\nHost: x\nContent-Length: 99999999999999999999\n',
          '{}',
          400,
          'headers.content-length',
        ],
        ['POST /api/v1/auth/login HTTP/1.1\nHost: x\nContent-Length: -1\n', '{}', 400, 'headers.content-length'],
        [
          'POST /api/v1/auth/login HTTP/1.1\nHost: x\nContent-Length: 2\nContent-Length: 3\n',
          '{}',
          400,
          'headers.content-length',
        ],
        [
          'POST /api/v1/auth/login HTTP/1.1\nHost: x\nTransfer-Encoding: chunked, gzip\n',
          '',
          400,
          'headers.transfer-encoding',
        ],
        [
          'POST /api/v1/auth/login HTTP/1.1\nHost: x\nContent-Type: application/json\nTransfer-Encoding: chunked\n',
          'zz\r\n{}\r\n0\r\n\r\n',
          400,
          'body',
        ],
        [
          `GET /api/v1/projects HTTP/1.1\nHost: x\nAuthorization: Bearer ${token}\nX-Note: \xc3\x28\nConnection: close\n`,
          '',
          400,
          'headers.x-note',
        ],
        [
          'POST /api/v1/auth/login HTTP/1.1\nHost: x\nContent-Type: application/json\nContent-Length: 1000000000\n',
          '{}',
          413,
          undefined,
        ],
      ];
      for (const [head, body, status, field] of cases) {
        const res = await overSocket(sys.api.baseUrl, head, body);
        expect(res?.status, head).to.equal(status);
        if (field) expect(fieldsOf(res!), head).to.deep.equal([field]);
      }
    });

    it('passes a request with a Trailer header on without it ending the process', async () => {
      const name = `trailer-${uniqueSuffix()}`;
      const body = JSON.stringify({ name });
      const res = await overSocket(
        sys.api.baseUrl,
        `POST /api/v1/quality-gate HTTP/1.1\nHost: x\nAuthorization: Bearer ${token}\nContent-Type: application/json\n` +
          `Content-Length: ${body.length}\nTrailer: X-Checksum\nTE: trailers\nConnection: close\n`,
        body,
      );
      expect(res?.status, JSON.stringify(res?.body)).to.equal(200);
      expect(sys.alive()).to.equal(true);
      expect(ok(await admin.get(`/api/v1/quality-gates?search[name]=${name}`)).total).to.equal(1);
    });

    it('logs a body its client cut short and an oversized chunked body as warnings, never as a failed request', async () => {
      const cut = `cut-short-${uniqueSuffix()}`;
      const over = `oversized-${uniqueSuffix()}`;
      // Cut short at identity itself, as the gateway passes it on when its caller goes away mid-body.
      const head =
        `POST /api/v1/auth/login HTTP/1.1\nHost: x\nX-Request-Id: ${cut}\nContent-Type: application/json\n` +
        `Content-Length: 100\nx-bulwark-internal: ${internalAuth.forService()}\n`;
      expect(await overSocket(identityUrl, head, '{"username":"adm', true)).to.equal(undefined);
      const oversized = await rawRequest(sys.api.baseUrl, {
        method: 'POST',
        path: '/api/v1/auth/login',
        headers: { 'content-type': 'application/json', 'x-request-id': over },
        chunks: [
          Buffer.from('{"username":"admin","password":"'),
          ...Array.from({ length: 20 }, () => Buffer.alloc(64 * 1024, 'x')),
        ],
      });
      expect(oversized.status).to.equal(413);
      // Identity hears of both (the gateway cuts the oversized body short on its way): its warnings say it has.
      const deadline = Date.now() + 30000;
      const warned = (id: string) =>
        logLines().some((l) => l.requestId === id && l.level === 'warn' && l.component === 'identity.http');
      while (!(warned(cut) && warned(over))) {
        if (Date.now() > deadline) throw new Error('identity logged no warning for the cut-short and oversized bodies');
        await new Promise((r) => setTimeout(r, 200));
      }
      const failures = logLines().filter((l) => (l.requestId === cut || l.requestId === over) && l.level === 'error');
      expect(failures).to.deep.equal([]);
    });
  });

  describe('finding 4: input a store cannot hold is refused at the edge', () => {
    const NUL = '\u0000';
    it('refuses the NUL character in body fields, filters, searches and path parameters of every service, naming the field', async () => {
      const cases: [string, string, unknown, string][] = [
        ['POST', '/api/v1/auth/login', { username: `ad${NUL}min`, password: 'x' }, 'username'],
        ['GET', '/api/v1/users?search[username]=%00', undefined, 'search[username]'],
        ['GET', '/api/v1/roles?search[name]=a%00', undefined, 'search[name]'],
        ['GET', '/api/v1/role/a%00b', undefined, 'role_code'],
        [
          'POST',
          '/api/v1/project',
          { code: `p-${uniqueSuffix()}`, name: `a${NUL}`, description: 'd', tags: ['t'] },
          'name',
        ],
        ['GET', '/api/v1/projects?search[name]=%00', undefined, 'search[name]'],
        ['GET', '/api/v1/project/x%00', undefined, 'project_code'],
        ['GET', '/api/v1/sources?search[source]=%00', undefined, 'search[source]'],
        ['GET', '/api/v1/tools?search[url]=%00', undefined, 'search[url]'],
        ['GET', '/api/v1/checks?filter[project_code]=%00', undefined, 'filter[project_code]'],
        ['GET', '/api/v1/sboms?search=%00', undefined, 'search'],
        ['GET', '/api/v1/dependencies?search[name]=%00', undefined, 'search[name]'],
        ['GET', '/api/v1/issues?search[title]=%00', undefined, 'search[title]'],
        ['GET', '/api/v1/issues/count?filter[comment_message]=a%00', undefined, 'filter[comment_message]'],
        ['GET', '/api/v1/security-rules?filter[cve]=%00', undefined, 'filter[cve]'],
        ['POST', '/api/v1/quality-gate', { name: `g${NUL}` }, 'name'],
        ['POST', '/api/v1/report', { name: `r${NUL}`, type: 'summary' }, 'name'],
        ['GET', '/api/v1/reports?search[name]=%00', undefined, 'search[name]'],
        ['GET', '/api/v1/notifiers?search[name]=%00', undefined, 'search[name]'],
        ['GET', '/api/v1/events?search[message]=%00', undefined, 'search[message]'],
      ];
      for (const [method, path, body, field] of cases) {
        const res = await admin.request(method, path, body);
        expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).to.equal(400);
        expect(fieldsOf(res), `${method} ${path}`).to.include(field);
      }
    });

    it('refuses a time-zone offset beyond \u00b115:59 and a year PostgreSQL cannot hold, and takes \u00b115:59', async () => {
      refused(
        await admin.get('/api/v1/issues?filter[detected_at_start]=2024-01-01T00:00:00%2B16:00'),
        'filter[detected_at_start]',
      );
      refused(
        await admin.get('/api/v1/issues/count?filter[last_detected_at_end]=2024-01-01T00:00:00-23:59'),
        'filter[last_detected_at_end]',
      );
      refused(
        await admin.get('/api/v1/report/summary/download?format=json&filter[created_at_start]=0000-01-01T00:00:00Z'),
        'filter[created_at_start]',
      );
      ok(
        await admin.get(
          '/api/v1/issues?filter[detected_at_start]=2024-01-01T00:00:00%2B15:59&filter[detected_at_end]=2024-01-01T00:00:00-15:59',
        ),
      );
    });

    it('refuses integers beyond what an integer column holds, naming the field', async () => {
      refused(await admin.get('/api/v1/issues?filter[cwe]=18421346013'), 'filter[cwe]');
      refused(
        await admin.get('/api/v1/security-rules?filter[suppressing_status]=18421346013'),
        'filter[suppressing_status]',
      );
      refused(await admin.get('/api/v1/projects?page=2147483648'), 'page');
      for (const value of [18421346013, '18421346013']) {
        refused(
          await admin.post('/api/v1/condition', {
            quality_gate_id: gateId,
            condition_type: 'total',
            operator: 'greater_than',
            value,
          }),
          'value',
        );
      }
      refused(
        await admin.post('/api/v1/issues/statuses/transition', { from_status_id: 2147483648, to_status_id: 1 }),
        'from_status_id',
      );
      ok(
        await admin.post('/api/v1/condition', {
          quality_gate_id: gateId,
          condition_type: 'total',
          operator: 'greater_than',
          value: 2147483647,
        }),
      );
    });

    it('takes only the cursor it made for the same order: a garbage, crafted or foreign one is 400 naming cursor', async () => {
      const encode = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
      const id = '00000000-0000-4000-8000-000000000000';
      const upload = await admin
        .withHeaders({ 'content-type': 'application/json' })
        .request('POST', `/api/v1/check/${checkId}/results`, undefined, sarifReport(0, 'cursor').toString());
      await ingested(ok(upload).scan_result_id);
      const list = `/api/v1/issues?filter[project_code]=${project}&limit=1`;
      const first = ok(await admin.get(`${list}&sort=severity`));
      expect(first.next_cursor, 'two issues were uploaded, so a first page of one has a next').to.be.a('string');
      const second = ok(await admin.get(`${list}&sort=severity&cursor=${first.next_cursor}`));
      expect(second.items.map((i: { id: string }) => i.id)).not.to.include(first.items[0].id);
      for (const cursor of [
        'not-a-cursor!',
        'e30',
        encode([4, id]),
        encode({ sort: 'severity', value: "1' or '1'='1", id }),
        encode({ sort: 'severity', value: 4, id: 'x' }),
        encode({ sort: 'severity', value: 18421346013, id }),
        encode({ sort: 'severity', value: 4, id, extra: 1 }),
      ]) {
        refused(await admin.get(`${list}&sort=severity&cursor=${cursor}`), 'cursor');
      }
      // The next_cursor of one order does not page another.
      refused(await admin.get(`${list}&sort=-first_detected_at&cursor=${first.next_cursor}`), 'cursor');
      refused(await admin.get(`${list}&sort=-severity&cursor=${first.next_cursor}`), 'cursor');
    });

    it('ingests an uploaded report whose findings hold NUL characters, with U+FFFD in their place', async () => {
      const upload = await admin
        .withHeaders({ 'content-type': 'application/json' })
        .request('POST', `/api/v1/check/${checkId}/results`, undefined, sarifReport(0, 'nul\u0000here').toString());
      const scan = ok(upload).scan_result_id as string;
      await ingested(scan);
      const titles = ok(await admin.get(`/api/v1/issues?filter[scan]=${scan}`)).items.map(
        (i: { title: string }) => i.title,
      );
      expect(titles).to.have.members(['finding 1 nul\ufffdhere', 'finding 2 nul\ufffdhere']);
    });
  });
});
