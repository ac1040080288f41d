import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { expect } from 'chai';
import { freePort, manualCheck, projectWithSource, SystemUnderTest, uniqueSuffix, type Json } from '@bulwark/testkit';
import { SEMGREP_TOOL_TYPE } from '../../scanning/test/scanning.suite';
import { startReceiver } from './notifications.suite';

interface LoggedError {
  id: string;
  service: string;
  level: string;
  code: string;
  message: string;
  message_ru: string;
  subject: string | null;
  route: string | null;
  request_id: string | null;
  details: Record<string, unknown>;
}

/** POSTs a chunked body of `bytes` to the gateway with `requestId`, as a client streaming it does; resolves with the status. */
function postChunked(baseUrl: string, path: string, requestId: string, bytes: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${baseUrl}${path}`,
      { method: 'POST', headers: { 'content-type': 'application/json', 'x-request-id': requestId } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    // The gateway stops reading a body it refused: the answer is what counts.
    req.on('error', (err) => (req.writableEnded ? undefined : reject(err)));
    req.write('{"username":"admin","password":"');
    for (let sent = 0; sent < bytes; sent += 64 * 1024) req.write(Buffer.alloc(64 * 1024, 'x'));
    req.end('"}');
  });
}

/**
 * The error log through the gateway, filled by real failures of several services: a scan whose
 * checkout cannot reach its source (scanning), a webhook to a target the outbound policy refuses,
 * given up (notifications), a single sign-on provider that does not answer (identity's 503 answer)
 * and a directory that cannot be reached at login (identity's directory integration).
 */
export function errorsLogSuite(t: SystemUnderTest): void {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const code = `err-${uniqueSuffix()}`;
  let scanId: string;
  let notifierId: string;
  const ssoRequestId = `errors-log-sso-${uniqueSuffix()}`;
  const oversizedRequestId = `errors-log-oversized-${uniqueSuffix()}`;

  const ok = (res: { status: number; body: Json }) => {
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body;
  };
  /** Polls the log until `find` picks a record (the bus carries them, so they arrive a moment later). */
  const logged = async (query: string, find: (e: LoggedError) => boolean, ms = 60000): Promise<LoggedError> => {
    const deadline = Date.now() + ms;
    for (;;) {
      const hit = (ok(await t.admin.get(`/api/v1/errors-log?limit=1000&${query}`)).items as LoggedError[]).find(find);
      if (hit) return hit;
      if (Date.now() > deadline) throw new Error(`no error-log record for ${query}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  };

  before(async function () {
    this.timeout(60000);
    // Listens on 127.0.0.2, which the tests' outbound policy refuses: the delivery is given up at once.
    receiver = await startReceiver('127.0.0.2');
    notifierId = ok(
      await t.admin.post('/api/v1/notifier', {
        name: `refused ${code}`,
        settings: { url: receiver.url },
        events: ['scan.failed'],
        project_codes: [code],
      }),
    ).id;
    // Nothing listens on this port: the checkout fails.
    const check = await manualCheck(
      t.admin,
      await projectWithSource(t.admin, {
        code,
        sourceUrl: `http://127.0.0.1:${await freePort()}/app.git`,
        toolTypes: [SEMGREP_TOOL_TYPE],
      }),
    );
    scanId = ok(await t.admin.post(`/api/v1/check/${check}/run`)).scan_result_id;
    // Refused by the gateway mid-stream, so identity sees its body cut short: the caller's doing, never
    // a record. Sent first, so identity's records of the tests below come after it on its topic.
    expect(await postChunked(t.anon.baseUrl, '/api/v1/auth/login', oversizedRequestId, 2 * 1024 * 1024)).to.equal(413);
  });
  after(async () => {
    await receiver?.close();
    await t.admin.put('/api/v1/sso/settings', { enabled: false });
    await t.admin.put('/api/v1/ldap/settings', { enabled: false });
  });

  it('records a scan whose checkout failed, from the scanning service, in English and Russian', async function () {
    this.timeout(90000);
    const e = await logged(`filter[service]=scanning&filter[code]=scan.checkout_failed`, (r) => r.subject === scanId);
    expect(e).to.include({ service: 'scanning', level: 'error', code: 'scan.checkout_failed', route: null });
    expect(e.message)
      .to.contain(`Scan ${scanId}`)
      .and.to.contain(`project ${code}`)
      .and.to.contain('Checkout failed: Host unreachable');
    expect(e.message_ru).to.contain(`Сканирование ${scanId}`).and.to.contain('ошибка получения исходного кода');
    expect(e.details).to.include({ project_code: code });
    expect(ok(await t.admin.get(`/api/v1/scan-result/${scanId}`)).state).to.equal('failed');
  });

  it('records a webhook delivery given up, from the notifications service', async function () {
    this.timeout(90000);
    const e = await logged(
      'filter[service]=notifications&filter[code]=webhook.given_up',
      (r) => r.details.notifier_id === notifierId,
    );
    expect(e).to.include({ level: 'warning' });
    expect(e.message).to.contain(`refused ${code}`).and.to.contain('scan.failed').and.to.contain('Host unreachable');
    expect(e.message_ru).to.contain('Вебхук');
    expect(receiver.received).to.deep.equal([]);
  });

  it('records a 5xx answer with its route and request id, never internals, from the identity service', async function () {
    this.timeout(60000);
    // A provider that does not answer: the login redirect answers 503.
    ok(
      await t.admin.put('/api/v1/sso/settings', {
        enabled: true,
        issuer: `http://127.0.0.1:${await freePort()}/oidc`,
        allow_insecure_http: true,
        client_id: 'bulwark',
        client_secret: 'client-secret-never-logged',
        redirect_uri: 'https://bulwark.example/api/v1/sso/callback',
      }),
    );
    const res = await fetch(`${t.anon.baseUrl}/api/v1/sso/login`, {
      redirect: 'manual',
      headers: { 'x-request-id': ssoRequestId },
    });
    expect(res.status).to.equal(503);
    const e = await logged(
      'filter[service]=identity&filter[code]=http.unavailable',
      (r) => r.request_id === ssoRequestId,
    );
    expect(e).to.include({ level: 'warning', route: 'GET /api/v1/sso/login' });
    expect(e.details).to.include({ status: 503 });
    expect(JSON.stringify(e)).not.to.contain('client-secret-never-logged');
  });

  it('records no body refused as too large or cut short, and no caller\u2019s request id in any message', async () => {
    // Identity's record of the 503 above was written after the oversized login was refused: had that
    // been recorded, it would be here by now.
    await logged('filter[service]=identity&filter[code]=http.unavailable', (r) => r.request_id === ssoRequestId);
    const all = ok(await t.admin.get('/api/v1/errors-log?limit=1000')).items as LoggedError[];
    expect(all.filter((r) => r.request_id === oversizedRequestId)).to.deep.equal([]);
    for (const r of all) {
      expect(r.message).not.to.contain(oversizedRequestId).and.not.to.contain(ssoRequestId);
      expect(r.message_ru).not.to.contain(oversizedRequestId).and.not.to.contain(ssoRequestId);
    }
  });

  it('records a directory that cannot be reached at login, once, without the bind password', async function () {
    this.timeout(60000);
    ok(
      await t.admin.put('/api/v1/ldap/settings', {
        enabled: true,
        urls: ['ldap://127.0.0.9:389'],
        bind_dn: 'cn=svc,dc=example,dc=test',
        bind_password: 'bind-password-never-logged',
        user_search_base: 'dc=example,dc=test',
      }),
    );
    const login = async () =>
      (await t.anon.post('/api/v1/auth/login', { username: `nobody${uniqueSuffix()}`, password: 'whatever-password' }))
        .status;
    expect(await login()).to.equal(503);
    expect(await login()).to.equal(503);
    const e = await logged('filter[service]=identity&filter[code]=directory.unreachable', (r) =>
      r.message.includes('127.0.0.9'),
    );
    expect(e).to.include({ level: 'error', route: 'POST /api/v1/auth/login' });
    expect(e.details).to.include({ stage: 'connect' });
    expect(e.message_ru).to.contain('каталог недоступен');
    const all = ok(
      await t.admin.get('/api/v1/errors-log?filter[code]=directory.unreachable&search[message]=127.0.0.9&limit=1000'),
    ).items;
    expect(all, 'two failed logins, one record').to.have.length(1);
    // The 503 answer itself is not recorded a second time.
    const answers = ok(
      await t.admin.get('/api/v1/errors-log?filter[service]=identity&filter[code]=http.unavailable&limit=1000'),
    ).items as LoggedError[];
    expect(answers.filter((r) => r.route === 'POST /api/v1/auth/login')).to.deep.equal([]);
    expect(JSON.stringify(all)).not.to.contain('bind-password-never-logged');
  });

  it('filters by service, code, level, date and message in either language, pages, and says which values there are', async () => {
    const three = ok(
      await t.admin.get(
        '/api/v1/errors-log?filter[service]=scanning&filter[service]=notifications&filter[service]=identity&limit=1000',
      ),
    );
    expect([...new Set(three.items.map((e: LoggedError) => e.service))]).to.have.members([
      'scanning',
      'notifications',
      'identity',
    ]);
    const warnings = ok(await t.admin.get('/api/v1/errors-log?filter[level]=warning&limit=1000'))
      .items as LoggedError[];
    expect(warnings.length).to.be.greaterThan(0);
    expect(warnings.every((e) => e.level === 'warning')).to.equal(true);
    expect(
      ok(await t.admin.get(`/api/v1/errors-log?search[message]=${encodeURIComponent(`SCAN ${scanId}`)}`)).items.map(
        (e: LoggedError) => e.subject,
      ),
    ).to.include(scanId);
    // Cyrillic letters match without regard to case only where the database's locale folds them (not in a C-locale PostgreSQL).
    expect(
      ok(await t.admin.get(`/api/v1/errors-log?search[message_ru]=${encodeURIComponent(`Сканирование ${scanId}`)}`))
        .total,
    ).to.be.at.least(1);
    const future = new Date(Date.now() + 86_400_000).toISOString();
    expect(
      ok(await t.admin.get(`/api/v1/errors-log?filter[occurred_at_start]=${encodeURIComponent(future)}`)).total,
    ).to.equal(0);
    const past = new Date(Date.now() - 86_400_000).toISOString();
    expect(
      ok(await t.admin.get(`/api/v1/errors-log?filter[occurred_at_end]=${encodeURIComponent(past)}`)).total,
    ).to.equal(0);

    const all = ok(await t.admin.get('/api/v1/errors-log?limit=1000'));
    const page2 = ok(await t.admin.get('/api/v1/errors-log?limit=1&page=2'));
    expect(page2).to.include({ page: 2, limit: 1, total: all.total });
    expect(page2.items.map((e: LoggedError) => e.id)).to.deep.equal([all.items[1].id]);

    const filters = ok(await t.admin.get('/api/v1/errors-log/filters'));
    expect(filters.services).to.include.members(['scanning', 'notifications', 'identity']);
    expect(filters.codes).to.include.members([
      'scan.checkout_failed',
      'webhook.given_up',
      'http.unavailable',
      'directory.unreachable',
    ]);
    expect(filters.levels).to.include.members(['error', 'warning']);
    expect(Date.parse(filters.occurred_at.last)).to.be.at.least(Date.parse(filters.occurred_at.first));
    expect(
      ok(await t.admin.get(`/api/v1/errors-log/filters?filter[occurred_at_start]=${encodeURIComponent(future)}`)),
    ).to.deep.equal({
      services: [],
      codes: [],
      levels: [],
      occurred_at: { first: null, last: null },
    });

    const bad = await t.admin.get('/api/v1/errors-log?filter[level]=fatal&filter[colour]=red');
    expect(bad.status).to.equal(400);
    expect(bad.body.error.details.map((d: { field: string }) => d.field)).to.include.members([
      'filter[level]',
      'filter[colour]',
    ]);
  });

  it('exports the same records as CSV, with the filters of the list', async () => {
    const csv = await t.admin.download(
      '/api/v1/errors-log/csv?filter[service]=scanning&filter[service]=notifications&filter[service]=identity',
    );
    expect(csv.status).to.equal(200);
    expect(csv.headers.get('content-type')).to.match(/^text\/csv/);
    expect(csv.headers.get('content-disposition')).to.contain('errors-log.csv');
    const lines = csv.body.toString('utf8').trimEnd().split('\r\n');
    expect(lines[0]).to.equal('occurred_at,service,level,code,message,message_ru,subject,route,request_id,id');
    const listed = ok(
      await t.admin.get(
        '/api/v1/errors-log?filter[service]=scanning&filter[service]=notifications&filter[service]=identity&limit=1000',
      ),
    );
    expect(lines).to.have.length(listed.total + 1);
    expect(lines.some((l) => l.includes(scanId) && l.includes(',scanning,error,scan.checkout_failed,'))).to.equal(true);
    expect(lines.some((l) => l.includes(ssoRequestId) && l.includes('GET /api/v1/sso/login'))).to.equal(true);
    const one = await t.admin.download(
      `/api/v1/errors-log/csv?filter[code]=scan.checkout_failed&search[message]=${scanId}`,
    );
    expect(one.body.toString('utf8').trimEnd().split('\r\n')).to.have.length(2);
    expect((await t.admin.get(`/api/v1/errors-log/csv?filter[level]=${randomUUID()}`)).status).to.equal(400);
  });
}
