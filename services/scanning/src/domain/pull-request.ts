import { invalidField } from '@bulwark/platform';

/** The pull request of an upload as its query gives it (`pull_request[number]` and the rest). */
export interface PullRequestQuery {
  number?: number;
  head_sha?: string;
  base_branch?: string;
}

/** The pull request an upload is of, as `scan.completed` carries it (without the check's source). */
export interface PullRequestOfUpload {
  number: number;
  head_sha: string | null;
  base_branch: string | null;
}

/** The pull request and the source whose repository it is in: where the verdict is posted. */
export type PullRequestOfScan = PullRequestOfUpload & { source_id: string };

/** Undefined for an upload of no pull request; a head commit or base branch without a number is a 400. */
export function pullRequestOf(q: PullRequestQuery | undefined): PullRequestOfUpload | undefined {
  if (q?.number === undefined) {
    if (q?.head_sha !== undefined || q?.base_branch !== undefined)
      throw invalidField('pull_request[number]', 'is required with pull_request[head_sha] or [base_branch]');
    return undefined;
  }
  return { number: q.number, head_sha: q.head_sha?.toLowerCase() ?? null, base_branch: q.base_branch ?? null };
}
