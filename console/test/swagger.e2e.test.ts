/// <reference lib="dom" />
// The gateway's Swagger UI page in Chromium: it runs under its own Content-Security-Policy and keeps no token in storage.
import { expect } from 'chai';
import { BrowserContext, Page } from 'playwright-core';
import { ADMIN_PASSWORD, RunningSystem, startAllModeProcess } from '@bulwark/testkit';
import { openBrowser, requireChromium, shot } from './browser';

/** What Swagger UI's store says about the schemes the user authorized (its `authSelectors`). */
const authorizedSchemes = (page: Page) =>
  page.evaluate(() => {
    const ui = (window as unknown as { ui: { authSelectors: { authorized(): { toJS(): Record<string, unknown> } } } })
      .ui;
    return Object.keys(ui.authSelectors.authorized().toJS());
  });

describe('Swagger UI page (Chromium through Playwright)', function () {
  let sys: (RunningSystem & { alive(): boolean }) | undefined;
  let context: BrowserContext | undefined;
  let page: Page;
  let token: string;
  const problems: string[] = [];

  before(async function () {
    this.timeout(240000);
    requireChromium(this);
    sys = await startAllModeProcess();
    token = await sys.api.login('admin', ADMIN_PASSWORD);
    ({ context, page } = await openBrowser(problems));
    // A refusal of the page's policy is reported to the page as an event: it fails the suite like a script error.
    await page.addInitScript(() =>
      document.addEventListener('securitypolicyviolation', (e) =>
        console.error(`CSP refused ${e.violatedDirective}: ${e.blockedURI} at ${e.sourceFile}:${e.lineNumber}`),
      ),
    );
  });

  after(async function () {
    this.timeout(60000);
    await context?.close();
    await sys?.stop();
  });

  it('renders the operations under its own policy, and an authorization lives in the page only, never in storage', async function () {
    this.timeout(60000);
    const res = await page.goto(`${sys!.api.baseUrl}/api/v1/swagger/index.html`);
    expect(res?.headers()['content-security-policy']).to.contain("frame-ancestors 'none'");
    await page.locator('.opblock').first().waitFor();
    await page.getByRole('button', { name: 'Authorize' }).first().click();
    // The dialog also lists the webhooks' signature scheme: the bearer scheme's own form takes the token.
    const bearer = page.locator('.modal-ux form', { hasText: 'bearer (http, Bearer)' });
    await bearer.locator('input').first().fill(token);
    await bearer.locator('button.authorize').click();
    expect(await authorizedSchemes(page)).to.have.length(1);
    await shot(page, 'swagger-authorized');
    expect(await page.evaluate(() => ({ local: localStorage.length, session: sessionStorage.length }))).to.deep.equal({
      local: 0,
      session: 0,
    });
    await page.reload();
    await page.locator('.opblock').first().waitFor();
    expect(await authorizedSchemes(page), 'a reload forgets the token').to.deep.equal([]);
    expect(problems).to.deep.equal([]);
  });
});
