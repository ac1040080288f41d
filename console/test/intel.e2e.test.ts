/// <reference lib="dom" />
// The functions handed to page.evaluate run in the browser: DOM types for those.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { ADMIN_PASSWORD, type Api, type Json, uniqueSuffix } from '@bulwark/testkit';
import { epssCsv, kevJson } from '../../services/issues/test/feed-server';
import {
  browserPool,
  expectAccessible,
  expectNoEnglish,
  readmeShot,
  requireChromium,
  shot,
  signIn,
  viewAt,
} from './browser';
import {
  type ConsoleSystem,
  issuesDatabase,
  ok,
  startConsoleSystem,
  stopConsoleSystem,
  uploadReport,
  waitUntil,
} from './system';

interface Finding {
  title: string;
  severity: 'Critical' | 'High' | 'Medium' | 'Low';
  cve: string;
  /** The scanner's own EPSS, where the feed has none. */
  epss?: number;
}

/** A generic findings report: one vulnerable library per finding. */
const report = (findings: Finding[]) =>
  JSON.stringify({
    findings: findings.map((f) => ({
      title: f.title,
      description: 'A vulnerable version',
      severity: f.severity,
      cve: f.cve,
      component_name: `lib-${f.cve.toLowerCase()}`,
      component_version: '1.0.0',
      ...(f.epss === undefined ? {} : { epss_score: f.epss }),
    })),
  });

/**
 * Exploit intelligence, SLAs, Fix first and the dry run in the console (issue #30, point 6): the
 * feeds imported and an SLA policy saved over the API, then what the list, the issue page, Fix first
 * and the upload form show of them.
 */
describe('console exploit intelligence, SLAs, Fix first and the dry run (Chromium through Playwright)', function () {
  let system: ConsoleSystem | undefined;
  let admin: Api;
  let code: string;
  let checkId: string;
  const problems: string[] = [];
  const pool = browserPool(problems);
  const run = Math.floor(Math.random() * 90000) + 10000;
  const cve = (n: number) => `CVE-2034-${run}${n}`;
  /** In KEV and EPSS (Critical: its SLA of 0 days is breached); EPSS from the feed; the scanner's EPSS only; no intel; set False positive. */
  const KEV: Finding = { title: `Exploited ${run}`, severity: 'Critical', cve: cve(1) };
  const EPSS: Finding = { title: `Likely ${run}`, severity: 'High', cve: cve(2) };
  const SCANNER: Finding = { title: `Scanner scored ${run}`, severity: 'Medium', cve: cve(3), epss: 0.02 };
  const QUIET: Finding = { title: `Quiet ${run}`, severity: 'Low', cve: cve(4) };
  const DISMISSED: Finding = { title: `Dismissed ${run}`, severity: 'Critical', cve: cve(5) };
  const FIRST = [KEV, EPSS, SCANNER, QUIET, DISMISSED];
  const KEV_DUE = '2026-12-18';

  const base = () => system!.sys.api.baseUrl;
  const issuesOf = async (query = '') =>
    ok(await admin.get(`/api/v1/issues?filter[project_code]=${code}&limit=100${query}`)).items as Json[];
  const byTitle = async (title: string): Promise<Json> => (await issuesOf()).find((i) => i.title === title);
  const asAdmin = async () => {
    const page = await pool.open();
    await signIn(page, base(), 'admin', ADMIN_PASSWORD);
    return page;
  };
  const row = (page: Page, title: string) =>
    page.locator('table.grid tbody tr').filter({ has: page.getByRole('link', { name: title, exact: true }) });
  const titles = (page: Page) => page.locator('table.grid tbody tr td:nth-child(4) a').allTextContents();

  before(async function () {
    this.timeout(240000);
    requireChromium(this);
    system = await startConsoleSystem();
    ({ admin, checkId } = system);
    code = system.env.code;
    ok(
      await admin.post('/api/v1/sla-policy', {
        name: `sla ${uniqueSuffix()}`,
        project_tags: [],
        project_codes: [code],
        days: { critical: 0, high: 3650, medium: 3650, low: 3650, info: null },
        known_exploited_days: null,
      }),
    );
    await uploadReport(admin, checkId, report(FIRST));
    await waitUntil(
      async () => (await issuesOf()).length === FIRST.length,
      () => 'the uploaded report was not ingested',
    );
    ok(
      await admin.withHeaders({ 'content-type': 'text/csv' }).request(
        'POST',
        '/api/v1/intel/import?feed=epss',
        undefined,
        epssCsv([
          { cve: KEV.cve, epss: 0.91234, percentile: 0.99 },
          { cve: EPSS.cve, epss: 0.45, percentile: 0.9 },
        ]),
      ),
    );
    ok(
      await admin.withHeaders({ 'content-type': 'application/json' }).request(
        'POST',
        '/api/v1/intel/import?feed=kev',
        undefined,
        kevJson([
          { cve: KEV.cve, dueDate: KEV_DUE },
          { cve: DISMISSED.cve, dueDate: KEV_DUE },
        ]),
      ),
    );
    const dismissed = await byTitle(DISMISSED.title);
    const changed = ok(await admin.put('/api/v1/issues/status', { ids: [dismissed.id], status_id: 5 }));
    expect(changed.results[0].status).to.equal('changed');
    expect(await byTitle(KEV.title)).to.include({
      known_exploited: true,
      kev_due_date: KEV_DUE,
      sla_state: 'breached',
    });
    expect(await byTitle(EPSS.title)).to.include({ epss: 0.45, sla_state: 'on_track' });
  });

  after(async function () {
    this.timeout(60000);
    await stopConsoleSystem(system, pool.closeAll);
  });

  it('shows risk, KEV with its due date, EPSS with its percentile and the SLA state on the list, and filters by SLA state', async function () {
    this.timeout(120000);
    const page = await asAdmin();
    await page.goto(`${base()}/issues?filter[project_code]=${code}`);
    const kev = row(page, KEV.title);
    await kev.getByText('In CISA’s Known Exploited Vulnerabilities catalog').waitFor({ state: 'attached' });
    await kev.getByText('KEV due 18 Dec 2026').waitFor();
    await kev.getByText('EPSS 91.23%').waitFor();
    await kev.getByText('percentile 99%').waitFor();
    expect(await kev.locator('.badge.sla-breached').textContent()).to.equal('Breached');
    const epss = row(page, EPSS.title);
    await epss.getByText('EPSS 45%').waitFor();
    expect(await epss.locator('.badge.sla-on_track').textContent()).to.equal('On track');
    expect(await epss.locator('.badge.kev').count()).to.equal(0);
    // The scanner's EPSS stays where the feed has none; an issue with neither shows a dash.
    await row(page, SCANNER.title).getByText('EPSS 2%').waitFor();
    expect(await row(page, QUIET.title).locator('td:nth-child(5)').textContent()).to.equal('—');
    const riskOf = async (title: string) => Number(await row(page, title).locator('td.risk-score').textContent());
    expect(await riskOf(KEV.title)).to.equal((await byTitle(KEV.title)).risk_score);
    await expectAccessible(page, 'issue list with exploitation and SLA');
    await shot(page, 'intel-issue-list');

    await page.locator('#filter-key').selectOption('filter[sla_state]');
    await page.locator('#filter-value').selectOption('breached');
    await page.getByRole('form', { name: 'Add a filter' }).getByRole('button', { name: 'Add' }).click();
    await page.waitForURL(/filter%5Bsla_state%5D=breached|filter\[sla_state\]=breached/);
    await page.getByRole('list', { name: 'Filters' }).getByText('SLA state: Breached').waitFor();
    await page.waitForFunction(() => document.querySelectorAll('table.grid tbody tr').length === 1);
    expect(await titles(page)).to.deep.equal([KEV.title]);
  });

  it('shows the risk factors, EPSS, KEV and the SLA on the issue page, in both languages', async function () {
    this.timeout(120000);
    const page = await asAdmin();
    const issue = await byTitle(KEV.title);
    for (const lang of ['en', 'ru'] as const) {
      await viewAt(page, base(), { lang, width: 390, height: 844 }, `/issues/${issue.id}`);
      const section = page.getByRole('region', { name: lang === 'en' ? 'Exploitation and SLA' : 'Эксплуатация и SLA' });
      await section.waitFor();
      expect(await section.locator('.risk-score').textContent()).to.equal(String(issue.risk_score));
      expect(await section.locator('.badge.sla-breached').textContent()).to.equal(
        lang === 'en' ? 'Breached' : 'Просрочено',
      );
      if (lang === 'en') {
        await section
          .getByText('impact 1 (severity) × likelihood 1 (KEV) × 0.8 (a medium-criticality project)')
          .waitFor();
        await section.getByText('91.23% · percentile 99%').waitFor();
        await section.getByText('18 Dec 2026').waitFor();
      } else await expectNoEnglish(page, 'issue page with exploitation and SLA');
      await expectAccessible(page, `issue page with exploitation and SLA (${lang})`);
      await shot(page, `intel-issue-${lang}-390`);
    }
  });

  it('lists the open issues riskiest first on Fix first, reached from the navigation, with the list’s filters', async function () {
    this.timeout(120000);
    const page = await asAdmin();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Fix first' }).click();
    await page.getByRole('heading', { name: 'Fix first', level: 1 }).waitFor();
    await page.waitForURL(/\/fix-first$/);
    expect(await page.locator('#sort').inputValue()).to.equal('-risk_score');
    const open = (
      await issuesOf('&sort=-risk_score&filter[status]=1&filter[status]=2&filter[status]=3&filter[status]=8')
    ).map((i) => i.title as string);
    expect(open).to.not.include(DISMISSED.title);
    expect(open[0]).to.equal(KEV.title);
    await page.waitForFunction((n) => document.querySelectorAll('table.grid tbody tr').length === n, open.length);
    expect(await titles(page)).to.deep.equal(open);
    const risks = (await page.locator('table.grid tbody td.risk-score').allTextContents()).map(Number);
    expect(risks).to.deep.equal([...risks].sort((a, b) => b - a));
    expect(risks[0]).to.be.greaterThan(risks[risks.length - 1]);
    // The export takes the view as shown: the open statuses, not the dismissed issue's.
    const exported = new URL(
      (await page.getByRole('group', { name: 'Export this view' }).getByRole('link').getAttribute('href')) ?? '',
      base(),
    );
    expect(exported.searchParams.getAll('filter[status]')).to.deep.equal(['1', '2', '3', '8']);
    await expectAccessible(page, 'Fix first');
    await shot(page, 'intel-fix-first');

    // The list's filters work there too, and keep the view on Fix first.
    await page.locator('#filter-key').selectOption('filter[severity]');
    await page.locator('#filter-value').selectOption('high');
    await page.getByRole('form', { name: 'Add a filter' }).getByRole('button', { name: 'Add' }).click();
    await page.waitForURL(/\/fix-first\?filter%5Bseverity%5D=high|\/fix-first\?filter\[severity\]=high/);
    await page.waitForFunction(() => document.querySelectorAll('table.grid tbody tr').length === 1);
    expect(await titles(page)).to.deep.equal([EPSS.title]);

    // A status filter replaces the open statuses: the dismissed issue shows when asked for.
    await page.goto(`${base()}/fix-first?filter[status]=5`);
    await page.waitForFunction(() => document.querySelectorAll('table.grid tbody tr').length === 1);
    expect(await titles(page)).to.deep.equal([DISMISSED.title]);
  });

  it('shows Due soon once less than a fifth of an issue’s SLA time is left, on the list and the issue page, in both languages', async function () {
    this.timeout(120000);
    // An issue's SLA time runs from its first detection, which the issues service dates at ingestion
    // (a report's detectedAt is no run time for every format: a CycloneDX one gives the CVE's
    // publication): Quiet is made first detected 3,000 of its 3,650 days ago in the database, and
    // PostgreSQL's own SLA trigger gives it its due date, 650 days ahead.
    const db = issuesDatabase(system!);
    try {
      const quiet = await byTitle(QUIET.title);
      await db('issue_records')
        .where('id', quiet.id)
        .update({ first_detected_at: db.raw("now() - interval '3000 days'") });
    } finally {
      await db.destroy();
    }
    const aged = await byTitle(QUIET.title);
    expect(aged.sla_state).to.equal('due_soon');
    expect(
      ok(await admin.get(`/api/v1/issues?filter[project_code]=${code}&filter[sla_state]=due_soon`)).items.map(
        (i: Json) => i.title,
      ),
    ).to.deep.equal([QUIET.title]);

    const page = await asAdmin();
    await page.goto(`${base()}/issues?filter[project_code]=${code}`);
    expect(await row(page, QUIET.title).locator('.badge.sla-due_soon').textContent()).to.equal('Due soon');
    expect(await row(page, EPSS.title).locator('.badge.sla-on_track').textContent()).to.equal('On track');
    await page.locator('#filter-key').selectOption('filter[sla_state]');
    await page.locator('#filter-value').selectOption('due_soon');
    await page.getByRole('form', { name: 'Add a filter' }).getByRole('button', { name: 'Add' }).click();
    await page.getByRole('list', { name: 'Filters' }).getByText('SLA state: Due soon').waitFor();
    await page.waitForFunction(() => document.querySelectorAll('table.grid tbody tr').length === 1);
    expect(await titles(page)).to.deep.equal([QUIET.title]);
    await expectAccessible(page, 'issue list with an issue due soon');

    for (const lang of ['en', 'ru'] as const) {
      await viewAt(page, base(), { lang, width: 390, height: 844 }, `/issues/${aged.id}`);
      const section = page.getByRole('region', { name: lang === 'en' ? 'Exploitation and SLA' : 'Эксплуатация и SLA' });
      await section.waitFor();
      expect(await section.locator('.badge.sla-due_soon').textContent()).to.equal(
        lang === 'en' ? 'Due soon' : 'Срок близок',
      );
      if (lang === 'ru') await expectNoEnglish(page, 'issue page with an issue due soon');
      await expectAccessible(page, `issue page with an issue due soon (${lang})`);
    }

    // The README's screenshots: Fix first's rows in all three SLA states, and an issue page's exploitation and SLA.
    await viewAt(page, base(), { lang: 'en', width: 1400, height: 900 }, `/fix-first?filter[project_code]=${code}`);
    await row(page, QUIET.title).locator('.badge.sla-due_soon').waitFor();
    await readmeShot(page.locator('table.grid'), 'console-fix-first');
    await viewAt(page, base(), { lang: 'en', width: 1400, height: 900 }, `/issues/${(await byTitle(KEV.title)).id}`);
    const exploitation = page.getByRole('region', { name: 'Exploitation and SLA' });
    await exploitation.getByText('91.23% · percentile 99%').waitFor();
    await readmeShot(exploitation, 'console-issue-sla');
  });

  it('shows a dry run’s counts and examples before the upload, writing nothing, then uploads for real', async function () {
    this.timeout(180000);
    const page = await asAdmin();
    // Again with two of them (the rest would be fixed) and one finding never seen.
    const FRESH: Finding = { title: `Fresh ${run}`, severity: 'High', cve: cve(6) };
    const next = report([KEV, EPSS, FRESH]);
    const before = (await issuesOf()).length;
    const expected = ok(
      await admin
        .withHeaders({ 'content-type': 'application/json' })
        .request('POST', `/api/v1/check/${checkId}/results?dry_run=true`, undefined, next),
    );
    expect(expected.counts).to.include({ new: 1, unchanged: 2 });

    await page.goto(`${base()}/projects/${code}`);
    await page
      .getByRole('button', { name: /^Upload report/ })
      .first()
      .click();
    const form = page.getByRole('form', { name: /^Upload a report to / });
    await form.getByLabel('Drop a report here or choose a file').setInputFiles({
      name: 'next.json',
      mimeType: 'application/json',
      buffer: Buffer.from(next),
    });
    await form.getByRole('button', { name: 'Dry run', exact: true }).click();
    const outcome = form
      .getByRole('status')
      .filter({ has: page.getByRole('heading', { name: 'What this upload would do' }) });
    await outcome.getByText('Nothing was written: 3 findings compared with the issues they would meet.').waitFor();
    for (const kind of ['new', 'fixed', 'reopened', 'suppressed', 'duplicate', 'unchanged'])
      expect(await outcome.locator(`.dry-run-counts li[data-kind="${kind}"] strong`).textContent(), kind).to.equal(
        String(expected.counts[kind]),
      );
    const fresh = outcome.locator('section[data-kind="new"]');
    await fresh.getByText(FRESH.title).waitFor();
    await fresh.getByText(/^No issue matched on /).waitFor();
    const unchanged = outcome.locator('section[data-kind="unchanged"]');
    await unchanged.getByRole('link', { name: KEV.title }).waitFor();
    await unchanged
      .getByText(/^Status stays; matched by the default deduplication rule on /)
      .first()
      .waitFor();
    await expectAccessible(page, 'upload form with a dry run');
    await shot(page, 'intel-dry-run');
    await readmeShot(form, 'console-dry-run');
    expect((await issuesOf()).length, 'the dry run wrote no issue').to.equal(before);

    await form.getByRole('button', { name: 'Upload', exact: true }).click();
    await form.getByRole('status').getByText('Uploaded: 3 findings, format generic-json').waitFor();
    await waitUntil(
      async () => (await issuesOf()).some((i) => i.title === FRESH.title),
      () => 'the upload after the dry run was not ingested',
    );
  });

  it('met no CSP refusal or script error', () => {
    expect(problems).to.deep.equal([]);
  });
});
