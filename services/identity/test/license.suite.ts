import { generateKeyPairSync } from 'node:crypto';
import { expect } from 'chai';
import { COMMUNITY_LIMITS } from '@bulwark/contracts';
import {
  ADMIN_PASSWORD,
  issueTestLicense,
  manualCheck,
  projectWithSource,
  SystemUnderTest,
  uniqueSuffix,
  type Json,
} from '@bulwark/testkit';
import { startReceiver } from '../../notifications/test/notifications.suite';
import { SEMGREP_TOOL_TYPE } from '../../scanning/test/scanning.suite';

const PASSWORD = 'license-password-1234';

/**
 * Every state of the license through the gateway: community, refused installs (nothing stored),
 * valid, limits reached (409 naming the limit, what exists keeps working), expiring and expired
 * with their security events at a webhook. Licenses are signed with the test vendor key, which the
 * test systems trust (LICENSE_PUBLIC_KEY); small limits make the 409s cheap to reach.
 */
export function licenseSuite(t: SystemUnderTest): void {
  let installationId: string;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const run = uniqueSuffix();
  const code = `lic-${run}`;
  let checkId: string;
  let userId: string;

  const ok = (res: { status: number; body: Json }) => {
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body;
  };
  const install = (license: string) => t.admin.put('/api/v1/license', { license });
  const refusedInstall = async (license: string, problem: RegExp) => {
    const res = await install(license);
    expect(res.status, JSON.stringify(res.body)).to.equal(400);
    expect(res.body.error.details[0].field).to.equal('license');
    expect(res.body.error.details[0].problem).to.match(problem);
  };
  const limitReached = (res: { status: number; body: Json }, limit: string) => {
    expect(res.status, JSON.stringify(res.body)).to.equal(409);
    expect(res.body.error.message).to.contain(`License limit reached: ${limit}`);
    expect(res.body.error.details).to.deep.equal([{ field: `license.limits.${limit}`, problem: 'limit of 0 reached' }]);
  };
  /**
   * Sends a request until it answers `status`: catalog and scanning reuse identity's answer about
   * the limits for up to 10 seconds, so a new license reaches them within that time.
   */
  const eventually = async (status: number, send: () => Promise<{ status: number; body: Json }>) => {
    const deadline = Date.now() + 15000;
    for (let res = await send(); ; res = await send()) {
      if (res.status === status || Date.now() > deadline) return res;
      await new Promise((r) => setTimeout(r, 250));
    }
  };
  const webhookEvent = async (type: string, licenseId: string, ms = 30000) => {
    const deadline = Date.now() + ms;
    for (;;) {
      const hit = receiver.received.find((r) => r.body.type === type && r.body.data.license_id === licenseId);
      if (hit) return hit;
      if (Date.now() > deadline) throw new Error(`no ${type} webhook for ${licenseId}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  const licenseId = (text: string) =>
    JSON.parse(Buffer.from(text.split('.')[1], 'base64url').toString('utf8')).id as string;

  before(async function () {
    this.timeout(60000);
    receiver = await startReceiver();
    ok(
      await t.admin.post('/api/v1/notifier', {
        name: `license ${run}`,
        settings: { url: receiver.url, rate_limit: 50 },
        events: ['license.expiring', 'license.expired'],
        project_codes: [],
      }),
    );
    checkId = await manualCheck(
      t.admin,
      await projectWithSource(t.admin, {
        code,
        sourceUrl: 'https://git.example.test/app.git',
        toolTypes: [SEMGREP_TOOL_TYPE],
      }),
    );
    userId = ok(
      await t.admin.post('/api/v1/user', {
        username: `licensed${run}`,
        password: PASSWORD,
        password_confirmation: PASSWORD,
        roles: [],
      }),
    ).id;
  });
  after(async () => {
    // Leaves a license without limits behind, so the suites after this one are not limited.
    if (installationId)
      await install(
        issueTestLicense(installationId, { limits: { projects: null, users: null, scanning_processes: null } }),
      );
    await receiver?.close();
  });

  it('runs as the community edition without a license, and shows what a vendor needs', async () => {
    const license = ok(await t.admin.get('/api/v1/license'));
    expect(license).to.include({
      installed: false,
      status: 'community',
      edition: 'community',
      days_left: null,
      expires_at: null,
      licensee: null,
      license_limits: null,
    });
    expect(license.limits).to.deep.equal(COMMUNITY_LIMITS);
    expect(ok(await t.admin.get('/api/v1/license/status'))).to.deep.equal({
      status: 'community',
      edition: 'community',
      days_left: null,
      expires_at: null,
    });
    const environment = ok(await t.admin.get('/api/v1/license/environment'));
    installationId = environment.installation_id;
    expect(installationId).to.match(/^[0-9a-f-]{36}$/);
    expect(license.installation_id).to.equal(installationId);
    expect(environment).to.include({ version: '0.1.0', edition: 'community' });
    expect(environment.in_use.projects).to.be.at.least(1);
    expect(environment.in_use.users).to.be.at.least(2);
    expect(environment.in_use.scanning_processes).to.be.a('number');
  });

  it('refuses a changed, foreign-signed, expired or other installation\u2019s license with 400, storing nothing', async () => {
    const good = issueTestLicense(installationId);
    const [prefix, body, signature] = good.split('.');
    const doc = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    const changed = Buffer.from(
      JSON.stringify({ ...doc, limits: { projects: null, users: null, scanning_processes: null } }),
    ).toString('base64url');
    await refusedInstall(`${prefix}.${changed}.${signature}`, /signature does not verify/);
    const { privateKey } = generateKeyPairSync('ed25519');
    await refusedInstall(
      issueTestLicense(installationId, {}, privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()),
      /signature does not verify/,
    );
    await refusedInstall(
      issueTestLicense(installationId, { issued_at: new Date(Date.now() - 10 * 86_400_000).toISOString(), days: -1 }),
      /expired/,
    );
    await refusedInstall(
      issueTestLicense('00000000-0000-4000-8000-000000000000'),
      /installation 00000000-0000-4000-8000-000000000000, not this one/,
    );
    await refusedInstall('not a license at all', /not a license/);
    expect((await t.admin.put('/api/v1/license', {})).status).to.equal(400);
    expect(ok(await t.admin.get('/api/v1/license'))).to.include({ installed: false, status: 'community' });
  });

  it('installs a valid license: its licensee, limits and features, status valid with the days left', async () => {
    const text = issueTestLicense(installationId, {
      licensee: 'Example Bank',
      days: 200,
      limits: { projects: 500, users: 250, scanning_processes: 20 },
      features: ['trackers'],
    });
    const installed = ok(await install(text));
    expect(installed).to.include({
      installed: true,
      status: 'valid',
      edition: 'enterprise',
      licensee: 'Example Bank',
      days_left: 200,
      id: licenseId(text),
    });
    expect(installed.limits).to.deep.equal({ projects: 500, users: 250, scanning_processes: 20 });
    expect(installed.license_limits).to.deep.equal(installed.limits);
    expect(installed.features).to.deep.equal(['trackers']);
    expect(ok(await t.admin.get('/api/v1/license/status'))).to.include({
      status: 'valid',
      edition: 'enterprise',
      days_left: 200,
    });
    expect(ok(await t.admin.get('/api/v1/license/environment')).limits).to.deep.equal({
      projects: 500,
      users: 250,
      scanning_processes: 20,
    });
  });

  it('over a limit, creating more answers 409 naming it, and nothing that exists stops working', async function () {
    this.timeout(60000);
    ok(await install(issueTestLicense(installationId, { limits: { projects: 0, users: 0, scanning_processes: 0 } })));
    // A new code each time: a creation the old limits still let through must not answer "already exists".
    let attempt = 0;
    limitReached(
      await eventually(409, () =>
        t.admin.post('/api/v1/project', {
          code: `more-${run}-${++attempt}`,
          name: 'one too many',
          description: '',
          tags: [],
        }),
      ),
      'projects',
    );
    limitReached(
      await t.admin.post('/api/v1/user', {
        username: `more${run}`,
        password: PASSWORD,
        password_confirmation: PASSWORD,
        roles: [],
      }),
      'users',
    );
    limitReached(await eventually(409, () => t.admin.post(`/api/v1/check/${checkId}/run`)), 'scanning_processes');
    limitReached(
      await t.admin.post(`/api/v1/layer/${ok(await t.admin.get(`/api/v1/check/${checkId}`)).layer_id}/run`),
      'scanning_processes',
    );
    expect((await t.admin.get(`/api/v1/project/more-${run}-${attempt}`)).status, 'nothing was created').to.equal(404);
    // A deleted user restored would be one more user.
    ok(await t.admin.delete('/api/v1/users', { ids: [userId] }));
    const [restore] = ok(await t.admin.put('/api/v1/restore-users', { ids: [userId] })).results;
    expect(restore).to.include({ id: userId, status: 'conflict' });
    expect(restore.message).to.contain('License limit reached: users');
    // What exists goes on: the project is read and changed, the check is changed, the admin logs in.
    expect(ok(await t.admin.get(`/api/v1/project/${code}`)).code).to.equal(code);
    ok(await t.admin.put(`/api/v1/project/${code}`, { name: 'renamed while over the limit' }));
    await t.anon.login('admin', ADMIN_PASSWORD);
    // Limits apply at once: a license without limits lets the same creations through.
    ok(
      await install(
        issueTestLicense(installationId, { limits: { projects: null, users: null, scanning_processes: null } }),
      ),
    );
    ok(await t.admin.put('/api/v1/restore-users', { ids: [userId] }));
    ok(
      await eventually(200, () =>
        t.admin.post('/api/v1/project', {
          code: `more-${run}-${++attempt}`,
          name: 'fits now',
          description: '',
          tags: [],
        }),
      ),
    );
  });

  it('turns expiring within 30 days and announces it as a security event at a webhook and in the events log', async function () {
    this.timeout(60000);
    const text = issueTestLicense(installationId, { licensee: 'Soon Expiring Ltd', days: 10 });
    expect(ok(await install(text))).to.include({ status: 'expiring', days_left: 10 });
    expect(ok(await t.admin.get('/api/v1/license/status'))).to.include({ status: 'expiring', days_left: 10 });
    const call = await webhookEvent('license.expiring', licenseId(text));
    expect(call.body.data).to.include({ licensee: 'Soon Expiring Ltd', days_left: 10, edition: 'enterprise' });
    expect(call.body.message).to.contain('expires in 10 day(s)');
    expect(call.body.message_ru).to.contain('истекает через 10');
    const events = ok(await t.admin.get('/api/v1/events?filter[type]=license.expiring')).items;
    expect(events.map((e: Json) => e.data.license_id)).to.include(licenseId(text));
  });

  it('expires: status expired with community limits, a license.expired event, and stored data keeps working', async function () {
    this.timeout(60000);
    const text = issueTestLicense(installationId, {
      licensee: 'Short Lived GmbH',
      days: 4 / 86_400,
      limits: { projects: 0, users: 0, scanning_processes: 0 },
    });
    expect(ok(await install(text))).to.include({ status: 'expiring', days_left: 1 });
    const deadline = Date.now() + 20000;
    let status = ok(await t.admin.get('/api/v1/license/status'));
    while (status.status !== 'expired' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      status = ok(await t.admin.get('/api/v1/license/status'));
    }
    expect(status).to.include({ status: 'expired', days_left: 0, edition: 'enterprise' });
    const call = await webhookEvent('license.expired', licenseId(text));
    expect(call.body.message).to.contain('Short Lived GmbH').and.to.contain('community limits apply');
    const license = ok(await t.admin.get('/api/v1/license'));
    expect(license).to.include({ installed: true, status: 'expired' });
    expect(license.limits).to.deep.equal(COMMUNITY_LIMITS);
    expect(license.license_limits).to.deep.equal({ projects: 0, users: 0, scanning_processes: 0 });
    const environment = ok(await t.admin.get('/api/v1/license/environment'));
    expect(environment.edition).to.equal('community');
    // The license's own zero limits no longer apply: the community ones do.
    if (environment.in_use.users < COMMUNITY_LIMITS.users!)
      ok(
        await t.admin.post('/api/v1/user', {
          username: `after${run}`,
          password: PASSWORD,
          password_confirmation: PASSWORD,
          roles: [],
        }),
      );
    expect(ok(await t.admin.get(`/api/v1/project/${code}`)).code).to.equal(code);
    // An expired license cannot be installed again.
    await refusedInstall(text, /expired/);
  });
}
