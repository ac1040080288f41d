/// <reference lib="dom" />
// Every page of the console on a phone, in both languages: nothing scrolls sideways, nothing of the
// English catalogue shows in Russian, axe finds nothing. The components pages are driven here too.
import { expect } from 'chai';
import { BrowserContext, Page } from 'playwright-core';
import { ADMIN_PASSWORD, gateOnHighs } from '@bulwark/testkit';
import { semgrepReport } from '../../services/issues/test/issues.suite';
import { MESSAGE_MODULES } from '../src/messages';
import {
  expectAccessible,
  expectNoEnglish,
  expectNoOverflow,
  openBrowser,
  requireChromium,
  shot,
  signIn,
} from './browser';
import { type ConsoleSystem, ok, startConsoleSystem, uploadReport, waitUntil } from './system';

const LOG4SHELL = 'CVE-2021-44228';
const LODASH_CVE = 'CVE-2021-23337';

/** A layer's SBOM: three components with their licences (an SPDX id, an expression), and two known vulnerabilities. */
const sbom = () =>
  JSON.stringify({
    bomFormat: 'CycloneDX',
    specVersion: '1.4',
    version: 1,
    components: [
      {
        'bom-ref': 'log4j',
        type: 'library',
        group: 'org.apache.logging.log4j',
        name: 'log4j-core',
        version: '2.14.1',
        purl: 'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1',
        licenses: [{ license: { id: 'Apache-2.0' } }],
      },
      {
        'bom-ref': 'lodash',
        type: 'library',
        name: 'lodash',
        version: '4.17.20',
        purl: 'pkg:npm/lodash@4.17.20',
        licenses: [{ license: { id: 'MIT' } }],
      },
      {
        'bom-ref': 'express',
        type: 'framework',
        name: 'express',
        version: '4.17.1',
        purl: 'pkg:npm/express@4.17.1',
        licenses: [{ expression: 'MIT OR Apache-2.0' }],
      },
    ],
    vulnerabilities: [
      { id: LOG4SHELL, ratings: [{ severity: 'critical', score: 10, method: 'CVSSv31' }], affects: [{ ref: 'log4j' }] },
      { id: LODASH_CVE, ratings: [{ severity: 'high', score: 7.2, method: 'CVSSv31' }], affects: [{ ref: 'lodash' }] },
    ],
  });

describe('console: every page on a phone, in English and Russian (Chromium through Playwright)', function () {
  let system: ConsoleSystem | undefined;
  let context: BrowserContext | undefined;
  let page: Page;
  let code: string;
  let layerId: string;
  let issueId: string;
  const problems: string[] = [];
  const base = () => system!.sys.api.baseUrl;
  const admin = () => system!.admin;

  before(async function () {
    this.timeout(240000);
    requireChromium(this);
    system = await startConsoleSystem();
    ({ code, layerId } = system.env);
    await gateOnHighs(admin(), layerId, `No highs ${code}`, 'lock');
    await uploadReport(
      admin(),
      system.checkId,
      semgrepReport([
        {
          rule: 'python.lang.security.dangerous-subprocess',
          line: 4,
          code: 'subprocess.call(cmd, shell=True)',
          severity: 'ERROR',
          cwe: 'CWE-78',
        },
      ]),
    );
    // The SBOM is the layer's component list; the same document uploaded to a second check makes its vulnerabilities issues.
    ok(await admin().request('POST', `/api/v1/layer/${layerId}/sbom?file_name=bom.json`, undefined, sbom()));
    const sca = ok(
      await admin().post('/api/v1/check', {
        layer_id: layerId,
        security_tool_id: system.env.tools[0],
        scan_source_id: system.env.sourceId,
        source_auth: { branch_name: 'release' },
        run_scan_task: { type: 'manual' },
      }),
    );
    await uploadReport(admin(), sca.id, sbom());
    ok(
      await admin().post('/api/v1/notifier', {
        name: `Hook ${code}`,
        settings: { url: 'http://127.0.0.2/hook' },
        events: ['issue.status_changed'],
        project_codes: [code],
      }),
    );
    await waitUntil(
      async () => ok(await admin().get(`/api/v1/issues/count?filter[project_code]=${code}`)).count === 3,
      () => 'the uploaded reports were not ingested',
    );
    issueId = ok(await admin().get(`/api/v1/issues?filter[cve]=${LOG4SHELL}`)).items[0].id;
    ({ context, page } = await openBrowser(problems));
    await page.setViewportSize({ width: 1400, height: 900 });
    await page.goto(`${base()}/`);
    await page.locator('#lang').selectOption('en');
    await signIn(page, base(), 'admin', ADMIN_PASSWORD);
  });

  after(async function () {
    this.timeout(60000);
    await context?.close();
    await system?.git.close();
    await system?.sys.stop();
  });

  /** Waits until the page's heading shows and nothing is loading any more. */
  const settle = async () => {
    await page.locator('main h1').first().waitFor();
    await page.waitForLoadState('networkidle');
    const loading = [MESSAGE_MODULES.core.en.loading, MESSAGE_MODULES.core.ru.loading];
    await page.waitForFunction(
      (texts) =>
        !Array.from(document.querySelectorAll('[role="status"]')).some((e) => texts.includes(e.textContent ?? '')),
      loading,
    );
  };

  it('lists a layer’s components with their licences and the vulnerabilities its issues name, from the nav and from the project', async () => {
    await page.goto(`${base()}/projects/${code}`);
    await page.getByRole('link', { name: /^Components of layer / }).click();
    const table = page.getByRole('table', { name: /^Components of / });
    await table.waitFor();
    const row = (name: RegExp) => table.getByRole('row').filter({ has: page.getByRole('rowheader', { name }) });
    await row(/log4j-core$/)
      .getByText('Apache-2.0')
      .waitFor();
    await row(/log4j-core$/)
      .getByRole('link', { name: LOG4SHELL })
      .waitFor();
    await row(/^lodash$/)
      .getByRole('link', { name: LODASH_CVE })
      .waitFor();
    await row(/^express$/)
      .getByText('MIT OR Apache-2.0')
      .waitFor();
    await row(/^express$/)
      .getByText('none known')
      .waitFor();
    await row(/^express$/)
      .getByText('framework')
      .waitFor();
    await expectAccessible(page, 'a layer’s components');
    await shot(page, 'components-layer');

    await page.getByLabel('Find a component by name', { exact: true }).fill('lod');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await table.getByRole('rowheader', { name: 'express' }).waitFor({ state: 'detached' });
    expect(await table.getByRole('rowheader').allTextContents()).to.deep.equal(['lodash']);

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Components' }).click();
    const sboms = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: /bom|·/ }) });
    await sboms.first().getByText('bom.json').waitFor();
    await expectAccessible(page, 'the uploaded SBOMs');
  });

  it('shows the projects and layers a CVE affects, each a link to its issues', async () => {
    await page.goto(`${base()}/components`);
    await page.getByLabel('CVE id').fill(LOG4SHELL.toLowerCase());
    await page.getByRole('button', { name: 'Find', exact: true }).click();
    const table = page.getByRole('table', { name: `Projects and layers affected by ${LOG4SHELL}` });
    const row = table.getByRole('row').filter({ has: page.getByRole('rowheader', { name: code }) });
    await row.getByText('log4j-core 2.14.1').waitFor();
    await expectAccessible(page, 'a CVE’s reach');
    await shot(page, 'components-cve');
    await row.getByRole('link', { name: new RegExp(`^1: the issues of ${LOG4SHELL} in `) }).click();
    await page.waitForURL(/\/issues\?/);
    const url = new URL(page.url());
    expect(url.searchParams.get('filter[cve]')).to.equal(LOG4SHELL);
    expect(url.searchParams.get('filter[layer]')).to.equal(layerId);

    await page.goto(`${base()}/components?cve=CVE-1999-0001`);
    await page.getByText('No issue of your projects names CVE-1999-0001.').waitFor();
  });

  /** Every route of the console (App.tsx's route()), as a reader reaches it. */
  const routes = (): [string, string][] => [
    ['dashboard', '/'],
    ['issue list', '/issues'],
    ['fix first', '/fix-first'],
    ['issue detail', `/issues/${issueId}`],
    ['projects', '/projects'],
    ['project', `/projects/${code}`],
    ['components', '/components'],
    ['layer components', `/components?layer=${layerId}`],
    ['CVE reach', `/components?cve=${LOG4SHELL}`],
    ['reports', '/reports'],
    ['quality gates', '/policy'],
    ['security rules', '/policy/rules'],
    ['policies', '/policy/policies'],
    ['notifiers', '/notifications'],
    ['events', '/notifications/events'],
    ['errors log', '/notifications/errors'],
    ['administration', '/admin'],
    ['users', '/admin/users'],
    ['roles', '/admin/roles'],
    ['groups', '/admin/groups'],
    ['tokens', '/admin/tokens'],
    ['directory', '/admin/directory'],
    ['single sign-on', '/admin/sso'],
  ];

  for (const lang of ['ru', 'en'] as const) {
    it(`keeps every page within 390 px and accessible${lang === 'ru' ? ', with no English of the catalogue' : ''} (${lang})`, async function () {
      this.timeout(300000);
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto(`${base()}/`);
      await page.locator('#lang').selectOption(lang);
      const visited = new Set<string>();
      const linked = new Set<string>();
      const failures: string[] = [];
      for (const [what, path] of routes()) {
        await page.goto(`${base()}${path}`);
        await settle();
        visited.add(new URL(path, base()).pathname);
        // Every page the navigation bars lead to must be in the list above.
        for (const href of await page
          .locator('nav a[href^="/"]')
          .evaluateAll((as) => as.map((a) => a.getAttribute('href') ?? '')))
          linked.add(new URL(href, base()).pathname);
        const label = `${what} at 390 px (${lang})`;
        try {
          await expectNoOverflow(page, label);
          await expectAccessible(page, label);
          if (lang === 'ru') await expectNoEnglish(page, what);
        } catch (err) {
          // Every page is visited before the test fails, so one run names every page that fails and why.
          const actual = 'actual' in (err as object) ? ` ${JSON.stringify((err as { actual: unknown }).actual)}` : '';
          failures.push(`${(err as Error).message}${actual}`);
        }
        await shot(page, `every-page-${what.replace(/ /g, '-')}-${lang}-390`);
      }
      expect(failures, 'pages that fail').to.deep.equal([]);
      expect(
        [...linked].filter((p) => !visited.has(p)),
        'pages the navigation leads to but this test does not visit',
      ).to.deep.equal([]);
      if (lang === 'ru') {
        // The check can fail: the same page in English is caught.
        await page.locator('#lang').selectOption('en');
        const caught = await expectNoEnglish(page, 'English page').then(
          () => false,
          () => true,
        );
        expect(caught, 'English found on the English page').to.equal(true);
        await page.locator('#lang').selectOption('ru');
      }

      // Signed out: the sign-in page.
      await page.getByRole('button', { name: MESSAGE_MODULES.core[lang].signOut }).click();
      await page.locator('#password, input[type="password"]').first().waitFor();
      await expectNoOverflow(page, `sign-in at 390 px (${lang})`);
      await expectAccessible(page, `sign-in at 390 px (${lang})`);
      if (lang === 'ru') await expectNoEnglish(page, 'sign-in');
      await page.locator('#lang').selectOption('en');
      await page.setViewportSize({ width: 1400, height: 900 });
      await signIn(page, base(), 'admin', ADMIN_PASSWORD);
    });
  }

  it('ran without a CSP refusal or a script error', () => {
    expect(problems).to.deep.equal([]);
  });
});
