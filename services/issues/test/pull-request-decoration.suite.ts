import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import {
  expectStatus,
  fieldProblem,
  gateOnHighs,
  type Json,
  manualCheck,
  projectWithSource,
  type ProjectSetup,
  type SystemUnderTest,
  uniqueSuffix,
  uploadAndIngest,
  userWithRole,
} from '@bulwark/testkit';
import { SUMMARY_MARKER } from '../src/decoration/summary';
import {
  commentWhen,
  expectTwoNewOneFixedEscaped,
  HOSTILE_PATH,
  hostileReport,
  until,
  refusedThenPosted,
} from './decoration-fixtures';
import { type GitHubContractServer, startGitHubContractServer } from './github-contract-server';

const CLI = path.resolve(__dirname, '..', '..', '..', 'packages', 'cli', 'dist', 'main.js');
const MANUAL_TOOL_TYPE = 20;
const PR = 7;
/**
 * `bulwark upload` as a GitHub Actions job of a pull_request event runs it: the pull request comes
 * from the event file. Spawned, not run synchronously: in the one-process mode Bulwark answers from
 * this very process.
 */
function uploadFromGitHubActions(env: Record<string, string>, report: string, headSha: string): Promise<number | null> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-pr-'));
  fs.writeFileSync(path.join(work, 'report.sarif'), report);
  fs.writeFileSync(
    path.join(work, 'event.json'),
    JSON.stringify({ pull_request: { number: PR, head: { sha: headSha }, base: { ref: 'main' } } }),
  );
  const args = [CLI, 'upload', '--check', env.BULWARK_CHECK_ID, path.join(work, 'report.sarif')];
  return new Promise<number | null>((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      env: {
        PATH: process.env.PATH ?? '',
        ...env,
        GITHUB_ACTIONS: 'true',
        GITHUB_EVENT_PATH: path.join(work, 'event.json'),
        GITHUB_REF: `refs/pull/${PR}/merge`,
        GITHUB_SHA: 'f'.repeat(40),
      },
      stdio: 'ignore',
    });
    child.on('error', reject);
    child.on('close', resolve);
  }).finally(() => fs.rmSync(work, { recursive: true, force: true }));
}

/**
 * Pull request decoration through the product: a source's decoration settings, an upload naming its
 * pull request, and the verdict on the pull request of a contract server that checks every request
 * against GitHub's OpenAPI description (github-contract-server.ts).
 */
export function pullRequestDecorationSuite(t: SystemUnderTest): void {
  let github: GitHubContractServer;
  let env: ProjectSetup;
  let check: string;

  const sha = (c: string) => c.repeat(40);
  const upload = async (report: string, headSha: string) => {
    const query = `pull_request[number]=${PR}&pull_request[head_sha]=${headSha}&pull_request[base_branch]=main`;
    const res = await t.admin
      .withHeaders({ 'content-type': 'application/json' })
      .request('POST', `/api/v1/check/${check}/results?${query}`, undefined, report);
    return expectStatus(res, 200).scan_result_id as string;
  };
  /** Waits until the pull request's summary comment satisfies `done`. */
  const summaryWhen = (done: (body: string) => boolean) =>
    commentWhen(() => github.issueComments.get(PR) ?? [], SUMMARY_MARKER, done);
  const statusOf = (headSha: string) => github.statuses.find((st) => st.sha === headSha);
  const decoration = (body: Json, sourceId = env.sourceId, api = t.admin) =>
    api.request('PUT', `/api/v1/source/${sourceId}/decoration`, body);

  before(async function () {
    this.timeout(60000);
    github = await startGitHubContractServer();
    github.diffLines.add(`${HOSTILE_PATH}:12`);
    env = await projectWithSource(t.admin, {
      code: `PRD${uniqueSuffix()}`.slice(0, 32),
      sourceUrl: 'https://github.example/acme/shop.git',
      toolTypes: [MANUAL_TOOL_TYPE],
    });
    await gateOnHighs(t.admin, env.layerId, `pull requests ${env.code}`, 'lock');
    check = await manualCheck(t.admin, env);
    // The base branch's scan, before the pull request: its one issue is what the pull request fixes.
    await uploadAndIngest(t.admin, check, hostileReport([50], 'src/base.py'), 1);
  });
  after(async () => {
    await github?.close();
  });
  afterEach(() => expect(github.violations).to.deep.equal([]));

  it('keeps a source’s decoration settings with the token sealed: never answered, kept only for the same address', async () => {
    const first = { enabled: true, platform: 'github', api_url: github.url };
    expect(fieldProblem(await decoration(first), 'token')).to.contain('required');
    const saved = expectStatus(await decoration({ ...first, token: github.token, review_min_severity: 'high' }), 200);
    expect(saved).to.deep.include({ enabled: true, platform: 'github', token_set: true, review_min_severity: 'high' });
    const read = expectStatus(await t.admin.get(`/api/v1/source/${env.sourceId}/decoration`), 200);
    for (const body of [saved, read]) expect(JSON.stringify(body)).not.to.contain(github.token);
    // The stored token does not follow the address to another host; the outbound policy refuses the metadata address.
    expect(fieldProblem(await decoration({ ...first, api_url: 'http://127.0.0.1:1/' }), 'api_url')).to.be.a('string');
    expect(
      fieldProblem(await decoration({ ...first, api_url: 'http://169.254.169.254/', token: 't' }), 'api_url'),
    ).to.contain('cannot be reached');
    expect(fieldProblem(await decoration({ ...first, platform: 'bitbucket' }), 'platform')).to.be.a('string');
    expect(expectStatus(await decoration(first), 200).token_set).to.equal(true);
  });

  it('lets only those who may change the source set its decoration', async () => {
    const reader = await userWithRole(t.admin, t.anon, { 'catalog.sources': ['r'] });
    const res = await decoration(
      { enabled: true, platform: 'github', api_url: github.url, token: 'x' },
      env.sourceId,
      t.admin.as(reader.token),
    );
    expect(res.status).to.equal(403);
    expect(
      expectStatus(await t.admin.as(reader.token).get(`/api/v1/source/${env.sourceId}/decoration`), 200).token_set,
    ).to.equal(true);
  });

  it('refuses a head commit without the pull request’s number, naming the field', async () => {
    const res = await t.admin
      .withHeaders({ 'content-type': 'application/json' })
      .request('POST', `/api/v1/check/${check}/results?pull_request[head_sha]=${sha('a')}`, undefined, '{}');
    expect(fieldProblem(res, 'pull_request[number]')).to.contain('required');
  });

  it('posts the verdict as one escaped summary comment, the commit status and a review comment', async function () {
    this.timeout(90000);
    await upload(hostileReport([12, 40]), sha('a'));
    const summary = await summaryWhen((b) => b.includes('Quality gate failed'));
    expectTwoNewOneFixedEscaped(summary.body, env.code);
    await until('a review comment', () => (github.reviewComments.get(PR) ?? []).length > 0);
    expect(statusOf(sha('a'))).to.deep.include({ state: 'failure', context: 'bulwark/quality-gate' });
    // One review comment: line 40 is outside the diff, which GitHub refuses.
    const reviews = github.reviewComments.get(PR) ?? [];
    expect(reviews.map((r) => `${r.path}:${r.line}`)).to.deep.equal([`${HOSTILE_PATH}:12`]);
    expect(reviews[0].body).not.to.match(/[^\\]<img/);
  });

  it('updates the same comment in place on a rescan uploaded by the CLI in GitHub Actions, never adding a second', async function () {
    this.timeout(90000);
    const before = await summaryWhen(() => true);
    const token = expectStatus(
      await t.admin.post('/api/v1/token', {
        name: `ci ${env.code}`,
        expires_at: new Date(Date.now() + 86_400_000).toISOString(),
      }),
      200,
    ).token as string;
    const ci = { BULWARK_URL: t.admin.baseUrl, BULWARK_TOKEN: token, BULWARK_CHECK_ID: check };
    expect(await uploadFromGitHubActions(ci, hostileReport([]), sha('b'))).to.equal(0);
    const after = await summaryWhen((b) => b.includes('Quality gate passed'));
    expect(after.id).to.equal(before.id);
    // What the pull request brought and removed again is neither new nor fixed; the base's issue stays fixed.
    expect(after.body).to.contain('**0 new issue(s)**');
    expect(after.body).to.contain('**1 fixed issue(s)**');
    expect(github.issueComments.get(PR)).to.have.length(1);
    await until('the status of the rescan', () => statusOf(sha('b')) !== undefined);
    expect(statusOf(sha('b'))).to.deep.include({ state: 'success' });
    expect(github.reviewComments.get(PR)).to.have.length(1);
  });

  it('retries while GitHub refuses, leaving the scan and its gate as they are, and posts when it is back', async function () {
    this.timeout(120000);
    await refusedThenPosted(t.admin, github, {
      upload: () => upload(hostileReport([13]), sha('c')),
      layerId: env.layerId,
      pullRequest: { number: PR, head_sha: sha('c'), base_branch: 'main' },
      summaries: () => (github.issueComments.get(PR) ?? []).filter((c) => c.body.includes(SUMMARY_MARKER)),
      before: 'Quality gate passed',
      after: ['Quality gate failed', '**1 new issue(s)**'],
      statusOfHead: () => statusOf(sha('c')),
      state: 'failure',
    });
  });
}
