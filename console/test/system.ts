import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import knex, { type Knex } from 'knex';
import {
  Api,
  ADMIN_PASSWORD,
  type ApiResponse,
  expectStatus,
  GitServer,
  type Json,
  RunningSystem,
  startAllModeProcess,
  startGitServer,
  SystemUnderTest,
} from '@bulwark/testkit';
import { MANUAL_TOOL_TYPE, scanSetup } from '../../services/scanning/test/scanning.suite';

/** What the console's suites drive: TARGET=all, the admin over the API, and a project whose layer has a check taking uploaded reports. */
export interface ConsoleSystem {
  sys: RunningSystem & { alive(): boolean; dataDir: string };
  admin: Api;
  git: GitServer;
  env: Awaited<ReturnType<typeof scanSetup>>;
  checkId: string;
}

/** Set-up the pages under test do not cover goes through the API: the source (a local Git repository), the tool, the project, the layer and the check. */
export async function startConsoleSystem(): Promise<ConsoleSystem> {
  const sys = await startAllModeProcess();
  const admin = sys.api.as(await sys.api.login('admin', ADMIN_PASSWORD));
  const git = await startGitServer();
  try {
    git.addRepository('app', { 'app.py': 'import subprocess\n' });
    const t: SystemUnderTest = { mode: 'all', sys, admin, anon: sys.api };
    const env = await scanSetup(t, git, 'app', [MANUAL_TOOL_TYPE]);
    const check = await admin.post('/api/v1/check', {
      layer_id: env.layerId,
      security_tool_id: env.tools[0],
      scan_source_id: env.sourceId,
      source_auth: { branch_name: 'main' },
      run_scan_task: { type: 'manual' },
    });
    expect(check.status, JSON.stringify(check.body)).to.equal(200);
    return { sys, admin, git, env, checkId: check.body.id as string };
  } catch (err) {
    // The suite's after() cannot stop what it was never handed.
    await git.close();
    await sys.stop();
    throw err;
  }
}

/**
 * The issues service's database of the system (the embedded PostgreSQL, through the socket in its data
 * directory): for the state a test cannot reach in its run time, such as an issue first detected
 * years ago. The caller destroys it.
 */
export function issuesDatabase(system: ConsoleSystem): Knex {
  const server = path.join(system.sys.dataDir, 'postgres');
  const password = fs.readFileSync(path.join(server, 'password'), 'utf8').trim();
  const socket = encodeURIComponent(path.join(server, 'run'));
  return knex({
    client: 'pg',
    connection: `postgres://bulwark:${encodeURIComponent(password)}@localhost/bulwark_issues?host=${socket}`,
    pool: { min: 0, max: 1 },
  });
}

/** Stops what a suite started: its browsers first, then the Git server and the system. */
export async function stopConsoleSystem(
  system: ConsoleSystem | undefined,
  closeBrowsers: () => Promise<void>,
): Promise<void> {
  await closeBrowsers();
  await system?.git.close();
  await system?.sys.stop();
}

/** The body of a 200 answer; otherwise the test fails, showing the body. */
export const ok = (res: ApiResponse): Json => expectStatus(res, 200);

/** Uploads a report (JSON) to a check over the API: its scan result's id. */
export const uploadReport = async (admin: Api, checkId: string, report: string): Promise<string> =>
  ok(
    await admin
      .withHeaders({ 'content-type': 'application/json' })
      .request('POST', `/api/v1/check/${checkId}/results`, undefined, report),
  ).scan_result_id as string;

/** Asks `done` every 250 ms until it holds: what the services do after an answer (ingesting a report) takes a moment. */
export async function waitUntil(done: () => Promise<boolean>, failure: () => string | Promise<string>): Promise<void> {
  const deadline = Date.now() + 60000;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(await failure());
    await new Promise((r) => setTimeout(r, 250));
  }
}
