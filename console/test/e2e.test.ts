/// <reference lib="dom" />
// The functions handed to page.evaluate run in the browser: DOM types for those.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { expect } from 'chai';
import { BrowserContext, Page } from 'playwright-core';
import { Api, ADMIN_PASSWORD, GitServer, RunningSystem } from '@bulwark/testkit';
import { semgrepReport } from '../../services/issues/test/issues.suite';
import { ARTIFACTS, expectAccessible, openBrowser, requireChromium, shot } from './browser';
import { startConsoleSystem, uploadReport, waitUntil } from './system';

describe('console end to end (Chromium through Playwright)', function () {
  let sys: (RunningSystem & { alive(): boolean }) | undefined;
  let git: GitServer | undefined;
  let context: BrowserContext | undefined;
  let page: Page;
  let admin: Api;
  let code: string;
  let layerId: string;
  const problems: string[] = [];

  before(async function () {
    this.timeout(240000);
    requireChromium(this);
    let checkId: string;
    ({
      sys,
      admin,
      git,
      checkId,
      env: { code, layerId },
    } = await startConsoleSystem());
    const report = semgrepReport([
      {
        rule: 'python.lang.security.dangerous-subprocess',
        line: 4,
        code: 'subprocess.call(cmd, shell=True)',
        severity: 'ERROR',
        cwe: 'CWE-78: OS Command Injection',
      },
      { rule: 'python.lang.security.eval', line: 9, code: 'eval(data)', severity: 'WARNING', cwe: 'CWE-95' },
    ]);
    await uploadReport(admin, checkId, report);
    await waitUntil(
      async () => (await admin.get(`/api/v1/issues/count?filter[project_code]=${code}`)).body.count === 2,
      () => 'the uploaded report was not ingested',
    );

    ({ context, page } = await openBrowser(problems));
  });

  after(async function () {
    this.timeout(60000);
    await context?.close();
    await git?.close();
    await sys?.stop();
  });

  it('signs in by keyboard; the session cookie is HttpOnly and out of the page\u2019s reach', async () => {
    await page.goto(`${sys!.api.baseUrl}/`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await expectAccessible(page, 'sign in');
    // The first Tab reaches the skip link, drawn with a visible focus ring.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).to.equal('Skip to content');
    expect(await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle)).not.to.equal('none');
    await page.getByLabel('Username').focus();
    await page.keyboard.type('admin');
    await page.keyboard.press('Tab');
    await page.keyboard.type(ADMIN_PASSWORD);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    const cookies = await context!.cookies();
    const session = cookies.find((c) => c.name === 'bulwark_session');
    expect(session?.httpOnly).to.equal(true);
    expect(session?.sameSite).to.equal('Strict');
    expect(await page.evaluate(() => document.cookie)).not.to.contain('bulwark_session');
    await expectAccessible(page, 'dashboard');
    await shot(page, 'dashboard');
  });

  it('shows on the dashboard the counts the API gives, from two grouped requests: open by severity, by status, and new, fixed and open per week', async () => {
    const counted: string[] = [];
    const listen = (request: { url(): string }) => {
      if (new URL(request.url()).pathname.startsWith('/api/v1/issues/count'))
        counted.push(new URL(request.url()).pathname);
    };
    page.on('request', listen);
    await page.goto(`${sys!.api.baseUrl}/`);
    const trend = page.getByRole('table', { name: 'Issues per week: new, fixed, open' });
    await trend.waitFor();
    await page.locator('meter').first().waitFor();
    page.off('request', listen);
    expect(counted).to.deep.equal(['/api/v1/issues/count/grouped', '/api/v1/issues/count/grouped']);

    const count = async (query: string) => (await admin.get(`/api/v1/issues/count?${query}`)).body.count as number;
    const shown = async (region: string, label: string) =>
      Number(
        await page.getByRole('region', { name: region }).locator(`meter[aria-label="${label}"]`).getAttribute('value'),
      );
    const open = 'filter[status]=1&filter[status]=2&filter[status]=3&filter[status]=8';
    for (const [severity, label] of [
      ['critical', 'Critical'],
      ['high', 'High'],
      ['medium', 'Medium'],
      ['low', 'Low'],
      ['info', 'Info'],
    ]) {
      expect(await shown('Open issues by severity', label), label).to.equal(
        await count(`filter[severity]=${severity}&${open}`),
      );
    }
    for (const [status, label] of [
      [1, 'New'],
      [4, 'Fixed'],
    ] as const)
      expect(await shown('Issues by status', label), label).to.equal(await count(`filter[status]=${status}`));

    // Eight weeks, oldest first, each as the API counts it; this week has the two uploaded issues, both open.
    const rows = await trend
      .locator('tbody tr')
      .evaluateAll((trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td'), (td) => Number(td.textContent))));
    const weeks = (await admin.get('/api/v1/issues/count/grouped?group_by=week&weeks=8')).body.groups;
    expect(rows).to.deep.equal(
      weeks.map((w: { new: number; fixed: number; open: number }) => [w.new, w.fixed, w.open]),
    );
    const total = await count('');
    expect(rows[7]).to.deep.equal([total, 0, total]);
    expect(total).to.be.greaterThan(0);
  });

  it('lists the uploaded project\u2019s issues with filters as chips, the view in the URL, and triages one with a comment', async () => {
    await page.getByRole('link', { name: 'Issues', exact: true }).click();
    await page.getByRole('heading', { name: 'Issues' }).waitFor();
    await page.getByLabel('Filter', { exact: true }).selectOption('filter[project_code]');
    // The project filter is a picker of names; its chip shows the name too.
    await page.getByLabel('Value').selectOption(code);
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await page.getByText(`Project: Project ${code} (${code})`).waitFor();
    expect(new URL(page.url()).searchParams.getAll('filter[project_code]')).to.deep.equal([code]);
    await page.getByRole('status').filter({ hasText: '1–2 of 2' }).waitFor();
    const rows = page.locator('table.grid tbody tr');
    expect(await rows.count()).to.equal(2);
    await expectAccessible(page, 'issues');
    await shot(page, 'issues');

    // A saved link opens the same view.
    await page.goto(page.url());
    await page.getByRole('status').filter({ hasText: '1–2 of 2' }).waitFor();

    const title = (await rows.first().locator('td a').textContent())!;
    await page.getByLabel(`Select ${title}`).check();
    await page.getByLabel('New status').selectOption({ label: 'Confirmed' });
    await page.getByLabel('Comment').fill('seen in review');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('1 changed, 0 not changed').waitFor();
    const issues = await admin.get(`/api/v1/issues?filter[project_code]=${code}&filter[status]=2`);
    expect(issues.body.items.map((i: { title: string }) => i.title)).to.deep.equal([title]);

    await page.getByRole('link', { name: title }).click();
    await page.getByRole('heading', { name: title }).waitFor();
    await page.getByRole('cell', { name: 'seen in review' }).waitFor();
    await expectAccessible(page, 'issue detail');
    await shot(page, 'issue-detail');
  });

  it('switches to Russian, with the product\u2019s Russian status names', async () => {
    await page.getByLabel('Language').selectOption('ru');
    await page.getByRole('link', { name: 'Уязвимости' }).waitFor();
    await page.getByText('Подтверждена').first().waitFor();
    expect(await page.evaluate(() => document.documentElement.lang)).to.equal('ru');
    await page.getByLabel('Язык').selectOption('en');
    await page.getByRole('link', { name: 'Issues', exact: true }).waitFor();
  });

  it('shows the project with its layer and check, and adds a check from the guide’s fields', async () => {
    await page.getByRole('link', { name: 'Projects' }).click();
    await page.getByRole('link', { name: code }).click();
    await page.getByRole('heading', { name: 'Layers' }).waitFor();
    const history = page.getByRole('button', { name: 'Scan history' });
    await history.first().waitFor();
    expect(await history.count()).to.equal(1);
    await expectAccessible(page, 'project');
    const form = page.getByRole('form', { name: /^New check: / });
    await form.getByLabel('Tool').selectOption({ index: 1 });
    await form.getByLabel('Source').selectOption({ index: 1 });
    expect(await form.getByLabel('Branch').inputValue()).to.equal('main');
    await form.getByRole('button', { name: 'New check' }).click();
    await history.nth(1).waitFor();
    expect((await admin.get(`/api/v1/checks?filter[project_code]=${code}`)).body.total).to.equal(2);
  });

  it('stops a scan in flight with the check\u2019s Stop button, then offers Run again', async () => {
    // A source that never answers: the scan's checkout waits on it, so the scan stays in flight until stopped.
    const silent = http.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/app.git`;
      const source = await admin.post('/api/v1/source', {
        name: `silent ${code}`,
        source_type_id: 1,
        settings: { url, branch_name: 'main', auth_method: 'Anonymous' },
      });
      expect(source.status, JSON.stringify(source.body)).to.equal(200);
      const tool = await admin.post('/api/v1/tool', {
        description: 'semgrep for stop',
        type_id: 1,
        settings: { scan_result_lang: 'EN' },
      });
      expect(tool.status, JSON.stringify(tool.body)).to.equal(200);
      const check = await admin.post('/api/v1/check', {
        layer_id: layerId,
        security_tool_id: tool.body.id,
        scan_source_id: source.body.id,
        run_scan_task: { type: 'manual' },
        tags: [{ tag_name: 'silent' }],
      });
      expect(check.status, JSON.stringify(check.body)).to.equal(200);

      await page.goto(`${sys!.api.baseUrl}/projects/${code}`);
      // The check is named by its tool, source and tag.
      const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: /silent .* · silent$/ }) });
      await row.getByRole('button', { name: 'Run' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: /queued/i })
        .waitFor();
      await row.getByRole('button', { name: 'Stop' }).waitFor();
      await expectAccessible(page, 'project with a scan in flight');
      await shot(page, 'project-scan-in-flight');
      await row.getByRole('button', { name: 'Stop' }).click();
      await page.getByRole('status').filter({ hasText: 'Scan stopped' }).waitFor();
      await row.getByRole('button', { name: 'Run' }).waitFor();
      const scans = (await admin.get(`/api/v1/scan-results?filter[check_id]=${check.body.id}`)).body;
      expect(scans.items.map((r: { state: string }) => r.state)).to.deep.equal(['stopped']);
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });

  it('creates a report, follows its progress and downloads it', async () => {
    await page.getByRole('link', { name: 'Reports' }).click();
    await page.getByRole('heading', { name: 'Reports' }).waitFor();
    await page.getByLabel('Name').fill('Console e2e report');
    await page.getByLabel('Project codes (comma separated, empty: all)').fill(code);
    await page.getByRole('button', { name: 'Create' }).click();
    const link = page.getByRole('link', { name: 'Download Console e2e report as HTML' });
    await link.waitFor({ timeout: 60000 });
    await expectAccessible(page, 'reports');
    await shot(page, 'reports');
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    const file = path.join(ARTIFACTS, 'report.html');
    await download.saveAs(file);
    const html = fs.readFileSync(file, 'utf8');
    expect(html).to.contain(code);
  });

  it('signs out: the API then refuses the browser', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect((await context!.cookies()).map((c) => c.name)).not.to.include('bulwark_session');
    expect(problems).to.deep.equal([]);
  });

  it('shows a failed single sign-on\u2019s reason once: taken out of the address at once, so neither a reload nor the signed-in console shows it again', async () => {
    const base = sys!.api.baseUrl;
    await page.goto(
      `${base}/issues?sso_error=${encodeURIComponent('the provider refused: access_denied')}&filter%5Bseverity%5D=high`,
    );
    await page.getByText('Single sign-on failed: the provider refused: access_denied').waitFor();
    await page.waitForURL((url) => !url.searchParams.has('sso_error'));
    // The rest of the address stays: it is where the reader wanted to go.
    expect(page.url()).to.equal(`${base}/issues?filter%5Bseverity%5D=high`);
    await expectAccessible(page, 'sign in after a failed single sign-on');
    await shot(page, 'sign-in-sso-failed');

    await page.getByLabel('Username').fill('admin');
    await page.getByLabel('Password').fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Issues', level: 1 }).waitFor();
    expect(page.url()).to.equal(`${base}/issues?filter%5Bseverity%5D=high`);
    expect(await page.getByText(/Single sign-on failed/).count()).to.equal(0);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await page.getByText(/Single sign-on failed/).count()).to.equal(0);
  });

  it('asks a user whose password must change for a new one before anything else, naming a bad field', async () => {
    const created = await admin.post('/api/v1/user', {
      username: 'console-newcomer',
      password: 'first-Password-1',
      password_confirmation: 'first-Password-1',
      need_password_change: true,
      roles: ['admin'],
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(200);
    await page.goto(`${sys!.api.baseUrl}/`);
    await page.getByLabel('Username').fill('console-newcomer');
    await page.getByLabel('Password').fill('first-Password-1');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Change your password' }).waitFor();
    await expectAccessible(page, 'password change');
    await page.getByLabel('Current password').fill('first-Password-1');
    await page.getByLabel('New password', { exact: true }).fill('second-Password-2');
    await page.getByLabel('Repeat the new password').fill('not-the-same-2');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('does not match password', { exact: true }).waitFor();
    expect(await page.getByLabel('Repeat the new password').getAttribute('aria-invalid')).to.equal('true');
    await page.getByLabel('Repeat the new password').fill('second-Password-2');
    await page.getByRole('button', { name: 'Save' }).click();
    // The change ends the user's sessions: sign in again with the new password.
    await page.getByText('Password changed. Sign in with the new one.').waitFor();
    await page.getByLabel('Username').fill('console-newcomer');
    await page.getByLabel('Password').fill('second-Password-2');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    expect(
      (await sys!.api.post('/api/v1/auth/login', { username: 'console-newcomer', password: 'second-Password-2' })).body
        .need_password_change,
    ).to.equal(false);
  });
});
