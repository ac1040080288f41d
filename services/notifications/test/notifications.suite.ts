import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import Ajv2020 from 'ajv/dist/2020';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { freePort, GitServer, startGitServer, SystemUnderTest, type Json, manualCheck } from '@bulwark/testkit';
import { MANUAL_TOOL_TYPE, scanSetup } from '../../scanning/test/scanning.suite';
import { semgrepReport } from '../../issues/test/issues.suite';

interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  raw: string;
  body: Json;
}

/** A webhook endpoint that records what it receives and answers a path with the statuses it is given, then 200. */
export async function startReceiver(host = '127.0.0.1') {
  const received: Received[] = [];
  const statuses = new Map<string, number[]>();
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (c) => (text += c));
    req.on('end', () => {
      const path = req.url ?? '';
      received.push({ path, headers: req.headers, raw: text, body: JSON.parse(text) });
      res.writeHead(statuses.get(path)?.shift() ?? 200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    url: `http://${host}:${(server.address() as AddressInfo).port}/hook`,
    received,
    failNext: (path: string, ...codes: number[]) => statuses.set(path, codes),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export function notificationsSuite(t: SystemUnderTest): void {
  let git: GitServer;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let env: Awaited<ReturnType<typeof scanSetup>>;

  const ok = (res: { status: number; body: Json }) => {
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body;
  };
  const refused = (res: { status: number; body: Json }, field: string) => {
    expect(res.status, JSON.stringify(res.body)).to.equal(400);
    expect(res.body.error.details.map((d: { field: string }) => d.field)).to.include(field);
  };
  const waitFor = async <T>(what: string, probe: () => T | undefined, ms = 30000): Promise<T> => {
    const deadline = Date.now() + ms;
    for (;;) {
      const found = probe();
      if (found !== undefined) return found;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  /** Uploads a one-finding report to a new check; returns the scan result id. */
  const uploadScan = async (file: string) => {
    const check = await manualCheck(t.admin, env);
    const report = semgrepReport([{ rule: 'python.lang.security.eval', line: 3, code: 'eval(x)', path: file }]);
    return ok(
      await t.admin
        .withHeaders({ 'content-type': 'application/json' })
        .request('POST', `/api/v1/check/${check}/results`, undefined, report),
    ).scan_result_id as string;
  };
  const webhook = (over: Record<string, unknown> = {}) => ({
    name: `hook ${randomUUID().slice(0, 8)}`,
    settings: {
      url: receiver.url,
      rate_limit: 50,
      auth_header_name: 'X-Token',
      auth_header_value: 'token-never-shown-7f3a',
      signing_secret: 'signing-secret-never-shown',
    },
    events: ['scan.completed', 'issues.ingested'],
    project_codes: [env.code],
    ...over,
  });

  before(async function () {
    this.timeout(60000);
    git = await startGitServer();
    git.addRepository('app', { 'app.py': 'x = 1\n' });
    env = await scanSetup(t, git, 'app', [MANUAL_TOOL_TYPE]);
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver?.close();
    await git?.close();
  });

  it('sends a scan\u2019s security events to a webhook with its token, and keeps them in the events log', async function () {
    this.timeout(60000);
    const created = ok(await t.admin.post('/api/v1/notifier', webhook()));
    expect(created.settings).to.include({
      url: receiver.url,
      rate_limit: 50,
      auth_header_name: 'X-Token',
      auth_header_set: true,
      signing_secret_set: true,
    });
    expect(JSON.stringify(created))
      .not.to.contain('token-never-shown-7f3a')
      .and.not.to.contain('signing-secret-never-shown');
    const scanId = await uploadScan('events.py');
    const completed = await waitFor('scan.completed', () =>
      receiver.received.find((r) => r.body.type === 'scan.completed' && r.body.data.scan_result_id === scanId),
    );
    const ingested = await waitFor('issues.ingested', () =>
      receiver.received.find((r) => r.body.type === 'issues.ingested' && r.body.data.scan_result_id === scanId),
    );
    expect(completed.headers['x-token']).to.equal('token-never-shown-7f3a');
    expect(completed.headers['x-bulwark-event']).to.equal('scan.completed');
    expect(completed.headers['x-bulwark-signature']).to.equal(
      `sha256=${createHmac('sha256', 'signing-secret-never-shown').update(completed.raw).digest('hex')}`,
    );
    expect(completed.body).to.include({ project_code: env.code });
    expect(completed.body.message).to.contain(scanId);
    expect(ingested.body.data).to.include({ created: 1 });
    expect(ingested.body.message_ru).to.contain(`Проект ${env.code}`);

    const log = ok(await t.admin.get(`/api/v1/events?filter[project_code]=${env.code}`));
    expect(log.items.map((e: Json) => e.type)).to.include.members(['scan.completed', 'issues.ingested']);
    expect(
      ok(
        await t.admin.get(
          `/api/v1/events?filter[project_code]=${env.code}&search[message_ru]=${encodeURIComponent('новых уязвимостей 1')}`,
        ),
      ).total,
    ).to.equal(1);
    const csv = await t.admin.download(
      `/api/v1/events/csv?filter[project_code]=${env.code}&filter[type]=scan.completed`,
    );
    expect(csv.headers.get('content-type')).to.match(/^text\/csv/);
    const lines = csv.body.toString('utf8').trimEnd().split('\r\n');
    expect(lines[0]).to.equal('occurred_at,type,project_code,message,message_ru,id');
    expect(lines).to.have.length(2);
    // Marked delivered right after the receiver answered.
    const deadline = Date.now() + 10000;
    let deliveries = ok(await t.admin.get(`/api/v1/notifier/${created.id}`)).deliveries;
    while (deliveries.delivered < 2 && Date.now() < deadline)
      deliveries = ok(await t.admin.get(`/api/v1/notifier/${created.id}`)).deliveries;
    expect(deliveries).to.include({ delivered: 2, failed: 0, pending: 0 });
  });

  it('signs calls as Standard Webhooks, verified by the reference library, and keeps an old secret signing while it is rotated out', async function () {
    this.timeout(60000);
    const first = `whsec_${randomBytes(32).toString('base64')}`;
    const second = `whsec_${randomBytes(32).toString('base64')}`;
    const path = `/std-${randomUUID().slice(0, 8)}`;
    const created = ok(
      await t.admin.post(
        '/api/v1/notifier',
        webhook({ events: ['scan.completed'], settings: { url: `${receiver.url}${path}`, signing_secret: first } }),
      ),
    );
    expect(created.settings.previous_signing_secret_expires_at).to.equal(null);
    const delivered = async () => {
      const scanId = await uploadScan(`std-${randomUUID().slice(0, 8)}.py`);
      return waitFor('scan.completed', () =>
        receiver.received.find((r) => r.path === `/hook${path}` && r.body.data.scan_result_id === scanId),
      );
    };
    const verifies = (secret: string, r: Received) => {
      try {
        new Webhook(secret).verify(r.raw, r.headers as Record<string, string>);
        return true;
      } catch (err) {
        if (err instanceof WebhookVerificationError) return false;
        throw err;
      }
    };

    const before = await delivered();
    expect(before.headers['webhook-id']).to.equal(before.headers['x-bulwark-delivery']);
    expect(verifies(first, before)).to.equal(true);
    expect(verifies(second, before)).to.equal(false);
    // A body changed on the way no longer verifies.
    expect(verifies(first, { ...before, raw: before.raw.replace('scan.completed', 'scan.failed') })).to.equal(false);

    const rotated = ok(
      await t.admin.put(
        `/api/v1/notifier/${created.id}`,
        webhook({ events: ['scan.completed'], settings: { url: `${receiver.url}${path}`, signing_secret: second } }),
      ),
    );
    expect(Date.parse(rotated.settings.previous_signing_secret_expires_at)).to.be.greaterThan(Date.now());
    expect(JSON.stringify(rotated)).not.to.contain(first.slice(6)).and.not.to.contain(second.slice(6));
    const during = await delivered();
    expect(String(during.headers['webhook-signature']).split(' ')).to.have.length(2);
    expect(verifies(second, during)).to.equal(true);
    expect(verifies(first, during)).to.equal(true);

    // The same secret given again is no rotation: the old one keeps its expiry.
    const again = ok(
      await t.admin.put(
        `/api/v1/notifier/${created.id}`,
        webhook({ events: ['scan.completed'], settings: { url: `${receiver.url}${path}`, signing_secret: second } }),
      ),
    );
    expect(again.settings.previous_signing_secret_expires_at).to.equal(
      rotated.settings.previous_signing_secret_expires_at,
    );

    // A secret of the releases before: raw key bytes for the reference library, and the legacy header.
    const legacy = await t.admin.post(
      '/api/v1/notifier',
      webhook({
        events: ['scan.completed'],
        settings: { url: `${receiver.url}${path}-raw`, signing_secret: 'signing-secret-never-shown' },
      }),
    );
    const scanId = await uploadScan(`raw-${randomUUID().slice(0, 8)}.py`);
    const raw = await waitFor('scan.completed', () =>
      receiver.received.find((r) => r.path === `/hook${path}-raw` && r.body.data.scan_result_id === scanId),
    );
    expect(ok(legacy).settings.signing_secret_set).to.equal(true);
    new Webhook(Buffer.from('signing-secret-never-shown'), { format: 'raw' }).verify(
      raw.raw,
      raw.headers as Record<string, string>,
    );
    expect(raw.headers['x-bulwark-signature']).to.equal(
      `sha256=${createHmac('sha256', 'signing-secret-never-shown').update(raw.raw).digest('hex')}`,
    );

    for (const bad of ['whsec_not base64 at all!', `whsec_${Buffer.alloc(8).toString('base64')}`]) {
      refused(
        await t.admin.post('/api/v1/notifier', webhook({ settings: { url: receiver.url, signing_secret: bad } })),
        'settings.signing_secret',
      );
    }
  });

  it('retries a webhook that fails, with the same delivery id, until it answers 2xx', async function () {
    this.timeout(60000);
    ok(
      await t.admin.post(
        '/api/v1/notifier',
        webhook({ events: ['scan.completed'], settings: { url: `${receiver.url}/flaky` } }),
      ),
    );
    receiver.failNext('/hook/flaky', 500, 503);
    const scanId = await uploadScan('retry.py');
    const attempts = await waitFor('three attempts', () => {
      const mine = receiver.received.filter((r) => r.path === '/hook/flaky' && r.body.data.scan_result_id === scanId);
      return mine.length >= 3 ? mine : undefined;
    });
    expect(new Set(attempts.map((a) => a.headers['x-bulwark-delivery'])).size).to.equal(1);
    expect(attempts.map((a) => a.body.id)).to.deep.equal([
      attempts[0].body.id,
      attempts[0].body.id,
      attempts[0].body.id,
    ]);
  });

  it('tests a notifier and unsaved settings, keeps a token an update leaves out, and refuses bad input naming the field', async function () {
    this.timeout(30000);
    const n = ok(await t.admin.post('/api/v1/notifier', webhook({ events: [] })));
    const before = receiver.received.length;
    expect(ok(await t.admin.post(`/api/v1/notifier/${n.id}/test`))).to.include({
      delivered: true,
      status: 200,
      error: null,
    });
    const test = receiver.received[before];
    expect(test.body.type).to.equal('notifier.test');
    expect(test.headers['x-token']).to.equal('token-never-shown-7f3a');

    const { auth_header_value: _dropped, ...settings } = webhook().settings;
    const updated = ok(await t.admin.put(`/api/v1/notifier/${n.id}`, { ...webhook(), name: 'renamed', settings }));
    expect(updated).to.include({ name: 'renamed' });
    expect(updated.settings.auth_header_set).to.equal(true);
    ok(await t.admin.post(`/api/v1/notifier/${n.id}/test`));
    expect(receiver.received[receiver.received.length - 1].headers['x-token']).to.equal('token-never-shown-7f3a');

    // A closed port, and a listening receiver and cloud metadata at addresses the outbound policy
    // refuses (the tests open 127.0.0.1 only), answer alike; the refused receiver gets nothing.
    const refusedReceiver = await startReceiver('127.0.0.2');
    try {
      for (const host of [`127.0.0.1:${await freePort()}`, new URL(refusedReceiver.url).host, '169.254.169.254']) {
        const failed = ok(
          await t.admin.post('/api/v1/notifier-type/1/test', { settings: { url: `http://${host}/nobody` } }),
        );
        expect(failed, host).to.include({
          delivered: false,
          status: null,
          error: `Host unreachable: could not connect to ${host}`,
        });
        expect(failed, host).to.have.all.keys('delivered', 'status', 'error', 'duration_ms');
      }
      expect(refusedReceiver.received).to.deep.equal([]);
    } finally {
      await refusedReceiver.close();
    }

    refused(
      await t.admin.post('/api/v1/notifier', webhook({ settings: { url: 'ftp://example.com/x' } })),
      'settings.url',
    );
    refused(
      await t.admin.post('/api/v1/notifier', webhook({ settings: { url: receiver.url, rate_limit: 0 } })),
      'settings.rate_limit',
    );
    refused(
      await t.admin.post('/api/v1/notifier', webhook({ settings: { url: receiver.url, auth_header_value: 'orphan' } })),
      'settings.auth_header_name',
    );
    refused(await t.admin.post('/api/v1/notifier', webhook({ events: ['nothing.happened'] })), 'events[0]');
    refused(
      await t.admin.post('/api/v1/notifier', webhook({ settings: { url: receiver.url, payload_format: 'xml' } })),
      'settings.payload_format',
    );
    const cef = ok(
      await t.admin.post(
        '/api/v1/notifier',
        webhook({ active: false, settings: { url: receiver.url, payload_format: 'cef' } }),
      ),
    );
    expect(cef.settings.payload_format).to.equal('cef');
    expect(ok(await t.admin.get(`/api/v1/notifier/${n.id}`)).settings.payload_format).to.equal('json');
    ok(await t.admin.delete('/api/v1/notifiers', { ids: [cef.id] }));
    expect((await t.admin.post('/api/v1/notifier-type/2/test', { settings: { url: receiver.url } })).status).to.equal(
      400,
    );

    const templates = ok(await t.admin.get('/api/v1/event-template')).items;
    expect(templates.map((e: Json) => e.type)).to.have.members([
      'scan.completed',
      'scan.failed',
      'issues.ingested',
      'quality_gate.evaluated',
      'issue.status_changed',
      'issue.sla_breached',
      'report.ready',
      'report.failed',
      'license.expiring',
      'license.expired',
    ]);
    expect(
      ok(await t.admin.delete('/api/v1/notifiers', { ids: [n.id, randomUUID()] })).results.map((r: Json) => r.status),
    ).to.deep.equal(['deleted', 'not_found']);
    expect((await t.admin.get(`/api/v1/notifier/${n.id}`)).status).to.equal(404);
  });

  it('sends a kept token only to the scheme, host and port it was stored for: another address needs it given again', async function () {
    this.timeout(30000);
    const other = await startReceiver();
    try {
      const n = ok(await t.admin.post('/api/v1/notifier', webhook({ events: [] })));
      const { auth_header_value: _kept, ...settings } = webhook().settings;
      for (const url of [other.url, receiver.url.replace('http://', 'https://')])
        refused(
          await t.admin.put(`/api/v1/notifier/${n.id}`, { ...webhook(), settings: { ...settings, url } }),
          'settings.url',
        );
      expect(ok(await t.admin.get(`/api/v1/notifier/${n.id}`)).settings.url).to.equal(receiver.url);
      const moved = ok(
        await t.admin.put(`/api/v1/notifier/${n.id}`, {
          ...webhook(),
          settings: { ...settings, url: other.url, auth_header_value: 'token-for-the-other-receiver' },
        }),
      );
      expect(moved.settings).to.include({ url: other.url, auth_header_set: true });
      ok(await t.admin.post(`/api/v1/notifier/${n.id}/test`));
      expect(other.received.map((r) => r.headers['x-token'])).to.deep.equal(['token-for-the-other-receiver']);
      ok(await t.admin.delete('/api/v1/notifiers', { ids: [n.id] }));
    } finally {
      await other.close();
    }
  });

  it('sends every body in the layout of its event type\u2019s webhook schema in the served OpenAPI document, with the version GET /event-template shows', async function () {
    this.timeout(60000);
    // Deliveries of this test's own, so it stands alone; those of the tests above are checked as well.
    const hook = ok(
      await t.admin.post(
        '/api/v1/notifier',
        webhook({ events: ['scan.completed', 'issues.ingested', 'issue.status_changed'] }),
      ),
    );
    const scanId = await uploadScan('schema.py');
    await waitFor('issues.ingested', () =>
      receiver.received.find((r) => r.body.type === 'issues.ingested' && r.body.data.scan_result_id === scanId),
    );
    const issue = ok(await t.admin.get(`/api/v1/issues?filter[scan]=${scanId}`)).items[0];
    ok(await t.admin.put(`/api/v1/issue/${issue.id}`, { status_id: 2, comment: 'seen' }));
    await waitFor('issue.status_changed', () =>
      receiver.received.find((r) => r.body.type === 'issue.status_changed' && r.body.data.issue_id === issue.id),
    );
    ok(await t.admin.post(`/api/v1/notifier/${hook.id}/test`));
    await waitFor('notifier.test', () => receiver.received.find((r) => r.body.type === 'notifier.test'));

    const document = ok(await t.anon.get('/api/v1/swagger/doc.json'));
    expect(document.openapi).to.match(/^3\.1\./);
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    const validators = new Map<string, ReturnType<typeof ajv.compile>>();
    for (const [type, item] of Object.entries<Json>(document.webhooks))
      // The body is a reference to a component: compiled with the components, which it resolves against.
      validators.set(
        type,
        ajv.compile({ ...item.post.requestBody.content['application/json'].schema, components: document.components }),
      );
    const template = ok(await t.admin.get('/api/v1/event-template')).items as {
      type: string;
      version: number;
      schema: object;
    }[];
    for (const item of template) {
      expect(validators.has(item.type), `${item.type} has a webhook in the OpenAPI document`).to.equal(true);
      expect(item.schema, item.type).to.have.property('properties');
    }

    const types = new Set<string>();
    for (const r of receiver.received) {
      const validate = validators.get(r.body.type);
      expect(validate, `a webhook schema for ${r.body.type}`).to.be.a('function');
      expect(validate!(r.body), `${r.body.type}: ${JSON.stringify(validate!.errors)}`).to.equal(true);
      expect(r.body.version).to.equal(template[0].version);
      types.add(r.body.type);
    }
    expect([...types]).to.include.members([
      'scan.completed',
      'issues.ingested',
      'issue.status_changed',
      'notifier.test',
    ]);
    // The schemas can fail: a body missing its data's required field does not validate.
    const completed = receiver.received.find((r) => r.body.type === 'scan.completed')!.body;
    expect(
      validators.get('scan.completed')!({ ...completed, data: { ...completed.data, scan_result_id: undefined } }),
    ).to.equal(false);
  });
}
