import { expect } from 'chai';
import { OutboundPolicy, outboundDispatcher, readOutboundPolicy } from '@bulwark/platform';
import type { Agent } from 'undici';
import { GitHubDecorator } from '../src/decoration/github';
import { PullRequestRef, STATUS_CONTEXT } from '../src/decoration/platform';
import { renderReviewComment, renderSummary, reviewMarker, SUMMARY_MARKER } from '../src/decoration/summary';
import { GitHubContractServer, startGitHubContractServer } from './github-contract-server';

const pr: PullRequestRef = {
  repository: 'acme/shop',
  webUrl: 'https://github.example/acme/shop',
  number: 7,
  headSha: 'a'.repeat(40),
};
const hostile = {
  id: '5d0f1c1e-0000-4000-8000-000000000001',
  severity: 'High',
  title: 'SQLi [click](https://evil.example) @admin <img src=x onerror=alert(1)>',
  path: 'src/<b>db</b>.ts',
  line: 12,
};
const summary = (verdict: 'passed' | 'failed', newIssues = [hostile]) =>
  renderSummary({
    verdict,
    failedConditions: verdict === 'failed' ? ['High issues: 1 > 0'] : [],
    newIssues,
    fixedIssues: [],
    consoleUrl: 'https://bulwark.example/projects/SHOP/scans/1',
    diffLink: (path: string) => `https://github.example/acme/shop/pull/7/files#${encodeURIComponent(path)}`,
  });

describe('pull request decoration on GitHub (contract server checking GitHub OpenAPI)', function () {
  let github: GitHubContractServer;
  let agent: Agent;
  let decorator: GitHubDecorator;

  before(async () => {
    github = await startGitHubContractServer();
    agent = outboundDispatcher(readOutboundPolicy({ OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32' }));
    decorator = await GitHubDecorator.connect(github.url, github.token, agent);
  });
  after(async () => {
    await agent.close();
    await github.close();
  });
  afterEach(() => expect(github.violations).to.deep.equal([]));

  it('has a contract server that refuses a body GitHub’s description does not allow', async () => {
    const res = await fetch(`${github.url}/repos/acme/shop/statuses/${pr.headSha}`, {
      method: 'POST',
      headers: { authorization: `token ${github.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ state: 'green', colour: 'red' }),
    });
    expect(res.status).to.equal(422);
    expect(github.violations.splice(0)).to.have.length(1);
  });

  it('posts the first summary comment, escaped, with the marker', async () => {
    const id = await decorator.upsertSummary(pr, summary('failed'));
    const comments = github.issueComments.get(7) ?? [];
    expect(comments).to.have.length(1);
    expect(comments[0].id).to.equal(id);
    expect(comments[0].body).to.contain(SUMMARY_MARKER);
    expect(comments[0].body).to.contain('❌ Quality gate failed');
    expect(comments[0].body).not.to.contain('[click](https://evil');
    expect(comments[0].body).to.contain('\\<img');
    expect(comments[0].body).not.to.match(/[^\\]<(img|b)\b/);
    expect(comments[0].body).not.to.contain('@admin');
  });

  it('updates the same comment in place on a rescan, never adding one', async () => {
    const first = (github.issueComments.get(7) ?? [])[0].id;
    const id = await decorator.upsertSummary(pr, summary('passed', []));
    expect(id).to.equal(first);
    expect(github.issueComments.get(7)).to.have.length(1);
    expect(github.issueComments.get(7)?.[0].body).to.contain('✅ Quality gate passed');
  });

  it('leaves an unchanged comment alone on a rerun of the same scan', async () => {
    const before = github.requests.length;
    await decorator.upsertSummary(pr, summary('passed', []));
    expect(github.requests.slice(before).filter((r) => r.startsWith('PATCH') || r.startsWith('POST'))).to.deep.equal(
      [],
    );
    expect(github.issueComments.get(7)).to.have.length(1);
  });

  it('finds its comment among other people’s comments on later pages', async () => {
    const other = await startGitHubContractServer();
    const otherAgent = outboundDispatcher(readOutboundPolicy({ OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32' }));
    try {
      const d = await GitHubDecorator.connect(other.url, other.token, otherAgent);
      other.issueComments.set(
        7,
        Array.from({ length: 150 }, (_, i) => ({ id: i + 1, body: `a person's comment ${i}` })),
      );
      const id = await d.upsertSummary(pr, summary('failed'));
      await d.upsertSummary(pr, summary('passed', []));
      expect(other.issueComments.get(7)?.filter((c) => c.body.includes(SUMMARY_MARKER))).to.deep.equal([
        { id, body: summary('passed', []) },
      ]);
    } finally {
      await otherAgent.close();
      await other.close();
    }
  });

  it('sets the commit status of the head commit', async () => {
    await decorator.setStatus(pr, 'failure', 'Quality gate failed: High issues: 1 > 0', 'https://bulwark.example/x');
    expect(github.statuses.at(-1)).to.deep.include({ sha: pr.headSha, state: 'failure', context: STATUS_CONTEXT });
  });

  it('posts a review comment once per issue, on changed lines only', async () => {
    github.diffLines.add('src/<b>db</b>.ts:12');
    const outside = { ...hostile, id: '5d0f1c1e-0000-4000-8000-000000000002', line: 99 };
    const comments = [hostile, outside].map((i) => ({
      marker: reviewMarker(i.id),
      body: renderReviewComment(i),
      path: i.path,
      line: i.line,
    }));
    expect(await decorator.addReviewComments(pr, comments)).to.equal(1);
    expect(await decorator.addReviewComments(pr, comments)).to.equal(0);
    const posted = github.reviewComments.get(7) ?? [];
    expect(posted).to.have.length(1);
    expect(posted[0].body).to.contain(reviewMarker(hostile.id));
    expect(posted[0].body).not.to.match(/[^\\]<img/);
  });

  it('fails while GitHub refuses, changing nothing, and succeeds when it is back', async () => {
    github.refusing = true;
    const retrying = await GitHubDecorator.connect(github.url, github.token, agent);
    const error = await retrying.upsertSummary(pr, summary('failed')).then(
      () => undefined,
      (err: { status?: number }) => err,
    );
    expect(error?.status).to.equal(503);
    github.refusing = false;
    await retrying.upsertSummary(pr, summary('failed'));
    expect(github.issueComments.get(7)).to.have.length(1);
    expect(github.issueComments.get(7)?.[0].body).to.contain('❌ Quality gate failed');
  });

  it('sends nothing to an address the outbound policy denies', async () => {
    const strict = outboundDispatcher(new OutboundPolicy());
    try {
      const d = await GitHubDecorator.connect(github.url, github.token, strict);
      const before = github.requests.length;
      const error = await d.upsertSummary(pr, summary('failed')).then(
        () => undefined,
        (err: Error) => err,
      );
      expect(error).to.be.instanceOf(Error);
      expect(github.requests.length).to.equal(before);
    } finally {
      await strict.close();
    }
  });

  it('sends the token only as the Authorization header: a wrong one is refused', async () => {
    const d = await GitHubDecorator.connect(github.url, 'wrong', agent);
    const error = await d.upsertSummary(pr, summary('failed')).then(
      () => undefined,
      (err: { status?: number }) => err,
    );
    expect(error?.status).to.equal(401);
  });
});
