/**
 * GET /api/v1/issues and /issues/count through the gateway with many issues stored, the issues
 * database filled directly, then each query timed over HTTP as a client sends it. BENCH_MODE=scaled
 * (default; 1,000,000 issues): identity, the services and two gateways as separate processes on the
 * PostgreSQL, Kafka and Redis of deploy/local/infra.sh. BENCH_MODE=all (200,000 issues): one
 * TARGET=all process on its embedded PostgreSQL, filled through the server's socket in its data
 * directory. Run: `npm run build`, then `eval "$(bash deploy/local/infra.sh env)" && npx tsx bench/issues/http.ts`
 * (BENCH_TOTAL_ISSUES changes the count).
 */
import knex from 'knex';
import { ADMIN_PASSWORD } from '@bulwark/testkit';
import { fillIssues, p95, QUERIES, settle } from './dataset';
import { startSystem } from './system';

const MODE = process.env.BENCH_MODE ?? 'scaled';
const TOTAL_ISSUES = Number(process.env.BENCH_TOTAL_ISSUES ?? (MODE === 'all' ? 200_000 : 1_000_000));
const RUNS = 40;
// The benchmark client sends some 1,500 requests a minute with one token.
const SETTINGS = { RATE_LIMIT_PER_TOKEN_PER_MINUTE: '1000000', LOG_LEVEL: 'warn' };

async function main() {
  const { system, issuesDb } = await startSystem(MODE, SETTINGS);
  console.log(`${MODE} mode, ${TOTAL_ISSUES} issues`);
  try {
    const db = knex({ client: 'pg', connection: issuesDb });
    const fillStart = Date.now();
    await fillIssues(db, TOTAL_ISSUES);
    await settle(db);
    await db.destroy();
    console.log(`filled ${TOTAL_ISSUES} issues in ${((Date.now() - fillStart) / 1000).toFixed(1)} s\n`);

    const api = system.api.as(await system.api.login('admin', ADMIN_PASSWORD));
    const get = async (path: string) => {
      const res = await api.get(path);
      if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    };
    const time = async (path: string) => {
      const xs: number[] = [];
      for (let n = 0; n < RUNS; n++) {
        const t0 = process.hrtime.bigint();
        await get(path);
        xs.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
      return `${p95(xs).toFixed(1)} ms`;
    };
    console.log(
      '| query | GET /issues first page p95 | GET /issues page 200, or the last, by cursor p95 | GET /issues/count p95 | total |\n|---|---|---|---|---|',
    );
    for (const q of QUERIES) {
      const list = `/api/v1/issues?${q.query}&limit=50`;
      // The cursor of page 200, found by walking next_cursor as a client does; a shorter list ends
      // at its last page (a null next_cursor would start the walk over from the first page).
      let cursor = '';
      let page = 1;
      for (; page < 200; page++) {
        const next = (await get(`${list}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)).next_cursor;
        if (!next) break;
        cursor = next;
      }
      const deep = cursor ? `${list}&cursor=${encodeURIComponent(cursor)}` : list;
      const first = await get(list);
      if (first.items.length !== 50 || (await get(deep)).items.length === 0)
        throw new Error(`${q.label}: expected full pages`);
      console.log(
        `| ${q.label} | ${await time(list)} | ${await time(deep)} (page ${page}) | ${await time(`/api/v1/issues/count?${q.query}`)} | ${first.total} |`,
      );
    }
  } finally {
    await system.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
