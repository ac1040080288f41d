import { expect } from 'chai';
import { ADMIN_PASSWORD, SystemUnderTest } from '@bulwark/testkit';

/** The cookies a response sets, by name, with their attributes as sent. */
function setCookies(headers: Headers): Map<string, string> {
  return new Map(headers.getSetCookie().map((c) => [c.slice(0, c.indexOf('=')), c]));
}
const valueOf = (cookie: string) => cookie.slice(cookie.indexOf('=') + 1, cookie.indexOf(';'));

/** The security headers of every page the gateway serves (the console, Swagger UI); answers the policy. */
function expectPageHeaders(headers: Headers): string {
  const csp = headers.get('content-security-policy')!;
  for (const d of [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "frame-ancestors 'none'",
    "object-src 'none'",
    "base-uri 'none'",
  ])
    expect(csp).to.contain(d);
  expect(csp).not.to.contain('unsafe-inline');
  expect(headers.get('x-frame-options')).to.equal('DENY');
  expect(headers.get('x-content-type-options')).to.equal('nosniff');
  expect(headers.get('referrer-policy')).to.equal('no-referrer');
  return csp;
}

export function sessionSuite(t: SystemUnderTest): void {
  const base = () => t.anon.baseUrl;
  const login = async () => {
    const res = await fetch(`${base()}/api/v1/auth/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }),
    });
    expect(res.status).to.equal(200);
    const cookies = setCookies(res.headers);
    return {
      res,
      body: (await res.json()) as { csrf_token: string },
      session: cookies.get('bulwark_session')!,
      csrf: cookies.get('bulwark_csrf')!,
    };
  };
  const cookieHeader = (s: { session: string; csrf: string }) =>
    `bulwark_session=${valueOf(s.session)}; bulwark_csrf=${valueOf(s.csrf)}`;

  it('logs in with a cookie the page cannot read, answers like login without the token, and the cookie authenticates reads', async () => {
    const s = await login();
    expect(s.body).to.have.keys('expires_at', 'need_password_change', 'csrf_token');
    expect(JSON.stringify(s.body)).not.to.contain(valueOf(s.session));
    expect(s.session)
      .to.match(/; HttpOnly/i)
      .and.to.match(/SameSite=Strict/i)
      .and.to.match(/Path=\//);
    // Plain HTTP here: Secure would keep the browser from sending it back.
    expect(s.session).not.to.match(/; Secure/i);
    expect(s.csrf).not.to.match(/HttpOnly/i);
    expect(valueOf(s.csrf)).to.equal(s.body.csrf_token);
    expect(s.res.headers.get('cache-control')).to.equal('no-store');
    const me = await t.anon.withHeaders({ cookie: cookieHeader(s) }).get('/api/v1/auth/me');
    expect(me.status).to.equal(200);
    expect(me.body.user.username).to.equal('admin');
  });

  it('refuses an unsafe method authenticated by the cookie without the CSRF header, or with another value (403 JSON)', async () => {
    const s = await login();
    const browser = t.anon.withHeaders({ cookie: cookieHeader(s) });
    for (const extra of [{}, { 'x-csrf-token': 'forged' }, { 'x-csrf-token': '' }] as Record<string, string>[]) {
      const res = await browser
        .withHeaders(extra)
        .post('/api/v1/project', { code: 'csrf-probe', name: 'never created' });
      expect(res.status, JSON.stringify(res.body)).to.equal(403);
      expect(res.body.error.code).to.equal('forbidden');
      expect(res.body.error.message).to.contain('X-CSRF-Token');
    }
    expect((await t.admin.get('/api/v1/project/csrf-probe')).status).to.equal(404);
    const allowed = await browser
      .withHeaders({ 'x-csrf-token': s.body.csrf_token })
      .put('/api/v1/issues/status', { ids: [] });
    expect(allowed.status, 'the CSRF check passed and the service validated the body').to.equal(400);
    // The bearer header is unchanged: no CSRF token needed, a cookie beside it is not looked at.
    const bearer = await t.admin
      .withHeaders({ cookie: 'bulwark_session=garbage' })
      .put('/api/v1/issues/status', { ids: [] });
    expect(bearer.status).to.equal(400);
  });

  it('refuses a CSRF value that was not issued with the session beside it: a planted cookie pair, or another session\u2019s value (403)', async () => {
    const s = await login();
    const other = await login();
    const planted = 'planted-by-a-sibling-domain';
    const attempts: [string, string][] = [
      [`bulwark_session=${valueOf(s.session)}; bulwark_csrf=${planted}`, planted],
      [`bulwark_session=${valueOf(s.session)}; bulwark_csrf=${other.body.csrf_token}`, other.body.csrf_token],
      // The random part of this session's own value with another signature.
      [
        `bulwark_session=${valueOf(s.session)}; bulwark_csrf=${s.body.csrf_token.split('.')[0]}.${other.body.csrf_token.split('.')[1]}`,
        `${s.body.csrf_token.split('.')[0]}.${other.body.csrf_token.split('.')[1]}`,
      ],
    ];
    for (const [cookie, header] of attempts) {
      const res = await t.anon
        .withHeaders({ cookie, 'x-csrf-token': header })
        .post('/api/v1/project', { code: 'csrf-planted', name: 'never created' });
      expect(res.status, `${cookie}: ${JSON.stringify(res.body)}`).to.equal(403);
      expect(res.body.error.message).to.contain('X-CSRF-Token');
    }
    expect((await t.admin.get('/api/v1/project/csrf-planted')).status).to.equal(404);
    // Each session's own value still passes, the other's too with its own cookie.
    for (const own of [s, other]) {
      const res = await t.anon
        .withHeaders({ cookie: cookieHeader(own), 'x-csrf-token': own.body.csrf_token })
        .put('/api/v1/issues/status', { ids: [] });
      expect(res.status, 'the CSRF check passed and the service validated the body').to.equal(400);
    }
  });

  it('answers a bad login body with 400 naming the field, wrong credentials with 401, never setting cookies', async () => {
    const bad = await t.anon.post('/api/v1/auth/session', { username: '', extra: 1 });
    expect(bad.status).to.equal(400);
    expect(bad.body.error.details.map((d: { field: string }) => d.field)).to.include.members([
      'username',
      'password',
      'extra',
    ]);
    expect(bad.headers.getSetCookie()).to.deep.equal([]);
    const notJson = await t.anon
      .withHeaders({ 'content-type': 'application/json' })
      .request('POST', '/api/v1/auth/session', undefined, '{"username":');
    expect(notJson.status).to.equal(400);
    const wrong = await t.anon.post('/api/v1/auth/session', { username: 'admin', password: 'not-the-password' });
    expect(wrong.status).to.equal(401);
    expect(wrong.headers.getSetCookie()).to.deep.equal([]);
    expect(
      (await t.anon.withHeaders({ cookie: 'bulwark_session=not-a-token' }).get('/api/v1/auth/me')).status,
    ).to.equal(401);
  });

  it('logs out by clearing both cookies', async () => {
    const res = await fetch(`${base()}/api/v1/auth/session`, { method: 'DELETE' });
    expect(res.status).to.equal(200);
    expect(await res.json()).to.deep.equal({ signed_out: true });
    const cleared = setCookies(res.headers);
    for (const name of ['bulwark_session', 'bulwark_csrf'])
      expect(cleared.get(name)).to.match(/Expires=Thu, 01 Jan 1970/);
  });

  it('logs out by revoking the session\u2019s token: a copied cookie value is refused from then on, the user\u2019s other sessions go on', async () => {
    const s = await login();
    const other = await login();
    const browser = t.anon.withHeaders({ cookie: cookieHeader(s) });
    const copied = t.anon.as(valueOf(s.session));
    // Without the CSRF header another site could end the session: refused, the token still works.
    expect((await browser.delete('/api/v1/auth/session')).status).to.equal(403);
    expect((await copied.get('/api/v1/auth/me')).status).to.equal(200);

    const res = await browser.withHeaders({ 'x-csrf-token': s.body.csrf_token }).delete('/api/v1/auth/session');
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.deep.equal({ signed_out: true });
    expect(setCookies(res.headers).get('bulwark_session')).to.match(/Expires=Thu, 01 Jan 1970/);
    expect((await browser.get('/api/v1/auth/me')).status).to.equal(401);
    expect((await copied.get('/api/v1/auth/me')).status).to.equal(401);
    expect((await t.anon.withHeaders({ cookie: cookieHeader(other) }).get('/api/v1/auth/me')).status).to.equal(200);
  });

  it('POST /auth/logout ends a bearer login session; an API token is not a session (409) and keeps working', async () => {
    const token = await t.anon.login('admin', ADMIN_PASSWORD);
    const caller = t.anon.as(token);
    expect((await caller.post('/api/v1/auth/logout')).body).to.deep.equal({ signed_out: true });
    expect((await caller.get('/api/v1/auth/me')).status).to.equal(401);
    expect((await caller.post('/api/v1/auth/logout')).status).to.equal(401);

    const created = await t.admin.post('/api/v1/token', {
      name: 'logout probe',
      expires_at: new Date(Date.now() + 86400000).toISOString(),
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(200);
    const api = t.anon.as(created.body.token);
    const refused = await api.post('/api/v1/auth/logout');
    expect(refused.status).to.equal(409);
    expect(refused.body.error.message).to.contain('DELETE /api/v1/tokens');
    expect((await api.get('/api/v1/auth/me')).status).to.equal(200);
    expect((await t.admin.delete('/api/v1/tokens', { ids: [created.body.id] })).status).to.equal(200);
  });

  it('serves the console at / and client routes with strict security headers; assets are immutable; API and health paths are never the page', async () => {
    const page = await fetch(`${base()}/`);
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-type')).to.contain('text/html');
    const html = await page.text();
    const csp = expectPageHeaders(page.headers);
    expect(page.headers.get('cache-control')).to.equal('no-cache');
    expect(html).not.to.match(/<script(?![^>]*\bsrc=)[^>]*>/);

    const route = await fetch(`${base()}/issues?filter%5Bseverity%5D=high`);
    expect(route.status).to.equal(200);
    expect(await route.text()).to.equal(html);

    const asset = /src="(\/assets\/[^"]+\.js)"/.exec(html)![1];
    const js = await fetch(`${base()}${asset}`);
    expect(js.status).to.equal(200);
    expect(js.headers.get('cache-control')).to.equal('public, max-age=31536000, immutable');
    expect(js.headers.get('content-type')).to.contain('javascript');
    // Each page is a chunk the entry imports when the page first shows: served and cached the same way.
    const chunk = /assets\/Issues-[\w-]+\.js/.exec(await js.text())![0];
    const issuesChunk = await fetch(`${base()}/${chunk}`);
    expect(issuesChunk.status).to.equal(200);
    expect(issuesChunk.headers.get('cache-control')).to.equal('public, max-age=31536000, immutable');
    expect(issuesChunk.headers.get('content-security-policy')).to.equal(csp);
    const missing = await fetch(`${base()}/assets/missing-0000.js`);
    expect(missing.status).to.equal(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).to.equal('not_found');

    for (const p of ['/api/v1/nope', '/api/other']) {
      const res = await fetch(`${base()}${p}`);
      expect(res.status, p).to.equal(404);
      expect(res.headers.get('content-type'), p).to.contain('application/json');
    }
    expect((await fetch(`${base()}/healthz`)).headers.get('content-type')).to.contain('application/json');
  });

  it('serves Swagger UI with the console\u2019s security headers and a policy of its own files, its initializer a file that keeps no token', async () => {
    const page = await fetch(`${base()}/api/v1/swagger/index.html`);
    expect(page.status).to.equal(200);
    const html = await page.text();
    expect(html, 'no inline script').not.to.match(/<script(?![^>]*\bsrc=)[^>]*>/);
    const csp = expectPageHeaders(page.headers);
    const init = await fetch(`${base()}/api/v1/swagger/swagger-initializer.js`);
    expect(init.headers.get('content-security-policy')).to.equal(csp);
    const script = await init.text();
    expect(script).to.contain('persistAuthorization: false').and.not.to.contain('persistAuthorization: true');
  });
}
