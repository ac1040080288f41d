// `@octokit/rest` is an ES module and this service CommonJS: its types by attribute, its code by import().
import type { Octokit } from '@octokit/rest' with { 'resolution-mode': 'import' };
import type { Dispatcher } from 'undici';
import { fetch as undiciFetch } from 'undici';
import { SUMMARY_MARKER } from './summary';

export interface PullRequestRef {
  owner: string;
  repo: string;
  number: number;
  headSha: string;
}

export interface ReviewComment {
  marker: string;
  body: string;
  path: string;
  line: number;
}

export type CommitState = 'success' | 'failure' | 'pending' | 'error';

/** The status context on the head commit, the same on every scan so a rescan replaces its state. */
export const STATUS_CONTEXT = 'bulwark/quality-gate';

/**
 * Decorates GitHub pull requests through the REST API (`@octokit/rest`): every call goes through the
 * given dispatcher (the outbound address policy) to the configured API address with the source's
 * token; redirects are not followed so the token reaches only that address.
 */
export class GitHubDecorator {
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

  /** Creates the summary comment, or updates the one carrying the marker; answers its id. */
  async upsertSummary(pr: PullRequestRef, body: string): Promise<number> {
    const where = { owner: pr.owner, repo: pr.repo, issue_number: pr.number };
    const comments = await this.octokit.paginate(this.octokit.rest.issues.listComments, { ...where, per_page: 100 });
    const existing = comments.find((c) => c.body?.includes(SUMMARY_MARKER));
    if (existing) {
      if (existing.body !== body)
        await this.octokit.rest.issues.updateComment({ owner: pr.owner, repo: pr.repo, comment_id: existing.id, body });
      return existing.id;
    }
    return (await this.octokit.rest.issues.createComment({ ...where, body })).data.id;
  }

  async setStatus(pr: PullRequestRef, state: CommitState, description: string, targetUrl: string): Promise<void> {
    await this.octokit.rest.repos.createCommitStatus({
      owner: pr.owner,
      repo: pr.repo,
      sha: pr.headSha,
      state,
      context: STATUS_CONTEXT,
      description: description.slice(0, 140),
      target_url: targetUrl,
    });
  }

  /**
   * Posts the review comments whose marker no comment of the pull request carries yet; one the
   * platform refuses (a line outside the diff) is skipped, the others still go. Answers how many went.
   */
  async addReviewComments(pr: PullRequestRef, comments: ReviewComment[]): Promise<number> {
    const where = { owner: pr.owner, repo: pr.repo, pull_number: pr.number };
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
