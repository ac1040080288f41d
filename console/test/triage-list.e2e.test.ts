/// <reference lib="dom" />
// The functions handed to page.evaluate run in the browser: DOM types for those.
import fs from 'node:fs';
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { Api, ADMIN_PASSWORD, GitServer, type Json, RunningSystem, uniqueSuffix } from '@bulwark/testkit';
import { semgrepReport } from '../../services/issues/test/issues.suite';
import { browserPool, expectAccessible, requireChromium, Screen, SCREENS, shot, signIn, viewAt } from './browser';
import { ok, startConsoleSystem, uploadReport, waitUntil } from './system';

/** Findings beside the pair: more than the smallest page, of three severities. */
const SPREAD = Array.from({ length: 30 }, (_, i) => ({
  rule: `list.rule.${i}`,
  line: 10 + i,
  code: `call_${i}(x)`,
  severity: (['ERROR', 'WARNING', 'INFO'] as const)[i % 3],
}));
/** Two findings of one CWE on one line, a High and a Low: similar issues, candidates for duplicates. */
const PAIR = [
  { rule: 'pair.high', line: 5, code: 'os.system(cmd)', severity: 'ERROR' as const },
  { rule: 'pair.low', line: 5, code: 'os.system(cmd)', severity: 'INFO' as const },
];
const TOTAL = SPREAD.length + PAIR.length;

describe('console issue list for triage: sort, page size, saved views, export, Back, history (Chromium through Playwright)', function () {
  let sys: (RunningSystem & { alive(): boolean }) | undefined;
  let git: GitServer | undefined;
  let admin: Api;
  let code: string;
  let checkId: string;
  const problems: string[] = [];
  const pool = browserPool(problems);
  const other = { username: `viewer_${uniqueSuffix()}`, password: `Vw-${randomBytes(12).toString('base64url')}-7` };

  const browser = pool.open;
  /** A fresh browser signed in as the administrator. */
  const asAdmin = async () => {
    const page = await browser();
    await signIn(page, sys!.api.baseUrl, 'admin', ADMIN_PASSWORD);
    return page;
  };
  const view = (page: Page, screen: Screen, path: string) => viewAt(page, sys!.api.baseUrl, screen, path);
  const upload = (findings: Parameters<typeof semgrepReport>[0]) =>
    uploadReport(admin, checkId, semgrepReport(findings));
  const issuesOf = async (query = '') =>
    ok(await admin.get(`/api/v1/issues?filter[project_code]=${code}&limit=100${query}`)).items as Json[];
  const byRule = async (rule: string): Promise<Json> => (await issuesOf()).find((i) => i.rule_id === rule);
  const place = (page: Page) => page.locator('.pager p[role="status"]');

  before(async function () {
    this.timeout(240000);
    requireChromium(this);
    const started = await startConsoleSystem();
    ({ sys, admin, git, checkId } = started);
    code = started.env.code;
    await upload([...PAIR, ...SPREAD]);
    await waitUntil(
      async () => (await issuesOf()).length === TOTAL,
      () => 'the uploaded report was not ingested',
    );
    ok(
      await admin.post('/api/v1/user', {
        username: other.username,
        password: other.password,
        password_confirmation: other.password,
        roles: ['admin'],
        need_password_change: false,
      }),
    );
  });

  after(async function () {
    this.timeout(60000);
    await pool.closeAll();
    await git?.close();
    await sys?.stop();
  });

  it('sorts by a column, pages by the chosen size with "1–25 of N" and starts a new page at its top, in both languages at 1400 and 390 px', async function () {
    this.timeout(240000);
    const page = await asAdmin();
    const of = (screen: Screen, a: number, b: number) => `${a}–${b} ${screen.lang === 'ru' ? 'из' : 'of'} ${TOTAL}`;
    for (const screen of SCREENS) {
      const what = `issue list (${screen.lang}, ${screen.width} px)`;
      await view(page, screen, `/issues?filter[project_code]=${code}`);
      await place(page)
        .filter({ hasText: of(screen, 1, TOTAL) })
        .waitFor();
      const severity = page.locator('thead th').nth(1).locator('button');
      await severity.click();
      await page.waitForURL(/sort=-severity/);
      await page.waitForFunction(
        () => document.querySelector('thead th:nth-child(2)')?.getAttribute('aria-sort') === 'descending',
      );
      await page.locator('table.grid tbody tr').first().locator('.badge.sev-high').waitFor();
      await severity.click();
      await page.waitForURL(/sort=severity/);
      await page.locator('table.grid tbody tr').first().locator('.badge.sev-low').waitFor();
      expect(await page.locator('table.grid tbody tr').last().locator('.badge').getAttribute('class')).to.equal(
        'badge sev-high',
      );

      await page.locator('#page-size').selectOption('25');
      await place(page)
        .filter({ hasText: of(screen, 1, 25) })
        .waitFor();
      expect(await page.locator('table.grid tbody tr').count()).to.equal(25);
      await expectAccessible(page, what);
      await shot(page, `issue-list-${screen.lang}-${screen.width}`);

      await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
      expect(await page.evaluate(() => window.scrollY)).to.be.greaterThan(0);
      await page.locator('.pager nav button').last().click();
      await place(page)
        .filter({ hasText: of(screen, 26, TOTAL) })
        .waitFor();
      expect(await page.evaluate(() => window.scrollY), 'a new page starts at its top').to.equal(0);
      expect(await page.locator('table.grid tbody tr').count()).to.equal(TOTAL - 25);
    }
  });

  it('keeps the view (filters, sort, page) on "Back to issues" and on the browser\u2019s Back', async function () {
    this.timeout(120000);
    const page = await asAdmin();
    await view(page, SCREENS[0], `/issues?filter[project_code]=${code}&sort=status&limit=25`);
    await page.getByRole('button', { name: 'Next page' }).click();
    await place(page)
      .filter({ hasText: `26–${TOTAL} of ${TOTAL}` })
      .waitFor();
    const listUrl = page.url();
    await page.locator('table.grid tbody tr td a').first().click();
    await page.getByRole('link', { name: '← Back to issues' }).click();
    await place(page)
      .filter({ hasText: `26–${TOTAL} of ${TOTAL}` })
      .waitFor();
    expect(page.url()).to.equal(listUrl);
    await page.locator('table.grid tbody tr td a').first().click();
    await page.locator('#history-title').waitFor();
    await page.goBack();
    await place(page)
      .filter({ hasText: `26–${TOTAL} of ${TOTAL}` })
      .waitFor();
    expect(page.url()).to.equal(listUrl);
  });

  it('saves a view for its user only, and opens it', async function () {
    this.timeout(120000);
    const page = await asAdmin();
    await view(
      page,
      SCREENS[0],
      `/issues?filter[project_code]=${code}&filter[severity]=high&sort=-first_detected_at&limit=25`,
    );
    await page.getByLabel('Name of this view').fill('Highs of the project');
    await page.getByRole('button', { name: 'Save view' }).click();
    await page.getByText('View “Highs of the project” saved').waitFor();
    await expectAccessible(page, 'saved views');
    await view(page, SCREENS[0], '/issues');
    await page.getByRole('link', { name: 'Highs of the project' }).click();
    const highs = (await issuesOf('&filter[severity]=high')).length;
    await place(page)
      .filter({ hasText: `1–${highs} of ${highs}` })
      .waitFor();
    expect(new URL(page.url()).searchParams.getAll('filter[severity]')).to.deep.equal(['high']);

    const second = await browser();
    await signIn(second, sys!.api.baseUrl, other.username, other.password);
    await view(second, SCREENS[1], '/issues');
    await second.getByText('Сохранённых представлений пока нет.').waitFor();
    expect(await second.getByRole('link', { name: 'Highs of the project' }).count()).to.equal(0);
  });

  it('exports the current view as CSV and SARIF with its filters', async function () {
    this.timeout(120000);
    const page = await asAdmin();
    await view(page, SCREENS[3], `/issues?filter[project_code]=${code}&filter[severity]=medium`);
    const mediums = (await issuesOf('&filter[severity]=medium')).map((i) => i.id).sort();
    await page.locator('#export-format').selectOption('csv');
    const [csv] = await Promise.all([page.waitForEvent('download'), page.locator('.export a').click()]);
    expect(csv.suggestedFilename()).to.equal('issues.csv');
    const rows = fs
      .readFileSync(await csv.path(), 'utf8')
      .trimEnd()
      .split('\r\n');
    expect(rows[0]).to.match(/^id,project_code,severity,/);
    expect(
      rows
        .slice(1)
        .map((r) => r.split(',')[0])
        .sort(),
    ).to.deep.equal(mediums);
    await page.locator('#export-format').selectOption('sarif');
    const [sarif] = await Promise.all([page.waitForEvent('download'), page.locator('.export a').click()]);
    const log = JSON.parse(fs.readFileSync(await sarif.path(), 'utf8'));
    expect(log.runs.flatMap((r: Json) => r.results)).to.have.length(mediums.length);
    await expectAccessible(page, 'export (ru, 390 px)');
  });

  it('links duplicates the way the reader chooses, the more severe staying the original, and counts originals only', async function () {
    this.timeout(120000);
    const page = await asAdmin();
    const [high, low] = [await byRule('pair.high'), await byRule('pair.low')];
    await view(page, SCREENS[0], `/issues/${low.id}`);
    await page.getByRole('button', { name: `Link ${high.title} and this issue as duplicates` }).click();
    const form = page.getByRole('form', { name: `Link ${high.title} and this issue as duplicates` });
    expect(await form.getByLabel(`${high.title} (High)`).isChecked(), 'the High stays the original').to.equal(true);
    await expectAccessible(page, 'duplicate link');
    await form.getByRole('button', { name: 'Link as duplicates' }).click();
    await page.getByText(`Linked: ${low.title} is now the duplicate of ${high.title}.`).waitFor();
    expect(ok(await admin.get(`/api/v1/issue/${low.id}`)).duplicate_of).to.equal(high.id);
    expect(ok(await admin.get(`/api/v1/issue/${high.id}`)).duplicate_of).to.equal(null);
    await page.getByRole('link', { name: high.title }).first().waitFor();

    // The list counts originals only, says so, and counts the duplicate when asked to.
    await view(page, SCREENS[0], `/issues?filter[project_code]=${code}`);
    await place(page)
      .filter({ hasText: `1–${TOTAL - 1} of ${TOTAL - 1}` })
      .waitFor();
    await page.getByText('Duplicates are not separate issues').waitFor();
    await page.getByRole('button', { name: 'Show duplicates too' }).click();
    await place(page)
      .filter({ hasText: `1–${TOTAL} of ${TOTAL}` })
      .waitFor();
    // The dashboard's counts follow the same rule: the High tile counts the original only.
    await view(page, SCREENS[1], '/');
    await page.getByText('Дубликаты не считаются отдельными уязвимостями', { exact: false }).waitFor();
  });

  it('shows the history with status names, fields and server comments in the reader\u2019s language, a scan by its date and check', async function () {
    this.timeout(180000);
    const page = await asAdmin();
    const gone = await byRule('list.rule.0');
    // A second report without the first finding: the scan marks its issue Fixed.
    await upload([...PAIR, ...SPREAD.slice(1)]);
    await waitUntil(
      async () => ok(await admin.get(`/api/v1/issue/${gone.id}`)).status_id === 4,
      () => 'the second report did not fix the issue',
    );
    for (const screen of SCREENS) {
      const ru = screen.lang === 'ru';
      await view(page, screen, `/issues/${gone.id}`);
      // The scan actor once its date and check are read: "scan of <date> (<project> · <check>)".
      const row = page.locator('section[aria-labelledby="history-title"] tbody tr', {
        hasText: ru ? /сканирование от \d[^()]*\(.+ · .+\)/ : /scan of \d[^()]*\(.+ · .+\)/,
      });
      await row.waitFor();
      const cells = await row.locator('td').allTextContents();
      expect(cells[2]).to.equal(ru ? 'Статус' : 'Status');
      expect(cells[3]).to.equal(ru ? 'Новая' : 'New');
      expect(cells[4]).to.equal(ru ? 'Исправлена' : 'Fixed');
      // The server's comment, then the line saying why the ingestion changed it (issue #30, point 5).
      const why = (await row.locator('td .muted').textContent()) ?? '';
      expect(cells[5]).to.equal(
        (ru
          ? 'Не найдена полным сканированием проверки, которая её нашла'
          : 'Not found by a complete scan of the check that found it') + why,
      );
      // The reason names the scan as the actor cell does, by its date and check, never by an id.
      const scan = cells[1].replace(ru ? /^сканирование от / : /^scan of /, '');
      expect(scan).to.match(/^\d.* \(.+ · .+\)$/);
      expect(why).to.equal(
        ru ? `Причина: отсутствует в сканировании от ${scan}` : `Why: absent from the scan of ${scan}`,
      );
      expect(why + cells[1]).not.to.match(/[0-9a-f]{8}-[0-9a-f]{4}-/);

      await page.locator('#detail-status').selectOption('8');
      await page.locator('form:has(#detail-status) button[type="submit"]').click();
      await page.getByText(ru ? 'Статус изменён.' : 'Status changed.').waitFor();
      await expectAccessible(page, `issue history (${screen.lang}, ${screen.width} px)`);
      await shot(page, `issue-history-${screen.lang}-${screen.width}`);
      ok(await admin.put('/api/v1/issues/status', { ids: [gone.id], status_id: 4 }));
    }
  });

  it('met no CSP refusal or script error', () => {
    expect(problems).to.deep.equal([]);
  });
});
