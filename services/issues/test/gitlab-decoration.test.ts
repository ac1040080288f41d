import { expect } from 'chai';
import { GitLabDecorator } from '../src/decoration/gitlab';
import { PullRequestRef, STATUS_CONTEXT } from '../src/decoration/platform';
import { renderReviewComment, reviewMarker } from '../src/decoration/summary';
import { hostile, platformHarness, summaryCommentCases } from './decorator-cases';
import { startGitLabContractServer } from './gitlab-contract-server';

const mr: PullRequestRef = {
  repository: 'group/sub/shop',
  webUrl: 'https://gitlab.example/group/sub/shop',
  number: 7,
  headSha: 'a'.repeat(40),
};
const reviewOf = (i: typeof hostile) => ({
  marker: reviewMarker(i.id),
  body: renderReviewComment(i),
  path: i.path,
  line: i.line,
});

describe('merge request decoration on GitLab (contract server checking GitLab’s documented request shapes)', function () {
  describe('the summary note', () =>
    summaryCommentCases({
      pr: mr,
      start: async () => {
        const server = await startGitLabContractServer();
        return Object.assign(server, {
          comments: () => server.notes.get(7) ?? [],
          seed: (notes: { id: number; body: string }[]) => server.notes.set(7, notes),
        });
      },
      connect: (url, token, dispatcher) => Promise.resolve(GitLabDecorator.connect(url, token, dispatcher)),
      sendForbiddenBody: async (server) =>
        (
          await fetch(`${server.url}/projects/group%2Fsub%2Fshop/statuses/${mr.headSha}`, {
            method: 'POST',
            headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ state: 'failure', colour: 'red' }),
          })
        ).status,
      refusedWith: 400,
    }));

  const h = platformHarness(
    () => startGitLabContractServer(),
    (url, token, d) => Promise.resolve(GitLabDecorator.connect(url, token, d)),
  );

  it('links a file into the merge request’s diff', () => {
    expect(h.decorator.diffLink(mr, 'src/app.ts')).to.match(
      /^https:\/\/gitlab\.example\/group\/sub\/shop\/-\/merge_requests\/7\/diffs#[0-9a-f]{40}$/,
    );
  });

  it('sets the commit status of the head commit in GitLab’s states', async () => {
    await h.decorator.setStatus(mr, 'failure', 'Quality gate failed: High issues: 1 > 0', 'https://bulwark.example/x');
    expect(h.server.statuses.at(-1)).to.deep.include({ sha: mr.headSha, state: 'failed', name: STATUS_CONTEXT });
    await h.decorator.setStatus(mr, 'success', 'Quality gate passed', 'https://bulwark.example/x');
    expect(h.server.statuses.at(-1)).to.deep.include({ state: 'success' });
  });

  it('opens a discussion once per issue on changed lines only, positioned with the merge request’s diff refs', async () => {
    h.server.diffLines.add('src/<b>db</b>.ts:12');
    const comments = [hostile, { ...hostile, id: '5d0f1c1e-0000-4000-8000-000000000002', line: 99 }].map(reviewOf);
    expect(await h.decorator.addReviewComments(mr, comments)).to.equal(1);
    expect(await h.decorator.addReviewComments(mr, comments)).to.equal(0);
    const posted = h.server.discussions.get(7) ?? [];
    expect(posted).to.have.length(1);
    expect(posted[0].position).to.deep.include({ ...h.server.diffRefs, position_type: 'text', new_path: hostile.path });
    expect(posted[0].notes[0].body).to.contain(reviewMarker(hostile.id));
    expect(posted[0].notes[0].body).not.to.match(/[^\\]<img/);
  });

  it('opens no discussion when the merge request has moved past the scanned commit', async () => {
    const later = reviewOf({ ...hostile, id: '5d0f1c1e-0000-4000-8000-000000000003' });
    expect(await h.decorator.addReviewComments({ ...mr, headSha: 'c'.repeat(40) }, [later])).to.equal(0);
    expect(h.server.discussions.get(7)).to.have.length(1);
  });
});
