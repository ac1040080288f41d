/// <reference lib="dom" />
/**
 * The console's issues page at 1,000,000 issues, in Debian's Chromium: the scaled mode (as
 * bench/issues/http.ts starts it), the issues database filled directly, then, signed in through the
 * form, the time from navigation until the first page's rows and total are on screen and the page
 * answers input, for the default view and each filter set of bench/issues/dataset.ts; then 100
 * "Next page" clicks (keyset paging), each timed until the new page's rows replace the old; and the
 * longest task the main thread ran meanwhile (PerformanceObserver `longtask`), which is how long the
 * page could not answer a key or a click. Run: `npm run build`, then
 * `eval "$(bash deploy/local/infra.sh env)" && npx tsx bench/console/issues-page.ts`. BENCH_CONSOLE_DIR serves another
 * build of the console than console/dist. BENCH_COMPARE_DIR names a second build (say, a copy of console/dist from
 * before a change): each view's navigations then alternate between the two, so both meet the same load.
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import express from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';
import knex from 'knex';
import type { Page } from 'playwright-core';
import { ADMIN_PASSWORD, infra, startScaledMode } from '@bulwark/testkit';
import { openBrowser, signIn } from '../../console/test/browser';
import { consoleRouter, findConsoleDir } from '../../gateway/src/http/console';
import { fillIssues, p95, QUERIES, settle } from '../issues/dataset';

const TOTAL_ISSUES = Number(process.env.BENCH_TOTAL_ISSUES ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 10);
const PAGES = Number(process.env.BENCH_PAGES ?? 100);
const CONSOLE_DIR = process.env.BENCH_CONSOLE_DIR;
const COMPARE_DIR = process.env.BENCH_COMPARE_DIR;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x: number) => `${x.toFixed(0)} ms`;
/** The machine's 1-minute load average when a figure was taken: on a shared machine the figures mean little without it. */
const load = () => os.loadavg()[0].toFixed(1);

/** The first row's issue link: it changes when a new page replaced the old one. */
const firstRow = (page: Page) => page.locator('table.grid tbody tr').first().locator('a').first().getAttribute('href');

/** Navigation to a view of the issues page until its rows and total show and the first row's link takes focus (the page answers). */
async function openView(page: Page, url: string): Promise<number> {
  const t0 = performance.now();
  await page.goto(url, { waitUntil: 'commit' });
  await page.locator('table.grid tbody tr').first().waitFor();
  await page
    .getByRole('status')
    // The list's place and total: "1–50 of 1,000,000".
    .filter({ hasText: /^[\d,]+–[\d,]+ of [\d,]+$/ })
    .waitFor();
  await page.locator('table.grid tbody tr a').first().focus();
  return performance.now() - t0;
}

async function longestTask(page: Page): Promise<number> {
  return page.evaluate(() => (window as unknown as { longest: number }).longest);
}

/**
 * A build of the console served as the gateway serves it (its own router: headers, caching), the API
 * passed on to the gateway. Two of them, one per build, differ in nothing else; the session cookie is
 * the gateway's host's, so it reaches both.
 */
async function serveBuild(dir: string, gateway: string): Promise<{ base: string; close: () => void }> {
  const app = express();
  app.use(createProxyMiddleware({ target: gateway, pathFilter: '/api' }));
  app.use(consoleRouter(dir));
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

async function main() {
  const i = infra();
  if (!i.pgUrl || !i.redisUrl || !i.kafkaBrokers)
    throw new Error('PostgreSQL, Redis and Kafka are needed: eval "$(bash deploy/local/infra.sh env)"');
  const system = await startScaledMode(
    { ...i, pgUrl: i.pgUrl, redisUrl: i.redisUrl, kafkaBrokers: i.kafkaBrokers, scannerPath: i.scannerPath ?? '' },
    {
      RATE_LIMIT_PER_TOKEN_PER_MINUTE: '1000000',
      LOG_LEVEL: 'warn',
      ...(CONSOLE_DIR ? { CONSOLE_DIR } : {}),
    },
  );
  const problems: string[] = [];
  const { context, page } = await openBrowser(problems);
  let builds: { label: string; base: string; close: () => void }[] = [];
  try {
    const db = knex({ client: 'pg', connection: system.env.ISSUES_DATABASE_URL });
    await fillIssues(db, TOTAL_ISSUES);
    await settle(db);
    await db.destroy();
    console.log(`${TOTAL_ISSUES} issues stored\n`);

    // Long tasks of every document the page loads, from its start.
    await context.addInitScript(() => {
      const w = window as unknown as { longest: number };
      w.longest = 0;
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) w.longest = Math.max(w.longest, e.duration);
      }).observe({ type: 'longtask', buffered: true });
    });
    const base = system.api.baseUrl;
    await signIn(page, base, 'admin', ADMIN_PASSWORD);
    builds = COMPARE_DIR
      ? [
          { label: 'A', ...(await serveBuild(CONSOLE_DIR ?? findConsoleDir(undefined)!, base)) },
          { label: 'B', ...(await serveBuild(COMPARE_DIR, base)) },
        ]
      : [{ label: '', base, close: () => undefined }];

    const named = (label: string, build: string) => (build ? `${label} (build ${build})` : label);
    console.log(
      '| view | first page on screen, median | p95 | longest main-thread task | load average |\n|---|---|---|---|---|',
    );
    for (const view of [{ label: 'all issues, newest first', query: '' }, ...QUERIES]) {
      const times = builds.map(() => [] as number[]);
      const longest = builds.map(() => 0);
      for (let n = 0; n < RUNS; n++) {
        for (const [k, build] of builds.entries()) {
          times[k].push(await openView(page, `${build.base}/issues${view.query ? `?${view.query}` : ''}`));
          longest[k] = Math.max(longest[k], await longestTask(page));
        }
      }
      for (const [k, build] of builds.entries())
        console.log(
          `| ${named(view.label, build.label)} | ${ms(median(times[k]))} | ${ms(p95(times[k]))} | ${ms(longest[k])} | ${load()} |`,
        );
    }

    for (const build of builds) {
      await openView(page, `${build.base}/issues`);
      const clicks: number[] = [];
      for (let n = 0; n < PAGES; n++) {
        const before = await firstRow(page);
        const t0 = performance.now();
        await page.getByRole('button', { name: 'Next page' }).click();
        await page.waitForFunction(
          (href) => document.querySelector('table.grid tbody tr a')?.getAttribute('href') !== href,
          before,
        );
        clicks.push(performance.now() - t0);
      }
      // One document throughout the clicks: its longest task covers all of them.
      console.log(
        `\n| ${named(`${PAGES} × Next page (keyset)`, build.label)} | median ${ms(median(clicks))} | p95 ${ms(p95(clicks))} | longest task ${ms(await longestTask(page))} | page ${PAGES + 1} reached | load average ${load()} |`,
      );
    }
    if (problems.length) throw new Error(`the page reported problems: ${problems.join('; ')}`);
  } finally {
    for (const build of builds) build.close();
    await context.close();
    await system.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
