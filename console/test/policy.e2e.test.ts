/// <reference lib="dom" />
// Policy, notifications, the dashboard's locked layers and trend, and scan comparison, through the console in Chromium.
import { expect } from 'chai';
import { BrowserContext, Page } from 'playwright-core';
import { Api, ADMIN_PASSWORD, GitServer, type Json, RunningSystem } from '@bulwark/testkit';
import { semgrepReport } from '../../services/issues/test/issues.suite';
import { startReceiver } from '../../services/notifications/test/notifications.suite';
import { expectAccessible, openBrowser, requireChromium, shot, signIn } from './browser';
import { ConsoleSystem, ok, startConsoleSystem, uploadReport, waitUntil } from './system';

const SUBPROCESS = {
  rule: 'python.lang.security.dangerous-subprocess',
  line: 4,
  code: 'subprocess.call(cmd, shell=True)',
  severity: 'ERROR' as const,
  cwe: 'CWE-78: OS Command Injection',
};
const EVAL = {
  rule: 'python.lang.security.eval',
  line: 9,
  code: 'eval(data)',
  severity: 'WARNING' as const,
  cwe: 'CWE-95',
};
const TOKEN = 'console-token-never-shown-5d1c';

describe('console policy and notifications (Chromium through Playwright)', function () {
  let sys: (RunningSystem & { alive(): boolean }) | undefined;
  let git: GitServer | undefined;
  let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;
  let refused: Awaited<ReturnType<typeof startReceiver>> | undefined;
  let context: BrowserContext | undefined;
  let page: Page;
  let admin: Api;
  let env: ConsoleSystem['env'];
  let checkId: string;
  const problems: string[] = [];

  /** Uploads a Semgrep report to the check and waits until its findings are ingested (the gate verdict is set then). */
  const upload = async (findings: Parameters<typeof semgrepReport>[0]) => {
    const scanId = await uploadReport(admin, checkId, semgrepReport(findings));
    await waitUntil(
      async () => Boolean((await admin.get(`/api/v1/scan-result/${scanId}`)).body.quality_gate),
      () => 'the uploaded report was not ingested',
    );
    return scanId;
  };
  const gates = async () => ok(await admin.get('/api/v1/quality-gates')).items as Json[];

  before(async function () {
    this.timeout(240000);
    requireChromium(this);
    ({ sys, admin, git, env, checkId } = await startConsoleSystem());
    receiver = await startReceiver();
    ({ context, page } = await openBrowser(problems));
    await signIn(page, sys.api.baseUrl, 'admin', ADMIN_PASSWORD);
  });

  after(async function () {
    this.timeout(60000);
    await context?.close();
    await receiver?.close();
    await refused?.close();
    await git?.close();
    await sys?.stop();
  });

  it('creates a quality gate, adds and edits a condition, and links the gate to the layer with lock', async () => {
    await page.getByRole('link', { name: 'Policy', exact: true }).click();
    await page.getByRole('heading', { name: 'Quality gates', level: 1 }).waitFor();
    const create = page.getByRole('form', { name: 'New quality gate' });
    await create.getByLabel('Name', { exact: true }).fill('Console gate');
    await create.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { name: /^Console gate/ }).waitFor();

    const condition = page.getByRole('form', { name: 'New condition of Console gate' });
    await condition.getByLabel('Measure').selectOption('total');
    await condition.getByLabel('Must be').selectOption('not_greater_than');
    await condition.getByLabel('Number').fill('0');
    await condition.getByRole('button', { name: 'Add condition' }).click();
    await page.getByRole('cell', { name: 'All open issues', exact: true }).waitFor();

    await page.getByRole('button', { name: 'Edit All open issues at most 0' }).click();
    const edit = page.getByRole('form', { name: 'Edit a condition of Console gate' });
    await edit.getByLabel('Number').fill('1');
    await edit.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('button', { name: 'Edit All open issues at most 1' }).waitFor();

    const link = page.getByRole('form', { name: 'Link Console gate to a layer' });
    await link.getByLabel('Layer').selectOption({ label: `${env.code} / code` });
    await link.getByLabel('On failure').selectOption('lock');
    await link.getByRole('button', { name: 'Link' }).click();
    await page.getByRole('button', { name: `Unlink ${env.code} / code` }).waitFor();
    await expectAccessible(page, 'quality gates');
    await shot(page, 'policy-gates');

    const [gate] = await gates();
    expect(gate.name).to.equal('Console gate');
    expect(gate.conditions.map((c: Json) => [c.condition_type, c.operator, c.value])).to.deep.equal([
      ['total', 'not_greater_than', '1'],
    ]);
    expect(gate.layers).to.deep.equal([{ layer_id: env.layerId, action: 'lock' }]);
  });

  it('creates and edits a security rule from the guide\u2019s fields', async () => {
    await page.getByRole('link', { name: 'Security rules' }).click();
    await page.getByRole('heading', { name: 'Security rules', level: 1 }).waitFor();
    const form = page.getByRole('form', { name: 'New security rule' });
    await form.getByLabel('Name', { exact: true }).fill('Accept a test CVE');
    await form.getByLabel('CVE', { exact: true }).fill('CVE-2099-0001');
    await form.getByLabel('Tool category').fill('sast');
    await form.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('cell', { name: 'Accept a test CVE', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Edit Accept a test CVE' }).click();
    const edit = page.getByRole('form', { name: 'Edit Accept a test CVE' });
    await edit.getByLabel('Name', { exact: true }).fill('Accepted test CVE');
    await edit.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('cell', { name: 'Accepted test CVE', exact: true }).waitFor();
    await expectAccessible(page, 'security rules');
    await shot(page, 'policy-rules');

    const rules = ok(await admin.get('/api/v1/security-rules')).items;
    expect(
      rules.map((r: Json) => [
        r.name,
        r.rule_params.cve,
        r.rule_params.instrument_type,
        r.rule_params.active_for_all,
        r.suppressing_status,
      ]),
    ).to.deep.equal([['Accepted test CVE', 'CVE-2099-0001', 'sast', true, 7]]);
  });

  it('creates a policy over project tags with a gate, then deletes it in two steps', async () => {
    await page.getByRole('link', { name: 'Policies' }).click();
    await page.getByRole('heading', { name: 'Policies', level: 1 }).waitFor();
    const form = page.getByRole('form', { name: 'New policy' });
    await form.getByLabel('Name', { exact: true }).fill('Tagged projects');
    await form.getByLabel('Project tags (comma separated)').fill('test, web');
    await form.getByLabel('Console gate', { exact: true }).check();
    await form.getByLabel('On failure of Console gate').selectOption('inform');
    await form.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('cell', { name: 'Console gate (only inform)' }).waitFor();
    await expectAccessible(page, 'policies');
    await shot(page, 'policy-policies');
    const [policy] = ok(await admin.get('/api/v1/policies')).items;
    expect([policy.name, policy.project_tags, policy.quality_gates]).to.deep.equal([
      'Tagged projects',
      ['test', 'web'],
      [{ quality_gate_id: (await gates())[0].id, action: 'inform' }],
    ]);

    await page.getByRole('button', { name: 'Delete Tagged projects' }).click();
    // The confirmation takes the focus, so Enter confirms from the keyboard.
    await page.keyboard.press('Enter');
    await page.getByText('Nothing here yet.').waitFor();
    expect(ok(await admin.get('/api/v1/policies')).total).to.equal(0);
  });

  it('creates a webhook notifier whose token is never shown, sends a test and keeps the token on edit', async () => {
    await page.getByRole('link', { name: 'Notifications', exact: true }).click();
    await page.getByRole('heading', { name: 'Notifiers', level: 1 }).waitFor();
    const form = page.getByRole('form', { name: 'New webhook notifier' });
    await form.getByLabel('Name', { exact: true }).fill('Console hook');
    await form.getByLabel('URL').fill(receiver!.url);
    await form.getByLabel('Token header name').fill('X-Token');
    await form.getByLabel('Token (write-only)').fill(TOKEN);
    await form.getByLabel('quality_gate.evaluated').check();
    await form.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('cell', { name: 'Console hook', exact: true }).waitFor();
    expect(await page.content()).not.to.contain(TOKEN);

    await page.getByRole('button', { name: 'Send a test to Console hook' }).click();
    await page.getByRole('status').filter({ hasText: 'Test delivered: HTTP 200' }).waitFor();
    const test = receiver!.received.find((r) => r.body.type === 'notifier.test');
    expect(test?.headers['x-token']).to.equal(TOKEN);

    await page.getByRole('button', { name: 'Edit Console hook' }).click();
    const edit = page.getByRole('form', { name: 'Edit Console hook' });
    expect(await edit.getByLabel('Token (write-only)').inputValue()).to.equal('');
    await edit.getByText('Set: leave empty to keep it.').first().waitFor();
    await edit.getByLabel('Requests per second').fill('7');
    await edit.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('form', { name: 'New webhook notifier' }).waitFor();
    await expectAccessible(page, 'notifiers');
    await shot(page, 'notifications-notifiers');
    const [notifier] = ok(await admin.get('/api/v1/notifiers')).items;
    expect([
      notifier.events,
      notifier.settings.rate_limit,
      notifier.settings.auth_header_name,
      notifier.settings.auth_header_set,
    ]).to.deep.equal([['quality_gate.evaluated'], 7, 'X-Token', true]);
  });

  it('shows the gate\u2019s lock on the dashboard and the new issues in the weekly trend once a report is ingested', async () => {
    await upload([SUBPROCESS, EVAL]);
    expect(ok(await admin.get(`/api/v1/quality-gate/layer/${env.layerId}`)).locked).to.equal(true);
    await page.getByRole('link', { name: 'Dashboard' }).click();
    const locked = page.getByRole('region', { name: 'Locked layers' });
    await locked.getByRole('cell', { name: 'Console gate (lock the layer)' }).waitFor();
    await locked.getByRole('link', { name: env.code }).waitFor();
    const trend = page.getByRole('region', { name: 'Issues per week: new, fixed, open' });
    // The newest week is the last row: both findings were first detected now, and are open.
    const newest = trend.locator('tbody tr').last().locator('td');
    await newest.first().waitFor();
    expect(await newest.allTextContents()).to.deep.equal(['2', '0', '2']);
    await expectAccessible(page, 'dashboard');
    await shot(page, 'dashboard-policy');
  });

  it('lists the security events, filtered by type, as the API counts them', async () => {
    await page.getByRole('link', { name: 'Notifications', exact: true }).click();
    await page.getByRole('link', { name: 'Events log' }).click();
    await page.getByRole('heading', { name: 'Events log', level: 1 }).waitFor();
    await page.getByRole('cell', { name: 'quality_gate.evaluated' }).first().waitFor();
    await page.getByLabel('Event', { exact: true }).selectOption('quality_gate.evaluated');
    await page.getByRole('button', { name: 'Apply' }).click();
    const total = ok(await admin.get('/api/v1/events?filter[type]=quality_gate.evaluated')).total;
    expect(total).to.be.greaterThan(0);
    await page
      .getByRole('status')
      .filter({ hasText: `${total} events` })
      .waitFor();
    expect(await page.locator('table.grid tbody tr').count()).to.equal(total);
    await expectAccessible(page, 'events log');
    await shot(page, 'notifications-events');
  });

  it('compares two scans of a check: the fixed finding, none new, the unchanged one', async () => {
    await upload([SUBPROCESS]);
    await page.getByRole('link', { name: 'Projects' }).click();
    await page.getByRole('link', { name: env.code }).click();
    await page.getByRole('button', { name: 'Scan history' }).click();
    const form = page.getByRole('form', { name: 'Compare two scans' });
    await form.getByRole('button', { name: 'Compare' }).click();
    // The comparison shows below its form.
    const table = page.getByRole('table', { name: 'Comparison' });
    const row = (name: string) =>
      table
        .getByRole('row', { name: new RegExp(`^${name.replace(/[()]/g, '\\$&')}`) })
        .locator('td')
        .first();
    await table.waitFor();
    expect([
      await row('Fixed (only in the earlier)').textContent(),
      await row('New (only in the later)').textContent(),
      await row('Unchanged (in both)').textContent(),
    ]).to.deep.equal(['1', '0', '1']);
    const history = ok(await admin.get(`/api/v1/scan-results/stats/${checkId}`)).items;
    const api = ok(
      await admin.get(
        `/api/v1/scan-results/stats/compare?first=${history[1].scan_result_id}&second=${history[0].scan_result_id}`,
      ),
    );
    expect([api.only_in_first.count, api.only_in_second.count, api.in_both.count]).to.deep.equal([1, 0, 1]);
    await expectAccessible(page, 'scan comparison');
    await shot(page, 'check-compare');
  });

  it('lists the error log filtered by a code the API offers: a webhook delivery given up', async function () {
    this.timeout(90000);
    // 127.0.0.2 is outside the tests' outbound policy: the delivery of the status change below is given up at once.
    refused = await startReceiver('127.0.0.2');
    const notifier = ok(
      await admin.post('/api/v1/notifier', {
        name: 'Refused hook',
        settings: { url: refused.url },
        events: ['issue.status_changed'],
        project_codes: [env.code],
      }),
    );
    const [issue] = ok(
      await admin.get(`/api/v1/issues?filter[project_code]=${env.code}&filter[status]=1&limit=1`),
    ).items;
    ok(await admin.put(`/api/v1/issue/${issue.id}`, { status_id: 2, comment: 'to be notified' }));
    let total = 0;
    await waitUntil(
      async () => (total = ok(await admin.get('/api/v1/errors-log?filter[code]=webhook.given_up')).total) > 0,
      async () =>
        `no webhook.given_up record; deliveries: ${JSON.stringify(ok(await admin.get(`/api/v1/notifier/${notifier.id}`)).deliveries)}`,
    );
    await page.getByRole('link', { name: 'Notifications', exact: true }).click();
    await page.getByRole('link', { name: 'Error log' }).click();
    await page.getByRole('heading', { name: 'Error log', level: 1 }).waitFor();
    await page.getByLabel('Code', { exact: true }).selectOption('webhook.given_up');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `${total} errors` })
      .waitFor();
    expect(await page.locator('table.grid tbody td.mono').first().textContent()).to.equal('webhook.given_up');
    await expectAccessible(page, 'error log');
    await shot(page, 'notifications-errors');
  });

  it('shows an issue\u2019s duplicates and similar issues', async () => {
    await page.goto(`${sys!.api.baseUrl}/issues?filter[project_code]=${env.code}`);
    await page.locator('table.grid tbody tr td a').first().click();
    await page.getByRole('heading', { name: 'Similar issues' }).waitFor();
    await page.getByRole('heading', { name: 'Duplicates of this issue' }).waitFor();
    await expectAccessible(page, 'issue relations');
  });

  it('deletes a notifier, a condition and a gate in two steps each, Escape stepping back', async () => {
    await page.getByRole('link', { name: 'Notifications', exact: true }).click();
    await page.getByRole('button', { name: 'Delete Refused hook' }).click();
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Delete Refused hook' }).click();
    await page.getByRole('button', { name: 'Really delete Refused hook' }).click();
    await page.getByRole('cell', { name: 'Refused hook', exact: true }).waitFor({ state: 'detached' });
    expect(ok(await admin.get('/api/v1/notifiers')).items.map((n: Json) => n.name)).to.deep.equal(['Console hook']);

    await page.getByRole('link', { name: 'Policy', exact: true }).click();
    await page.getByRole('button', { name: 'Delete All open issues at most 1' }).click();
    await page.getByRole('button', { name: 'Really delete All open issues at most 1' }).click();
    await page.getByRole('button', { name: 'Edit All open issues at most 1' }).waitFor({ state: 'detached' });
    expect((await gates())[0].conditions).to.deep.equal([]);
    await page.getByRole('button', { name: 'Delete Console gate' }).click();
    await page.getByRole('button', { name: 'Really delete Console gate' }).click();
    await page.getByRole('heading', { name: /^Console gate/ }).waitFor({ state: 'detached' });
    expect(await gates()).to.deep.equal([]);
  });

  it('speaks Russian on the policy pages', async () => {
    await page.getByRole('link', { name: 'Policy', exact: true }).click();
    await page.getByLabel('Language').selectOption('ru');
    await page.getByRole('heading', { name: 'Шлюзы качества', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Правила безопасности' }).click();
    await page.getByRole('cell', { name: 'Accepted test CVE', exact: true }).waitFor();
    await page.getByRole('columnheader', { name: 'Присваиваемый статус' }).waitFor();
    await expectAccessible(page, 'security rules in Russian');
    await page.getByLabel('Язык').selectOption('en');
    await page.getByRole('heading', { name: 'Security rules', level: 1 }).waitFor();
  });

  it('tells a user without the rights that their role does not allow the page, instead of failing', async () => {
    ok(
      await admin.post('/api/v1/role', {
        role_code: 'console-reader',
        role_name: 'Issue reader',
        roles: { 'issues.issues': ['r'], 'issues.statuses': ['r'] },
      }),
    );
    ok(
      await admin.post('/api/v1/user', {
        username: 'console-reader',
        password: 'reader-Password-1',
        password_confirmation: 'reader-Password-1',
        need_password_change: false,
        roles: ['console-reader'],
      }),
    );
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn(page, sys!.api.baseUrl, 'console-reader', 'reader-Password-1');
    for (const [link, heading] of [
      ['Policy', 'Quality gates'],
      ['Notifications', 'Notifiers'],
    ]) {
      await page.getByRole('link', { name: link, exact: true }).click();
      await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
      await page.getByText('Your role does not allow this.').first().waitFor();
    }
    await expectAccessible(page, 'refused page');
    await shot(page, 'policy-forbidden');
    // The browser logs each refused request; those were expected here, anything else is a problem.
    const refused = problems.filter((p) => /status of 403/.test(p));
    expect(refused).not.to.deep.equal([]);
    expect(problems.filter((p) => !refused.includes(p))).to.deep.equal([]);
  });
});
