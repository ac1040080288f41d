/**
 * What pull request decoration needs from a code platform (GitHub, GitLab): one interface, one
 * implementation per platform, so the delivery decides what to post once for both.
 */

/** A pull (GitHub) or merge (GitLab) request: its repository's path on the platform and its number. */
export interface PullRequestRef {
  /** `owner/repo` on GitHub, `group/subgroup/project` on GitLab. */
  repository: string;
  /** The repository's web address, the base of the links into the request's diff. */
  webUrl: string;
  number: number;
  headSha: string;
}

export interface ReviewComment {
  marker: string;
  body: string;
  path: string;
  line: number;
}

/** The gate's verdict as a commit status: each platform names the two states its own way. */
export type GateState = 'success' | 'failure';

/** The status context on the head commit, the same on every scan so a rescan replaces its state. */
export const STATUS_CONTEXT = 'bulwark/quality-gate';

/** A platform's refusal, with its HTTP status, so the callers tell a refused line from an outage. */
export class PlatformRefused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'PlatformRefused';
  }
}

export interface DecorationPlatform {
  /** The link of `path` (at `line`) in the request's diff. */
  diffLink(pr: PullRequestRef, path: string, line: number | null): string;
  /** Creates the summary comment, or updates the one carrying the marker; answers its id. */
  upsertSummary(pr: PullRequestRef, body: string): Promise<number>;
  setStatus(pr: PullRequestRef, state: GateState, description: string, targetUrl: string): Promise<void>;
  /**
   * Posts the review comments whose marker no comment of the request carries yet; one the platform
   * refuses (a line outside the diff) is skipped, the others still go. Answers how many went.
   */
  addReviewComments(pr: PullRequestRef, comments: ReviewComment[]): Promise<number>;
}
