import { expect } from 'chai';
import {
  type Balancer,
  expectStatus,
  freePort,
  gateOnHighs,
  type GiteaServer,
  type Json,
  manualCheck,
  projectWithSource,
  type ProjectSetup,
  requireInfra,
  startBalancer,
  type SystemUnderTest,
  uniqueSuffix,
  uploadAndIngest,
} from '@bulwark/testkit';
import { STATUS_CONTEXT } from '../src/decoration/platform';
import { SUMMARY_MARKER } from '../src/decoration/summary';
import { MANUAL_TOOL_TYPE } from '../../scanning/test/scanning.suite';
import { expectTwoNewOneFixedEscaped, HOSTILE_TITLE, hostileReport } from './decoration-fixtures';
import { type GiteaComment, GiteaPullRequest, type GiteaStatus } from './gitea-repository';

/** Polls `read` until `done` holds of its answer; answers that. */
async function eventually<T>(what: string, read: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 60000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`never: ${what}; last: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

/**
 * Pull request decoration against a real Gitea (deploy/local/gitea.sh): Gitea's API follows GitHub's
 * for issue comments and commit statuses, so the source is set to the GitHub platform with Gitea's
 * API address, and every assertion reads back what Gitea stored. Review comments on changed lines
 * are GitHub's alone (Gitea has no GitHub-shaped review comment API): they stay off
 * (`review_min_severity: none`) and are covered by the GitHub contract server suite. Bulwark reaches
 * Gitea through a TCP forwarder, so the test can make Gitea unreachable and bring it back at the same
 * address without stopping the Gitea other suites share.
 */
export function giteaDecorationSuite(t: SystemUnderTest): void {
  let gitea: GiteaServer;
  let pr: GiteaPullRequest;
  let env: ProjectSetup;
  let check: string;
  let front: Balancer;
  /** The head commit of the rescan, scanned again by the rerun. */
  let rescanned: string;

  const upload = async (report: string, headSha: string) => {
    const query = `pull_request[number]=${pr.number}&pull_request[head_sha]=${headSha}&pull_request[base_branch]=main`;
    const res = await t.admin
      .withHeaders({ 'content-type': 'application/json' })
      .request('POST', `/api/v1/check/${check}/results?${query}`, undefined, report);
    return expectStatus(res, 200).scan_result_id as string;
  };
  const decoration = (token: string) =>
    t.admin.request('PUT', `/api/v1/source/${env.sourceId}/decoration`, {
      enabled: true,
      platform: 'github',
      api_url: `http://${front.address}/api/v1`,
      token,
      review_min_severity: 'none',
    });
  const summaries = async () => (await pr.comments()).filter((c) => c.body.includes(SUMMARY_MARKER));
  /** Waits until the pull request's one summary comment satisfies `done`; answers it. */
  const summaryWhen = async (done: (body: string) => boolean): Promise<GiteaComment> => {
    const found = await eventually('the summary comment as expected', summaries, (cs) => cs.some((c) => done(c.body)));
    expect(found, 'one summary comment').to.have.length(1);
    return found[0];
  };
  const ours = (statuses: GiteaStatus[]) => statuses.filter((s) => s.context === STATUS_CONTEXT);
  /** Waits until the head commit has Bulwark's status; answers the newest. */
  const statusOf = async (sha: string) =>
    ours(
      await eventually(
        `the status of ${sha}`,
        () => pr.statuses(sha),
        (s) => ours(s).length > 0,
      ),
    )[0];
  /** Waits until the error log has a failed delivery of the scan's verdict: Bulwark tried and will try again. */
  const failedDelivery = (scan: string) =>
    eventually(
      `a failed delivery of scan ${scan}`,
      async () =>
        expectStatus(
          await t.admin.get(`/api/v1/errors-log?filter[code]=decoration.failed&search[message]=${scan}&limit=10`),
          200,
        ).items as Json[],
      (items) => items.length > 0,
    );
  /** The scan completed with its pull request and the layer's gate has its verdict, as without decoration. */
  const scanAndGateAsWithout = async (scan: string, headSha: string, locked: boolean) => {
    const result = expectStatus(await t.admin.get(`/api/v1/scan-result/${scan}`), 200);
    expect(result.state).to.equal('completed');
    expect(result.pull_request).to.deep.equal({ number: pr.number, head_sha: headSha, base_branch: 'main' });
    const gate = expectStatus(await t.admin.get(`/api/v1/quality-gate/layer/${env.layerId}`), 200);
    expect(gate).to.include({ last_scan_result_id: scan, locked });
  };

  before(async function () {
    this.timeout(60000);
    gitea = requireInfra(this, 'gitea').gitea;
    pr = await GiteaPullRequest.open(gitea);
    // Below the ephemeral range (freePort), so no outgoing connection takes the port while it is closed.
    front = await startBalancer([new URL(gitea.url).host], await freePort());
    env = await projectWithSource(t.admin, {
      code: `GTD${uniqueSuffix()}`.slice(0, 32),
      sourceUrl: `${gitea.url}/${pr.repository}.git`,
      toolTypes: [MANUAL_TOOL_TYPE],
    });
    await gateOnHighs(t.admin, env.layerId, `Gitea pull requests ${env.code}`, 'lock');
    check = await manualCheck(t.admin, env);
    // The base branch's scan, before the pull request: its one issue is what the pull request fixes.
    await uploadAndIngest(t.admin, check, hostileReport([50], 'src/base.py'), 1);
    expectStatus(await decoration(gitea.token), 200);
  });
  after(async () => {
    await front?.close();
  });

  it('posts the verdict as one comment whose hostile titles and paths Gitea shows as text, and the gate as the head commit’s status', async function () {
    this.timeout(90000);
    await upload(hostileReport([12, 40]), pr.headSha);
    const summary = await summaryWhen((b) => b.includes('Quality gate failed'));
    expectTwoNewOneFixedEscaped(summary.body, env.code);
    // What a reviewer sees: Gitea renders the title as it came as an image and a link, and the
    // posted comment with neither (nor the path's tags), the texts shown as they are.
    const raw = await pr.rendered(HOSTILE_TITLE);
    expect(raw).to.match(/<img /).and.to.contain('href="https://evil.example"');
    const html = await pr.rendered(summary.body);
    expect(html).to.contain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).not.to.match(/<img |<b>db<\/b>|href="https:\/\/evil\.example/);
    expect(await statusOf(pr.headSha)).to.include({ status: 'failure', context: STATUS_CONTEXT });
  });

  it('updates the same comment in place on a rescan of a new head commit, never adding a second', async function () {
    this.timeout(90000);
    const before = await summaryWhen(() => true);
    rescanned = await pr.push('src/fix.py');
    await upload(hostileReport([]), rescanned);
    const after = await summaryWhen((b) => b.includes('Quality gate passed'));
    expect(after.id).to.equal(before.id);
    // What the pull request brought and removed again is neither new nor fixed; the base's issue stays fixed.
    expect(after.body).to.contain('**0 new issue(s)**');
    expect(after.body).to.contain('**1 fixed issue(s)**');
    expect(await statusOf(rescanned)).to.include({ status: 'success' });
  });

  it('changes nothing on the pull request when the same head is scanned again: still the one comment, as it was', async function () {
    this.timeout(90000);
    const [comment] = await summaries();
    const statuses = ours(await pr.statuses(rescanned)).length;
    await upload(hostileReport([]), rescanned);
    // A second status shows the rerun was delivered.
    await eventually(
      'the status of the rerun',
      () => pr.statuses(rescanned),
      (s) => ours(s).length > statuses,
    );
    expect(await summaries()).to.deep.equal([comment]);
  });

  it('leaves the scan and its gate as they are while Gitea refuses the token, and posts once it is accepted again', async function () {
    this.timeout(120000);
    const [before] = await summaries();
    expectStatus(await decoration('not-a-gitea-token'), 200);
    const head = await pr.push('src/refused.py');
    const scan = await upload(hostileReport([13]), head);
    await failedDelivery(scan);
    await scanAndGateAsWithout(scan, head, true);
    expect(await summaries()).to.deep.equal([before]);
    expect(ours(await pr.statuses(head))).to.deep.equal([]);
    expectStatus(await decoration(gitea.token), 200);
    const after = await summaryWhen((b) => b.includes('Quality gate failed') && b.includes('**1 new issue(s)**'));
    expect(after.id).to.equal(before.id);
    expect(await statusOf(head)).to.include({ status: 'failure' });
  });

  it('leaves the scan and its gate as they are while Gitea cannot be reached, and posts once it answers again', async function () {
    this.timeout(120000);
    const [before] = await summaries();
    const address = front.address;
    await front.close();
    const head = await pr.push('src/unreachable.py');
    const scan = await upload(hostileReport([]), head);
    await failedDelivery(scan);
    await scanAndGateAsWithout(scan, head, false);
    expect(await summaries()).to.deep.equal([before]);
    front = await startBalancer([new URL(gitea.url).host], Number(address.split(':')[1]));
    const after = await summaryWhen((b) => b.includes('Quality gate passed'));
    expect(after.id).to.equal(before.id);
    expect(await statusOf(head)).to.include({ status: 'success' });
  });
}
