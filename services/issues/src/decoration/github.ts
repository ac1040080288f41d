// `@octokit/rest` is an ES module and this service CommonJS: its types by attribute, its code by import().
import type { Octokit } from '@octokit/rest' with { 'resolution-mode': 'import' };
import { createHash } from 'node:crypto';
import type { Dispatcher } from 'undici';
import { fetch as undiciFetch } from 'undici';
import { DecorationPlatform, GateState, PullRequestRef, ReviewComment, STATUS_CONTEXT } from './platform';
import { SUMMARY_MARKER } from './summary';

/** The owner and name of a GitHub repository path (`owner/repo`). */
const ownerRepo = (pr: PullRequestRef) => {
  const [owner, repo] = pr.repository.split('/');
  return { owner, repo };
};

/**
 * Decorates GitHub pull requests through the REST API (`@octokit/rest`): every call goes through the
 * given dispatcher (the outbound address policy) to the configured API address with the source's
 * token; redirects are not followed so the token reaches only that address.
 */
export class GitHubDecorator implements DecorationPlatform {
  private constructor(private readonly octokit: Octokit) {}

  static async connect(apiUrl: string, token: string, dispatcher: Dispatcher): Promise<GitHubDecorator> {
    const rest = await import('@octokit/rest');
    const octokit = new rest.Octokit({
      auth: token,
      baseUrl: apiUrl.replace(/\/+$/, ''),
      userAgent: 'bulwark-pr-decoration',
      // Failures reach the caller as errors; the client's own console lines would only repeat them.
      log: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
      request: {
        redirect: 'manual',
        fetch: (url: string, init: Parameters<typeof undiciFetch>[1]) =>
          undiciFetch(url, { ...init, dispatcher, redirect: 'manual' }),
      },
    });
    return new GitHubDecorator(octokit);
  }

  /** The pull request's files page anchors a file by the SHA-256 of its path, a line by R<line>. */
  diffLink(pr: PullRequestRef, path: string, line: number | null): string {
    const anchor = `#diff-${createHash('sha256').update(path).digest('hex')}${line ? `R${line}` : ''}`;
    return `${pr.webUrl}/pull/${pr.number}/files${anchor}`;
  }

  async upsertSummary(pr: PullRequestRef, body: string): Promise<number> {
    const where = { ...ownerRepo(pr), issue_number: pr.number };
    const comments = await this.octokit.paginate(this.octokit.rest.issues.listComments, { ...where, per_page: 100 });
    const existing = comments.find((c) => c.body?.includes(SUMMARY_MARKER));
    if (existing) {
      if (existing.body !== body)
        await this.octokit.rest.issues.updateComment({ ...ownerRepo(pr), comment_id: existing.id, body });
      return existing.id;
    }
    return (await this.octokit.rest.issues.createComment({ ...where, body })).data.id;
  }

  async setStatus(pr: PullRequestRef, state: GateState, description: string, targetUrl: string): Promise<void> {
    await this.octokit.rest.repos.createCommitStatus({
      ...ownerRepo(pr),
      sha: pr.headSha,
      state,
      context: STATUS_CONTEXT,
      description: description.slice(0, 140),
      target_url: targetUrl,
    });
  }

  async addReviewComments(pr: PullRequestRef, comments: ReviewComment[]): Promise<number> {
    const where = { ...ownerRepo(pr), pull_number: pr.number };
    const existing = await this.octokit.paginate(this.octokit.rest.pulls.listReviewComments, {
      ...where,
      per_page: 100,
    });
    const posted = new Set(
      comments.filter((c) => existing.some((e) => e.body.includes(c.marker))).map((c) => c.marker),
    );
    let added = 0;
    for (const c of comments.filter((x) => !posted.has(x.marker))) {
      try {
        await this.octokit.rest.pulls.createReviewComment({
          ...where,
          commit_id: pr.headSha,
          path: c.path,
          line: c.line,
          side: 'RIGHT',
          body: c.body,
        });
        added += 1;
      } catch (err) {
        if ((err as { status?: number }).status !== 422) throw err;
      }
    }
    return added;
  }
}
