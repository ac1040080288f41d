import { expect } from 'chai';
import { ROUTES } from '@bulwark/contracts';
import { InternalAuth } from '@bulwark/platform';
import { Api, SystemUnderTest, type ApiResponse } from '@bulwark/testkit';

/** Each route with a path parameter, the parameters filled with `value` (bytes as they go on the wire). */
const templatedRoutes = (value: string) =>
  ROUTES.filter((r) => r.path.includes('{') && !r.gone).map((r) => ({
    method: r.method.toUpperCase(),
    path: r.path.replace(/\{[^}]+\}/g, value),
    service: r.service,
  }));

/** A 400 in the error model whose only detail names `field`. */
function refusedNaming(res: ApiResponse, field: string, what: string): void {
  expect(res.status, `${what}: ${JSON.stringify(res.body)}`).to.equal(400);
  expect(res.body.error.code, what).to.equal('invalid_request');
  expect(
    res.body.error.details.map((d: { field: string }) => d.field),
    what,
  ).to.deep.equal([field]);
}

/** A header value of these bytes (fetch sends each character below U+0100 as one byte). */
const bytes = (...b: number[]) => String.fromCharCode(...b);

export function gatewaySuite(t: SystemUnderTest): void {
  it('answers /healthz and /readyz with every service ready', async () => {
    expect((await t.anon.get('/healthz')).body).to.deep.equal({ status: 'ok' });
    const ready = await t.anon.get('/readyz');
    expect(ready.status).to.equal(200);
    for (const s of ['identity', 'catalog', 'scanning', 'issues', 'reporting', 'notifications'])
      expect(ready.body.checks[s]).to.equal('ready');
    expect(ready.body.checks.cache).to.equal(t.mode === 'all' ? 'memory' : 'redis');
  });

  it('echoes a sane X-Request-Id and makes one up otherwise', async () => {
    const echoed = await t.admin.withHeaders({ 'x-request-id': 'trace-42.abc' }).get('/api/v1/permissions');
    expect(echoed.headers.get('x-request-id')).to.equal('trace-42.abc');
    const made = await t.admin.withHeaders({ 'x-request-id': 'bad id with spaces' }).get('/api/v1/permissions');
    expect(made.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
  });

  it('answers 404 in the error shape for an unknown route', async () => {
    const res = await t.admin.get('/api/v1/no-such-thing');
    expect(res.status).to.equal(404);
    expect(res.body.error.code).to.equal('not_found');
  });

  it('answers 405 with Allow and the error shape for a known path with an unsupported method', async () => {
    const res = await t.admin.request('PATCH', '/api/v1/users');
    expect(res.status).to.equal(405);
    expect(res.headers.get('allow')).to.equal('DELETE, GET, HEAD');
    expect(res.body.error.code).to.equal('method_not_allowed');
    expect(res.body.error.message).to.contain('PATCH');
    const templated = await t.anon.request('POST', '/api/v1/user/some-id');
    expect(templated.status).to.equal(405);
    expect(templated.headers.get('allow')).to.equal('GET, HEAD, PUT');
    const gatewayOwn = await t.anon.request('DELETE', '/api/v1/swagger/doc.json');
    expect(gatewayOwn.status).to.equal(405);
    expect(gatewayOwn.headers.get('allow')).to.equal('GET, HEAD');
    expect((await t.admin.request('PATCH', '/api/v1/no-such-thing')).status).to.equal(404);
  });

  it('takes a query string the gateway accepts all the way to the service, and answers a longer one 431 in the error shape', async () => {
    // About 15 KB: under the gateway's 16 KiB, but over it once the gateway adds its internal headers.
    // Two filters of at most 100 values each (a multi-value filter's bound), 64 characters a value.
    const values = (key: string, n: number) =>
      Array.from({ length: n }, (_, i) => `filter%5B${key}%5D=${String(i).padStart(64, 'p')}`);
    const long = [...values('project_code', 100), ...values('tool_id', 70)].join('&');
    const accepted = await t.admin.get(`/api/v1/issues/count?${long}`);
    expect(accepted.status, JSON.stringify(accepted.body)).to.equal(200);
    const tooLong = await t.admin.get(`/api/v1/issues/count?${long}&${long}`);
    expect(tooLong.status).to.equal(431);
    expect(tooLong.headers.get('content-type')).to.match(/^application\/json/);
    expect(tooLong.body.error.code).to.equal('headers_too_large');
  });

  it('answers a malformed or overlong percent-encoding in the path of every route with a parameter with 400 naming the path, with and without a token', async () => {
    for (const value of ['%ff', '%C0%AF', '%E0%80%AF', '%ED%A0%80', 'a%', '%zz']) {
      for (const route of templatedRoutes(value)) {
        for (const [who, api] of [
          ['admin', t.admin],
          ['nobody', t.anon],
        ] as const)
          refusedNaming(
            await api.request(route.method, route.path, route.method === 'GET' ? undefined : {}),
            'path',
            `${who} ${route.method} ${route.path}`,
          );
      }
    }
  });

  it('answers a query or a header that is not UTF-8 with 400 naming it; double encoding is decoded once and valid UTF-8 passes', async () => {
    for (const query of ['search[name]=%ff', 'search[name]=%C0%80', 'search[name]=50%', '%ff=1'])
      refusedNaming(await t.admin.get(`/api/v1/projects?${query}`), 'query', query);
    refusedNaming(await t.anon.get('/api/v1/projects?search[name]=%ff'), 'query', 'without a token');
    refusedNaming(
      await t.admin.withHeaders({ 'x-note': bytes(0xff, 0xfe) }).get('/api/v1/projects'),
      'headers.x-note',
      'a header of bytes that are not UTF-8',
    );
    refusedNaming(
      await t.anon.withHeaders({ 'x-request-id': bytes(0xc0, 0xaf) }).get('/api/v1/projects'),
      'headers.x-request-id',
      'an overlong request id, without a token',
    );
    const utf8 = await t.admin
      .withHeaders({ 'x-note': Buffer.from('caf\u00e9', 'utf8').toString('latin1') })
      .get('/api/v1/projects?search[name]=%C3%A9');
    expect(utf8.status, JSON.stringify(utf8.body)).to.equal(200);
    const doubled = await t.admin.get('/api/v1/project/%252e%252e%252fusers');
    expect(doubled.status).to.equal(404);
    expect(doubled.body.error.message).to.contain('%2e%2e%2fusers');
  });

  it('refuses a body over the limit with 413', async () => {
    const big = JSON.stringify({ username: 'admin', password: 'x'.repeat(1024 * 1024 + 10) });
    const res = await t.anon.request('POST', '/api/v1/auth/login', undefined, big);
    expect(res.status).to.equal(413);
    expect(res.body.error.code).to.equal('payload_too_large');
  });

  it('serves the OpenAPI 3.1 document generated from the route table, and Swagger UI without a CDN', async () => {
    const doc = await t.anon.get('/api/v1/swagger/doc.json');
    expect(doc.body.openapi).to.equal('3.1.0');
    const login = doc.body.paths['/api/v1/auth/login'].post;
    expect(login.requestBody.content['application/json'].schema.$ref).to.equal('#/components/schemas/LoginRequest');
    expect(doc.body.paths['/api/v1/users'].get['x-permission']).to.deep.equal({
      key: 'administration.users',
      letter: 'r',
      project_scope: 'grants',
    });
    expect(doc.body.paths['/api/v1/users'].get.parameters.map((p: { name: string }) => p.name)).to.include(
      'filter[deleted_only]',
    );
    // The client document: the same operations but the removed ones, which the full one marks deprecated.
    const client = (await t.anon.get('/api/v1/swagger/client.json')).body;
    const operations = (d: { paths: Record<string, Record<string, { deprecated?: boolean }>> }) =>
      Object.entries(d.paths).flatMap(([path, methods]) =>
        Object.entries(methods).map(([method, o]) => ({ at: `${method} ${path}`, deprecated: o.deprecated === true })),
      );
    const removed = operations(doc.body).filter((o) => o.deprecated);
    expect(removed.length).to.be.greaterThan(0);
    expect(operations(client).map((o) => o.at)).to.have.members(
      operations(doc.body)
        .filter((o) => !o.deprecated)
        .map((o) => o.at),
    );
    const ui = await t.anon.get('/api/v1/swagger/index.html');
    expect(ui.status).to.equal(200);
    expect(String(ui.body)).to.contain('swagger-ui');
    expect(String(ui.body)).not.to.match(/https?:\/\/(cdn|unpkg)/);
    const init = await t.anon.get('/api/v1/swagger/swagger-initializer.js');
    expect(String(init.body)).to.contain('/api/v1/swagger/doc.json');
  });

  it('never forwards the caller\u2019s forged internal header as authority', async () => {
    const res = await t.anon.withHeaders({ 'x-bulwark-internal': 'forged' }).get('/api/v1/users');
    expect(res.status).to.equal(401);
  });
}

export function directAccessSuite(t: SystemUnderTest): void {
  it('has every service refuse a request that did not come through the gateway', async () => {
    const forged = new InternalAuth('not-the-deployment-secret-but-long-enough', 'gateway').forService();
    for (const [service, url] of Object.entries(t.sys.services)) {
      const direct = new Api(url);
      expect((await direct.get('/healthz')).status, service).to.equal(200);
      const bare = await direct.get('/api/v1/users');
      expect(bare.status, service).to.equal(401);
      expect(bare.body.error.code).to.equal('unauthenticated');
      expect(
        (await direct.withHeaders({ 'x-bulwark-internal': forged }).get('/api/v1/users')).status,
        service,
      ).to.equal(401);
    }
  });

  it('has every service answer a path, query or header that is not UTF-8 with 400 naming it, before it looks for the gateway\u2019s token', async () => {
    const forged = new InternalAuth('not-the-deployment-secret-but-long-enough', 'gateway').forService();
    for (const [service, url] of Object.entries(t.sys.services)) {
      for (const api of [new Api(url), new Api(url).withHeaders({ 'x-bulwark-internal': forged })]) {
        for (const route of templatedRoutes('%ff').filter((r) => r.service === service))
          refusedNaming(
            await api.request(route.method, route.path),
            'path',
            `${service}: ${route.method} ${route.path}`,
          );
        refusedNaming(await api.get('/api/v1/users?search[username]=%C0%AF'), 'query', service);
        refusedNaming(
          await api.withHeaders({ 'x-note': bytes(0xed, 0xa0, 0x80) }).get('/api/v1/users'),
          'headers.x-note',
          service,
        );
      }
    }
  });
}
