/// <reference lib="dom" />
// The browser side of the console's end-to-end suites: Debian's Chromium driven by Playwright, axe-core, screenshots.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { BrowserContext, chromium, Locator, Page } from 'playwright-core';
import { MESSAGE_MODULES } from '../src/messages';
import { LAZY_MESSAGE_MODULES } from '../src/messages/lazy';

/** Debian's Chromium (deploy/local/infra.sh install puts it there in CI); nothing is downloaded. */
export const CHROMIUM = '/usr/bin/chromium';
export const ARTIFACTS = path.resolve(__dirname, '../../.e2e-artifacts');
const AXE_SOURCE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** axe-core run in the page (evaluated, not a script tag: the console's CSP refuses inline scripts, as it should). */
export async function expectAccessible(page: Page, what: string): Promise<void> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<{ violations: AxeViolation[] }> } }
    ).axe;
    return (
      await axe.run(document, {
        runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
      })
    ).violations;
  });
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(
    serious.map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    `axe on ${what}`,
  ).to.deep.equal([]);
}

/** The page is no wider than the window: nothing scrolls sideways (the message names what sticks out). */
export async function expectNoOverflow(page: Page, what: string): Promise<void> {
  const { extra, culprits } = await page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    // What sticks out of the page, not what scrolls inside a box of its own.
    const out = Array.from(document.querySelectorAll('main *, header *'))
      .filter((e) => e.getBoundingClientRect().right > width + 0.5)
      .filter((e) => {
        for (let a = e.parentElement; a; a = a.parentElement)
          if (getComputedStyle(a).overflowX !== 'visible') return false;
        return true;
      })
      .filter((e) => !Array.from(e.children).some((c) => c.getBoundingClientRect().right > width + 0.5))
      .slice(0, 5)
      .map((e) => `${e.tagName.toLowerCase()}.${e.className} (${Math.round(e.getBoundingClientRect().right)} px)`);
    return { extra: document.documentElement.scrollWidth - width, culprits: out };
  });
  expect(extra, `${what} is ${extra} px wider than the window: ${culprits.join(', ')}`).to.be.at.most(0);
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The English catalogue as patterns of a whole text: every message that reads differently in Russian,
 * its placeholders standing for any text. A message whose own words are too few to tell (such as
 * "{0} · {1}") is left out.
 */
const ENGLISH_CATALOGUE: { text: string; pattern: RegExp }[] = Object.values({
  ...MESSAGE_MODULES,
  ...LAZY_MESSAGE_MODULES,
}).flatMap((m) => {
  const ru = m.ru as Record<string, string>;
  return Object.entries(m.en as Record<string, string>)
    .filter(([key, text]) => ru[key] !== text && text.replace(/\{\d\}/g, '').replace(/[^A-Za-z]/g, '').length >= 2)
    .map(([, text]) => ({
      text,
      pattern: new RegExp(
        `^${text
          .split(/\{\d\}/)
          .map(escape)
          .join('[\\s\\S]*')}$`,
      ),
    }));
});

/**
 * The Russian page shows no text of the English catalogue: no text node, accessible name, placeholder
 * or title reads as an English message. React renders each message as a text node of its own, so a
 * whole text is compared, and a name in the data that merely contains an English word is no match.
 * Text the server wrote in English is marked lang="en" (a scan's failure reason) and left out; the
 * document's own lang is the reader's language, not such a mark.
 */
export async function expectNoEnglish(page: Page, what: string): Promise<void> {
  // No function is declared inside: the test's compiler would name it with a helper the page lacks.
  const texts = await page.evaluate(() => {
    const out: string[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const text = n.textContent?.trim();
      if (text && !n.parentElement?.closest('body [lang="en"]')) out.push(text);
    }
    for (const e of Array.from(document.body.querySelectorAll('[aria-label], [placeholder], [title], [alt]'))) {
      if (e.closest('body [lang="en"]')) continue;
      for (const a of ['aria-label', 'placeholder', 'title', 'alt']) {
        const value = e.getAttribute(a)?.trim();
        if (value) out.push(value);
      }
    }
    return out;
  });
  const found = new Set<string>();
  for (const text of texts)
    for (const m of ENGLISH_CATALOGUE) if (m.pattern.test(text)) found.add(`"${text}" (${m.text})`);
  expect([...found], `English on the Russian ${what}`).to.deep.equal([]);
}

export const shot = (page: Page, name: string) =>
  page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });

/** Where the README's screenshots are taken to; scripts/readme-shots.sh makes them small and puts them in docs/images. */
export const README_SHOTS = path.join(ARTIFACTS, 'readme');

/** A screenshot for the README: what the screen shows of a page (not the whole page), or one element. */
export async function readmeShot(target: Page | Locator, name: string): Promise<void> {
  fs.mkdirSync(README_SHOTS, { recursive: true });
  await target.screenshot({ path: path.join(README_SHOTS, `${name}.png`) });
}

/**
 * A fresh browser profile on one page. Any CSP refusal or script error is pushed to `problems`, which
 * a suite asserts empty at its end: the page must work under its own policy.
 */
export async function openBrowser(problems: string[]): Promise<{ context: BrowserContext; page: Page }> {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
    acceptDownloads: true,
    locale: 'en-GB',
    viewport: { width: 1280, height: 800 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  page.on('console', (m) => {
    if (m.type() === 'error' && !/status of 401/.test(m.text())) problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  return { context, page };
}

/** The browsers a suite opens, each a fresh profile reporting to `problems`; its after() calls `closeAll`. */
export function browserPool(problems: string[]) {
  const contexts: BrowserContext[] = [];
  return {
    open: async (): Promise<Page> => {
      const opened = await openBrowser(problems);
      contexts.push(opened.context);
      return opened.page;
    },
    closeAll: async () => {
      for (const c of contexts) await c.close();
    },
  };
}

/** Skips the suite where Chromium is absent, except in CI, where its absence is a broken set-up rather than a reason to pass quietly. */
export function requireChromium(ctx: Mocha.Context): void {
  if (fs.existsSync(CHROMIUM)) return;
  if (process.env.CI === 'true') throw new Error(`${CHROMIUM} is missing: run deploy/local/infra.sh install`);
  ctx.skip();
}

/** Signs in through the form, as a person does, and waits for the dashboard. */
export async function signIn(page: Page, baseUrl: string, username: string, password: string): Promise<void> {
  await page.goto(`${baseUrl}/`);
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
}

/** Each screen a workflow is tried on: both languages, a desktop and a phone's width. */
export const SCREENS = [
  { lang: 'en', width: 1400, height: 900 },
  { lang: 'ru', width: 1400, height: 900 },
  { lang: 'en', width: 390, height: 844 },
  { lang: 'ru', width: 390, height: 844 },
] as const;
export type Screen = (typeof SCREENS)[number];

/** Shows a page in a language at a width: the language is the one the switch in the header stores. */
export async function viewAt(page: Page, baseUrl: string, screen: Screen, path: string): Promise<void> {
  await page.setViewportSize({ width: screen.width, height: screen.height });
  await page.evaluate((lang) => window.localStorage.setItem('bulwark.lang', lang), screen.lang);
  await page.goto(`${baseUrl}${path}`);
  await page.waitForFunction((lang) => document.documentElement.lang === lang, screen.lang);
}
