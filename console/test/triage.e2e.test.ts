/// <reference lib="dom" />
// The functions handed to page.evaluate run in the browser: DOM types for those.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import {
  Api,
  ADMIN_PASSWORD,
  GitServer,
  type JiraContractServer,
  type Json,
  RunningSystem,
  startJiraContractServer,
  uniqueSuffix,
} from '@bulwark/testkit';
import { semgrepReport } from '../../services/issues/test/issues.suite';
import { browserPool, expectAccessible, requireChromium, Screen, SCREENS, shot, signIn, viewAt } from './browser';
import { ok, startConsoleSystem, uploadReport, waitUntil } from './system';

describe('console triage end to end: assign, analyse, comment, accept risk (Chromium through Playwright)', function () {
  let sys: (RunningSystem & { alive(): boolean }) | undefined;
  let git: GitServer | undefined;
  let jira: JiraContractServer | undefined;
  let admin: Api;
  let code: string;
  let issueIds: string[] = [];
  const approver = {
    username: `approver_${uniqueSuffix()}`,
    password: `Ap-${randomBytes(12).toString('base64url')}-7`,
  };
  let approverId: string;
  const problems: string[] = [];
  const pool = browserPool(problems);

  const browser = pool.open;
  const view = (page: Page, screen: Screen, path: string) => viewAt(page, sys!.api.baseUrl, screen, path);

  before(async function () {
    this.timeout(240000);
    requireChromium(this);
    let checkId: string;
    ({
      sys,
      admin,
      git,
      checkId,
      env: { code },
    } = await startConsoleSystem());
    jira = await startJiraContractServer({
      projects: ['SEC'],
      issueTypes: ['Task'],
      email: 'triage@example.com',
      apiToken: 'triage-token',
    });
    ok(
      await admin.post('/api/v1/tracker', {
        name: 'Security Jira',
        type: 'jira',
        url: jira.url,
        credentials: { username: 'triage@example.com', password: 'triage-token' },
        sync_enabled: false,
        projects: [{ project_code: code, tracker_project: 'SEC', issue_type: 'Task' }],
      }),
    );
    const findings = SCREENS.map((_, i) => ({
      rule: `triage.rule.${i}`,
      line: 3 + i,
      code: `call_${i}(x)`,
      severity: 'ERROR' as const,
    }));
    await uploadReport(admin, checkId, semgrepReport(findings));
    await waitUntil(
      async () => {
        const issues = ok(await admin.get(`/api/v1/issues?filter[project_code]=${code}&sort=severity`)).items as Json[];
        issueIds = issues.map((i) => i.id);
        return issueIds.length === SCREENS.length;
      },
      () => 'the uploaded report was not ingested',
    );
    approverId = ok(
      await admin.post('/api/v1/user', {
        username: approver.username,
        password: approver.password,
        password_confirmation: approver.password,
        roles: ['admin'],
        need_password_change: false,
      }),
    ).id;
  });

  after(async function () {
    this.timeout(60000);
    await pool.closeAll();
    await git?.close();
    await jira?.close();
    await sys?.stop();
  });

  it('assigns, analyses, comments and asks for a risk acceptance on the issue page, in both languages at 1400 and 390 px', async function () {
    this.timeout(180000);
    const page = await browser();
    await signIn(page, sys!.api.baseUrl, 'admin', ADMIN_PASSWORD);
    for (const [n, screen] of SCREENS.entries()) {
      const id = issueIds[n];
      const what = `issue triage (${screen.lang}, ${screen.width} px)`;
      await view(page, screen, `/issues/${id}`);
      await page.locator('#triage-title').waitFor();
      expect(await page.locator('#triage-title').textContent()).to.equal(screen.lang === 'ru' ? 'Разбор' : 'Triage');

      const assign = page.locator('form[aria-labelledby="assign-title"]');
      await page.locator('#assignee-find').fill(approver.username);
      await page.locator('#assignee-match option').first().waitFor({ state: 'attached' });
      await assign.locator('button[type="submit"]').click();
      await assign.locator('p[role="status"]', { hasText: approver.username }).waitFor();

      const analysis = page.locator('form[aria-labelledby="analysis-title"]');
      await page.locator('#analysis-state').selectOption('not_affected');
      await page.locator('#analysis-justification').selectOption('code_not_reachable');
      await analysis.locator('fieldset input[type="checkbox"]').nth(1).check();
      await page.locator('#analysis-detail').fill('never called with user input');
      await analysis.locator('button[type="submit"]').click();
      await analysis.locator('p[role="status"]').waitFor();

      const hostile = `<b id="injected">bold</b> ${n}`;
      await page.locator('#comment-text').fill(hostile);
      await page.locator('section[aria-labelledby="comments-title"] button[type="submit"]').click();
      await page.locator('ol.comments li', { hasText: hostile }).waitFor();
      expect(await page.locator('#injected').count(), 'a comment is text, never HTML').to.equal(0);

      const accept = page.locator('form[aria-labelledby="accept-title"]');
      await page.locator('#accept-reason').fill(`behind the gateway ${n}`);
      await accept.locator('input[type="checkbox"]').check();
      await page.locator('#approver-find').fill(approver.username);
      await page.locator('#approver-match option').first().waitFor({ state: 'attached' });
      await accept.locator('button[type="submit"]').click();
      await page
        .locator('section[aria-labelledby="acceptance-title"] li', { hasText: `behind the gateway ${n}` })
        .waitFor();

      await expectAccessible(page, what);
      await shot(page, `triage-${screen.lang}-${screen.width}`);

      const issue = ok(await admin.get(`/api/v1/issue/${id}`));
      expect(issue).to.include({ assignee: approver.username, assignee_type: 'user', assignee_id: approverId });
      expect(issue.analysis).to.deep.include({
        state: 'not_affected',
        justification: 'code_not_reachable',
        response: ['will_not_fix'],
      });
      const [comment] = ok(await admin.get(`/api/v1/issue/${id}/comments`)).items;
      expect(comment.message).to.equal(hostile);
      const [acceptance] = ok(await admin.get(`/api/v1/risk-acceptances?filter[issue]=${id}`)).items;
      expect(acceptance).to.include({ state: 'pending', approver_id: approverId });
    }
  });

  it('shows the approver what waits for them, who approves on the issue page; the issues become Risk accepted', async function () {
    this.timeout(120000);
    const page = await browser();
    await signIn(page, sys!.api.baseUrl, approver.username, approver.password);
    for (const [n, screen] of SCREENS.entries()) {
      await view(page, screen, '/issues');
      const waiting = page.locator('section[aria-labelledby="approvals-title"] li');
      await waiting.first().waitFor();
      expect(await waiting.count()).to.equal(SCREENS.length - n);
      await expectAccessible(page, `pending approvals (${screen.lang}, ${screen.width} px)`);
      await view(page, screen, `/issues/${issueIds[n]}`);
      const item = page.locator('section[aria-labelledby="acceptance-title"] li', {
        hasText: `behind the gateway ${n}`,
      });
      await item.locator('input').fill('agreed');
      await item.locator('button.primary').click();
      await page
        .locator('section[aria-labelledby="acceptance-title"] li strong', {
          hasText: screen.lang === 'ru' ? 'Принято' : 'Accepted',
        })
        .waitFor();
      await expectAccessible(page, `approved (${screen.lang}, ${screen.width} px)`);
      expect(ok(await admin.get(`/api/v1/issue/${issueIds[n]}`)).status_id).to.equal(6);
    }
  });

  it('revokes an accepted acceptance on the issue page: the issue reopens, and the item says who revoked it and why', async function () {
    this.timeout(120000);
    const page = await browser();
    await signIn(page, sys!.api.baseUrl, approver.username, approver.password);
    for (const n of [0, 3]) {
      const screen = SCREENS[n];
      await view(page, screen, `/issues/${issueIds[n]}`);
      const item = page.locator('section[aria-labelledby="acceptance-title"] li', {
        hasText: `behind the gateway ${n}`,
      });
      await item.locator('input').fill(`the gateway rule was removed ${n}`);
      await item.locator('button', { hasText: screen.lang === 'ru' ? 'Отозвать' : 'Revoke' }).click();
      await item.locator('strong', { hasText: screen.lang === 'ru' ? 'Отозвано' : 'Revoked' }).waitFor();
      await item.locator('p', { hasText: `${approver.username}: the gateway rule was removed ${n}` }).waitFor();
      expect(await item.locator('button').count(), 'nothing left to decide or revoke').to.equal(0);
      await expectAccessible(page, `revoked (${screen.lang}, ${screen.width} px)`);
      expect(ok(await admin.get(`/api/v1/issue/${issueIds[n]}`)).status_id).to.equal(8);
    }
  });

  it('offers the assigned-to-me and unassigned views on the list, and assigns the selected issues at once', async function () {
    this.timeout(120000);
    const page = await browser();
    await signIn(page, sys!.api.baseUrl, approver.username, approver.password);
    for (const screen of [SCREENS[0], SCREENS[3]]) {
      await view(page, screen, `/issues?filter[project_code]=${code}`);
      await page.locator('nav.inline a').first().click();
      await page.waitForURL(/filter%5Bassignee%5D=me|filter\[assignee\]=me/);
      await page
        .locator('tbody tr')
        .nth(SCREENS.length - 1)
        .waitFor();
      expect(await page.locator('tbody tr').count(), 'every issue is the approver’s').to.equal(SCREENS.length);
      await expectAccessible(page, `assigned to me (${screen.lang}, ${screen.width} px)`);
    }
    ok(await admin.put('/api/v1/issues/assignee', { ids: issueIds, assignee: null }));
    await view(page, SCREENS[0], `/issues?filter[project_code]=${code}&filter[assignee]=none`);
    await page
      .locator('tbody tr')
      .nth(SCREENS.length - 1)
      .waitFor();
    await page.getByLabel('Select every issue on this page').check();
    await page.locator('#bulk-assignee-find').fill(approver.username);
    await page.locator('#bulk-assignee-match option').first().waitFor({ state: 'attached' });
    await page
      .getByRole('form', { name: 'Assign the selected issues' })
      .getByRole('button', { name: 'Assign' })
      .click();
    await page.getByText(`Assigned: ${SCREENS.length} changed, 0 unchanged`).waitFor();
    await expectAccessible(page, 'bulk assign');
    for (const id of issueIds) expect(ok(await admin.get(`/api/v1/issue/${id}`)).assignee_id).to.equal(approverId);
  });

  it('creates tracker tickets for a selection and from the issue page, and shows their state on the issue', async function () {
    this.timeout(120000);
    const page = await browser();
    await signIn(page, sys!.api.baseUrl, 'admin', ADMIN_PASSWORD);
    await view(page, SCREENS[3], `/issues?filter[project_code]=${code}`);
    await page
      .locator('tbody tr')
      .nth(SCREENS.length - 1)
      .waitFor();
    await page.locator('tbody input[type="checkbox"]').nth(0).check();
    await page.locator('tbody input[type="checkbox"]').nth(1).check();
    const bulk = page.locator('form[aria-label="Задачи для выбранных уязвимостей"]');
    await bulk.locator('#bulk-group').selectOption('issue');
    await bulk.locator('button[type="submit"]').click();
    await bulk.locator('p[role="status"]', { hasText: 'связано уязвимостей 2' }).waitFor();
    await expectAccessible(page, 'bulk tickets (ru, 390 px)');
    const all = ok(await admin.get(`/api/v1/issues?filter[project_code]=${code}&limit=10`)).items as Json[];
    expect(all.filter((i) => i.ticket)).to.have.length(2);

    const without = all.find((i) => !i.ticket)?.id as string;
    await view(page, SCREENS[0], `/issues/${without}`);
    const section = page.locator('section[aria-labelledby="ticket-title"]');
    await section.getByRole('button', { name: 'Create ticket' }).click();
    await section.getByRole('link', { name: /^SEC-\d+$/ }).waitFor();
    const ticket = ok(await admin.get(`/api/v1/issue/${without}`)).ticket;
    expect(ticket).to.include({ tracker_type: 'jira' });
    expect(await section.getByRole('link', { name: ticket.key }).getAttribute('href')).to.equal(ticket.url);
    await expectAccessible(page, 'issue ticket');

    await section.getByRole('button', { name: 'Unlink ticket' }).click();
    await section.getByText('No ticket is linked.').waitFor();
    expect(ok(await admin.get(`/api/v1/issue/${without}`)).ticket).to.equal(null);
  });

  it('met no CSP refusal or script error', () => {
    expect(problems).to.deep.equal([]);
  });
});
