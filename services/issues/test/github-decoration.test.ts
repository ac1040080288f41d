import { expect } from 'chai';
import { GitHubDecorator } from '../src/decoration/github';
import { PullRequestRef, STATUS_CONTEXT } from '../src/decoration/platform';
import { renderReviewComment, reviewMarker } from '../src/decoration/summary';
import { hostile, platformHarness, summaryCommentCases } from './decorator-cases';
import { startGitHubContractServer } from './github-contract-server';

const pr: PullRequestRef = {
  repository: 'acme/shop',
  webUrl: 'https://github.example/acme/shop',
  number: 7,
  headSha: 'a'.repeat(40),
};

describe('pull request decoration on GitHub (contract server checking GitHub OpenAPI)', function () {
  describe('the summary comment', () =>
    summaryCommentCases({
      pr,
      start: async () => {
        const server = await startGitHubContractServer();
        return Object.assign(server, {
          comments: () => server.issueComments.get(7) ?? [],
          seed: (comments: { id: number; body: string }[]) => server.issueComments.set(7, comments),
        });
      },
      connect: (url, token, dispatcher) => GitHubDecorator.connect(url, token, dispatcher),
      sendForbiddenBody: async (server) =>
        (
          await fetch(`${server.url}/repos/acme/shop/statuses/${pr.headSha}`, {
            method: 'POST',
            headers: { authorization: `token ${server.token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ state: 'green', colour: 'red' }),
          })
        ).status,
      refusedWith: 422,
    }));

  const h = platformHarness(
    () => startGitHubContractServer(),
    (url, token, d) => GitHubDecorator.connect(url, token, d),
  );

  it('links a file:line into the pull request’s files page', () => {
    expect(h.decorator.diffLink(pr, 'src/app.ts', 3)).to.match(
      /^https:\/\/github\.example\/acme\/shop\/pull\/7\/files#diff-[0-9a-f]{64}R3$/,
    );
  });

  it('sets the commit status of the head commit', async () => {
    await h.decorator.setStatus(pr, 'failure', 'Quality gate failed: High issues: 1 > 0', 'https://bulwark.example/x');
    expect(h.server.statuses.at(-1)).to.deep.include({ sha: pr.headSha, state: 'failure', context: STATUS_CONTEXT });
  });

  it('posts a review comment once per issue, on changed lines only', async () => {
    h.server.diffLines.add('src/<b>db</b>.ts:12');
    const outside = { ...hostile, id: '5d0f1c1e-0000-4000-8000-000000000002', line: 99 };
    const comments = [hostile, outside].map((i) => ({
      marker: reviewMarker(i.id),
      body: renderReviewComment(i),
      path: i.path,
      line: i.line,
    }));
    expect(await h.decorator.addReviewComments(pr, comments)).to.equal(1);
    expect(await h.decorator.addReviewComments(pr, comments)).to.equal(0);
    const posted = h.server.reviewComments.get(7) ?? [];
    expect(posted).to.have.length(1);
    expect(posted[0].body).to.contain(reviewMarker(hostile.id));
    expect(posted[0].body).not.to.match(/[^\\]<img/);
  });
});
