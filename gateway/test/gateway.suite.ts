import { expect } from 'chai';
import { InternalAuth } from '@bulwark/platform';
import { Api, SystemUnderTest } from '@bulwark/testkit';

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
    const long = Array.from({ length: 550 }, () => 'filter%5Bproject_code%5D=0').join('&');
    const accepted = await t.admin.get(`/api/v1/issues/count?${long}`);
    expect(accepted.status, JSON.stringify(accepted.body)).to.equal(200);
    const tooLong = await t.admin.get(`/api/v1/issues/count?${long}&${long}`);
    expect(tooLong.status).to.equal(431);
    expect(tooLong.headers.get('content-type')).to.match(/^application\/json/);
    expect(tooLong.body.error.code).to.equal('headers_too_large');
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
    });
    expect(doc.body.paths['/api/v1/users'].get.parameters.map((p: { name: string }) => p.name)).to.include(
      'filter[deleted_only]',
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
}
