import { expect } from 'chai';
import { OutboundPolicy, outboundDispatcher, readOutboundPolicy } from '@bulwark/platform';
import type { Agent } from 'undici';
import { GitLabDecorator } from '../src/decoration/gitlab';
import { PlatformRefused, PullRequestRef, STATUS_CONTEXT } from '../src/decoration/platform';
import { renderReviewComment, renderSummary, reviewMarker, SUMMARY_MARKER } from '../src/decoration/summary';
import { GitLabContractServer, startGitLabContractServer } from './gitlab-contract-server';

const mr: PullRequestRef = {
  repository: 'group/sub/shop',
  webUrl: 'https://gitlab.example/group/sub/shop',
  number: 7,
  headSha: 'a'.repeat(40),
};
const hostile = {
  id: '5d0f1c1e-0000-4000-8000-000000000001',
  severity: 'High',
  title: 'SQLi [click](https://evil.example) @admin !12 <img src=x onerror=alert(1)>',
  path: 'src/<b>db</b>.ts',
  line: 12,
};

describe('merge request decoration on GitLab (contract server checking GitLab’s documented request shapes)', function () {
  let gitlab: GitLabContractServer;
  let agent: Agent;
  let decorator: GitLabDecorator;
  const summary = (verdict: 'passed' | 'failed', newIssues = [hostile]) =>
    renderSummary({
      verdict,
      failedConditions: verdict === 'failed' ? ['High issues: 1 > 0'] : [],
      newIssues,
      fixedIssues: [],
      consoleUrl: 'https://bulwark.example/projects/SHOP',
      diffLink: (path) => decorator.diffLink(mr, path),
    });
  const refusal = (p: Promise<unknown>) =>
    p.then(
      () => undefined,
      (err: unknown) => err,
    );

  before(async () => {
    gitlab = await startGitLabContractServer();
    agent = outboundDispatcher(readOutboundPolicy({ OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32' }));
    decorator = GitLabDecorator.connect(gitlab.url, gitlab.token, agent);
  });
  after(async () => {
    await agent.close();
    await gitlab.close();
  });
  afterEach(() => expect(gitlab.violations).to.deep.equal([]));

  it('has a contract server that refuses a body GitLab’s documentation does not allow', async () => {
    const res = await fetch(`${gitlab.url}/projects/group%2Fsub%2Fshop/statuses/${mr.headSha}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gitlab.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ state: 'failure', colour: 'red' }),
    });
    expect(res.status).to.equal(400);
    expect(gitlab.violations.splice(0)).to.have.length(1);
  });

  it('posts the first summary note, escaped, with the marker and links into the diff', async () => {
    const id = await decorator.upsertSummary(mr, summary('failed'));
    const notes = gitlab.notes.get(7) ?? [];
    expect(notes).to.have.length(1);
    expect(notes[0].id).to.equal(id);
    expect(notes[0].body).to.contain(SUMMARY_MARKER);
    expect(notes[0].body).to.contain('❌ Quality gate failed');
    expect(notes[0].body).to.contain('https://gitlab.example/group/sub/shop/-/merge_requests/7/diffs#');
    expect(notes[0].body).not.to.contain('[click](https://evil');
    expect(notes[0].body).not.to.match(/[^\\]<(img|b)\b/);
    expect(notes[0].body).not.to.contain('@admin');
    expect(notes[0].body).not.to.contain('!12');
  });

  it('updates the same note in place on a rescan, never adding one', async () => {
    const first = (gitlab.notes.get(7) ?? [])[0].id;
    expect(await decorator.upsertSummary(mr, summary('passed', []))).to.equal(first);
    expect(gitlab.notes.get(7)).to.have.length(1);
    expect(gitlab.notes.get(7)?.[0].body).to.contain('✅ Quality gate passed');
  });

  it('leaves an unchanged note alone on a rerun of the same scan', async () => {
    const before = gitlab.requests.length;
    await decorator.upsertSummary(mr, summary('passed', []));
    expect(gitlab.requests.slice(before).filter((r) => !r.startsWith('GET'))).to.deep.equal([]);
    expect(gitlab.notes.get(7)).to.have.length(1);
  });

  it('finds its note among other people’s notes on later pages', async () => {
    const other = await startGitLabContractServer();
    try {
      const d = GitLabDecorator.connect(other.url, other.token, agent);
      other.notes.set(
        7,
        Array.from({ length: 150 }, (_, i) => ({ id: i + 1, body: `a person's note ${i}` })),
      );
      const id = await d.upsertSummary(mr, summary('failed'));
      await d.upsertSummary(mr, summary('passed', []));
      expect(other.notes.get(7)?.filter((n) => n.body.includes(SUMMARY_MARKER))).to.deep.equal([
        { id, body: summary('passed', []) },
      ]);
      expect(other.violations).to.deep.equal([]);
    } finally {
      await other.close();
    }
  });

  it('sets the commit status of the head commit in GitLab’s states', async () => {
    await decorator.setStatus(mr, 'failure', 'Quality gate failed: High issues: 1 > 0', 'https://bulwark.example/x');
    expect(gitlab.statuses.at(-1)).to.deep.include({ sha: mr.headSha, state: 'failed', name: STATUS_CONTEXT });
    await decorator.setStatus(mr, 'success', 'Quality gate passed', 'https://bulwark.example/x');
    expect(gitlab.statuses.at(-1)).to.deep.include({ state: 'success' });
  });

  it('opens a discussion once per issue on changed lines only, positioned with the merge request’s diff refs', async () => {
    gitlab.diffLines.add('src/<b>db</b>.ts:12');
    const outside = { ...hostile, id: '5d0f1c1e-0000-4000-8000-000000000002', line: 99 };
    const comments = [hostile, outside].map((i) => ({
      marker: reviewMarker(i.id),
      body: renderReviewComment(i),
      path: i.path,
      line: i.line,
    }));
    expect(await decorator.addReviewComments(mr, comments)).to.equal(1);
    expect(await decorator.addReviewComments(mr, comments)).to.equal(0);
    const posted = gitlab.discussions.get(7) ?? [];
    expect(posted).to.have.length(1);
    expect(posted[0].position).to.deep.include({ ...gitlab.diffRefs, position_type: 'text', new_path: hostile.path });
    expect(posted[0].notes[0].body).to.contain(reviewMarker(hostile.id));
    expect(posted[0].notes[0].body).not.to.match(/[^\\]<img/);
  });

  it('opens no discussion when the merge request has moved past the scanned commit', async () => {
    const later = { ...hostile, id: '5d0f1c1e-0000-4000-8000-000000000003' };
    const comment = { marker: reviewMarker(later.id), body: renderReviewComment(later), path: later.path, line: 12 };
    expect(await decorator.addReviewComments({ ...mr, headSha: 'c'.repeat(40) }, [comment])).to.equal(0);
    expect(gitlab.discussions.get(7)).to.have.length(1);
  });

  it('fails while GitLab refuses, changing nothing, and succeeds when it is back', async () => {
    gitlab.refusing = true;
    const error = await refusal(decorator.upsertSummary(mr, summary('failed')));
    expect(error).to.be.instanceOf(PlatformRefused);
    expect((error as PlatformRefused).status).to.equal(503);
    gitlab.refusing = false;
    await decorator.upsertSummary(mr, summary('failed'));
    expect(gitlab.notes.get(7)).to.have.length(1);
    expect(gitlab.notes.get(7)?.[0].body).to.contain('❌ Quality gate failed');
  });

  it('sends nothing to an address the outbound policy denies', async () => {
    const strictAgent = outboundDispatcher(new OutboundPolicy());
    try {
      const d = GitLabDecorator.connect(gitlab.url, gitlab.token, strictAgent);
      const before = gitlab.requests.length;
      expect(await refusal(d.upsertSummary(mr, summary('failed')))).to.be.instanceOf(Error);
      expect(gitlab.requests.length).to.equal(before);
    } finally {
      await strictAgent.close();
    }
  });

  it('sends the token only as the Authorization header: a wrong one is refused', async () => {
    const d = GitLabDecorator.connect(gitlab.url, 'wrong', agent);
    const error = await refusal(d.upsertSummary(mr, summary('failed')));
    expect((error as PlatformRefused).status).to.equal(401);
  });
});
