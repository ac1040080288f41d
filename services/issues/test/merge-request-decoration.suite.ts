import { expect } from 'chai';
import {
  expectStatus,
  gateOnHighs,
  type Json,
  manualCheck,
  projectWithSource,
  type ProjectSetup,
  type SystemUnderTest,
  uniqueSuffix,
  uploadAndIngest,
} from '@bulwark/testkit';
import { SUMMARY_MARKER } from '../src/decoration/summary';
import {
  commentWhen,
  expectTwoNewOneFixedEscaped,
  HOSTILE_PATH,
  hostileReport,
  refusedThenPosted,
  until,
} from './decoration-fixtures';
import { type GitLabContractServer, startGitLabContractServer } from './gitlab-contract-server';

const MANUAL_TOOL_TYPE = 20;
const MR = 7;
const REPOSITORY = 'https://gitlab.example/group/sub/shop.git';

/**
 * Merge request decoration on GitLab through the product: a source's decoration settings with
 * `platform: gitlab`, uploads naming the merge request, and the verdict on the merge request of a
 * contract server that checks every request against GitLab's documented request shapes
 * (gitlab-contract-server.ts). Also what the comment compares with (the base branch's latest scan,
 * or none yet) and a source without decoration settings.
 */
export function mergeRequestDecorationSuite(t: SystemUnderTest): void {
  let gitlab: GitLabContractServer;
  let env: ProjectSetup;
  let check: string;

  const sha = (c: string) => c.repeat(40);
  const upload = async (checkId: string, report: string, mr: number, headSha: string) => {
    const query = `pull_request[number]=${mr}&pull_request[head_sha]=${headSha}&pull_request[base_branch]=main`;
    const res = await t.admin
      .withHeaders({ 'content-type': 'application/json' })
      .request('POST', `/api/v1/check/${checkId}/results?${query}`, undefined, report);
    return expectStatus(res, 200).scan_result_id as string;
  };
  /** Waits until the scan's issues are listed: its decoration is queued by then. */
  const ingested = async (scan: string) => {
    for (const deadline = Date.now() + 30000; ; await new Promise((r) => setTimeout(r, 200))) {
      const res = await t.admin.get(`/api/v1/issues?limit=10&filter[scan]=${scan}`);
      if (res.status === 200 && (res.body.items as Json[]).length > 0) return;
      if (Date.now() > deadline) throw new Error(`scan ${scan} not ingested`);
    }
  };
  const noteWhen = (done: (body: string) => boolean, mr = MR) =>
    commentWhen(() => gitlab.notes.get(mr) ?? [], SUMMARY_MARKER, done);
  const statusesOf = (headSha: string) => gitlab.statuses.filter((s) => s.sha === headSha);
  const decoration = (sourceId: string) =>
    t.admin.request('PUT', `/api/v1/source/${sourceId}/decoration`, {
      enabled: true,
      platform: 'gitlab',
      api_url: gitlab.url,
      token: gitlab.token,
      review_min_severity: 'high',
    });
  const newSource = () =>
    projectWithSource(t.admin, {
      code: `MRD${uniqueSuffix()}`.slice(0, 32),
      sourceUrl: REPOSITORY,
      toolTypes: [MANUAL_TOOL_TYPE],
    });

  before(async function () {
    this.timeout(60000);
    gitlab = await startGitLabContractServer('group/sub/shop');
    gitlab.diffLines.add(`${HOSTILE_PATH}:12`);
    env = await newSource();
    await gateOnHighs(t.admin, env.layerId, `merge requests ${env.code}`, 'lock');
    check = await manualCheck(t.admin, env);
    expect(expectStatus(await decoration(env.sourceId), 200)).to.deep.include({ platform: 'gitlab', token_set: true });
  });
  after(async () => {
    await gitlab?.close();
  });
  afterEach(() => expect(gitlab.violations).to.deep.equal([]));

  it('says there is no scan of the base branch to compare with, rather than guess, and still gives the verdict', async function () {
    this.timeout(90000);
    await upload(check, hostileReport([12, 40]), MR, sha('a'));
    const note = await noteWhen((b) => b.includes('Quality gate failed'));
    expect(note.body).to.contain('No scan of main to compare with');
    expect(note.body).not.to.contain('new issue(s)');
    await until('the commit status', () => statusesOf(sha('a')).length > 0);
    expect(statusesOf(sha('a'))[0]).to.deep.include({ state: 'failed', name: 'bulwark/quality-gate' });
    expect(gitlab.discussions.get(MR) ?? []).to.deep.equal([]);
  });

  it('compares with the base branch’s latest scan once there is one: the same note updated, escaped, and a discussion on the changed line', async function () {
    this.timeout(90000);
    const first = await noteWhen(() => true);
    await uploadAndIngest(t.admin, check, hostileReport([50], 'src/base.py'), 1);
    await upload(check, hostileReport([12, 40]), MR, sha('a'));
    const note = await noteWhen((b) => b.includes('Compared with the latest scan of main'));
    expect(note.id).to.equal(first.id);
    expect(gitlab.notes.get(MR)).to.have.length(1);
    expectTwoNewOneFixedEscaped(note.body, env.code);
    expect(note.body).to.contain('/group/sub/shop/-/merge_requests/7/diffs#');
    // One discussion: line 40 is outside the diff, which GitLab refuses.
    await until('a discussion', () => (gitlab.discussions.get(MR) ?? []).length > 0);
    const discussions = gitlab.discussions.get(MR) ?? [];
    expect(discussions.map((d) => `${d.position?.new_path}:${d.position?.new_line}`)).to.deep.equal([
      `${HOSTILE_PATH}:12`,
    ]);
    expect(discussions[0].position).to.deep.include(gitlab.diffRefs);
    expect(discussions[0].notes[0].body).not.to.match(/[^\\]<img/);
  });

  it('changes nothing on a rerun of the same upload: no second note, no note rewritten, no second discussion', async function () {
    this.timeout(90000);
    const statuses = statusesOf(sha('a')).length;
    const from = gitlab.requests.length;
    await upload(check, hostileReport([12, 40]), MR, sha('a'));
    await until('the rerun delivered', () => statusesOf(sha('a')).length > statuses);
    expect(gitlab.requests.slice(from).filter((r) => r.startsWith('PUT') || r.endsWith('/notes'))).to.deep.equal([
      `GET /api/v4/projects/group%2Fsub%2Fshop/merge_requests/${MR}/notes`,
    ]);
    expect(gitlab.notes.get(MR)).to.have.length(1);
    expect(gitlab.discussions.get(MR)).to.have.length(1);
  });

  it('retries while GitLab refuses, leaving the scan and its gate as they are, and posts when it is back', async function () {
    this.timeout(120000);
    gitlab.diffRefs = { ...gitlab.diffRefs, head_sha: sha('c') };
    await refusedThenPosted(t.admin, gitlab, {
      upload: () => upload(check, hostileReport([13]), MR, sha('c')),
      layerId: env.layerId,
      pullRequest: { number: MR, head_sha: sha('c'), base_branch: 'main' },
      summaries: () => (gitlab.notes.get(MR) ?? []).filter((n) => n.body.includes(SUMMARY_MARKER)),
      before: '**2 new issue(s)**',
      after: ['**1 new issue(s)**', '**1 fixed issue(s)**'],
      statusOfHead: () => statusesOf(sha('c'))[0],
      state: 'failed',
    });
  });

  it('posts nothing for a source without decoration settings, and does not keep its verdict to post later', async function () {
    this.timeout(120000);
    const bare = await newSource();
    const bareCheck = await manualCheck(t.admin, bare);
    const unset = 8;
    const bareScan = await upload(bareCheck, hostileReport([12]), unset, sha('d'));
    await ingested(bareScan);
    // A later verdict of the decorated source is delivered after the bare one's (claimed in order).
    await upload(check, hostileReport([]), MR, sha('e'));
    await noteWhen((b) => b.includes('Quality gate passed'));
    expect(gitlab.notes.get(unset)).to.equal(undefined);
    const logged = expectStatus(await t.admin.get(`/api/v1/errors-log?filter[service]=issues&limit=1000`), 200)
      .items as Json[];
    expect(logged.filter((e) => e.subject === bare.sourceId)).to.deep.equal([]);
    // Set now, the source's decoration posts the next verdict only: the earlier one was closed, not kept.
    expectStatus(await decoration(bare.sourceId), 200);
    await upload(check, hostileReport([12]), MR, sha('f'));
    await noteWhen((b) => b.includes('Quality gate failed') && b.includes('**1 new issue(s)**'));
    expect(gitlab.notes.get(unset)).to.equal(undefined);
  });
}
