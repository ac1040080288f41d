import { readFileSync } from 'node:fs';
import { usageError } from './errors';

/** The pull (GitHub) or merge (GitLab) request a scan is of, sent with the upload for decoration. */
export interface PullRequestOfScan {
  number: number;
  head_sha: string | null;
  base_branch: string | null;
}

const SHA = /^[0-9a-f]{40}$/i;
const sha = (value: string | undefined) => (value && SHA.test(value) ? value.toLowerCase() : null);
const text = (value: unknown) => (typeof value === 'string' && value.length > 0 ? value : null);

/** What GitHub Actions writes for a pull_request event: the head commit, not the merge commit GITHUB_SHA names. */
function githubEvent(path: string | undefined): { number?: number; head?: string; base?: string } {
  if (!path) return {};
  try {
    const event = JSON.parse(readFileSync(path, 'utf8')) as {
      pull_request?: { number?: unknown; head?: { sha?: unknown }; base?: { ref?: unknown } };
    };
    const pr = event.pull_request;
    return {
      number: typeof pr?.number === 'number' ? pr.number : undefined,
      head: text(pr?.head?.sha) ?? undefined,
      base: text(pr?.base?.ref) ?? undefined,
    };
  } catch {
    // An unreadable event file leaves the reference and variables to tell.
    return {};
  }
}

/**
 * The pull request of this CI run: `--pull-request N` when given, else GitHub Actions' event
 * (`GITHUB_EVENT_PATH`, `GITHUB_REF` refs/pull/N/merge) or GitLab CI's merge request pipeline
 * (`CI_MERGE_REQUEST_IID`); undefined on a branch build.
 */
export function pullRequestOfRun(flag: string | undefined, env: NodeJS.ProcessEnv): PullRequestOfScan | undefined {
  if (flag !== undefined && !/^[1-9][0-9]{0,9}$/.test(flag))
    throw usageError(`--pull-request must be a pull or merge request number, got "${flag}"`);
  if (env.GITLAB_CI === 'true' && (flag ?? env.CI_MERGE_REQUEST_IID)) {
    return {
      number: Number(flag ?? env.CI_MERGE_REQUEST_IID),
      head_sha: sha(env.CI_MERGE_REQUEST_SOURCE_BRANCH_SHA) ?? sha(env.CI_COMMIT_SHA),
      base_branch: text(env.CI_MERGE_REQUEST_TARGET_BRANCH_NAME),
    };
  }
  const event = env.GITHUB_ACTIONS === 'true' ? githubEvent(env.GITHUB_EVENT_PATH) : {};
  const fromRef = /^refs\/pull\/([1-9][0-9]*)\/(merge|head)$/.exec(env.GITHUB_REF ?? '')?.[1];
  const number = flag ?? event.number ?? fromRef;
  if (number === undefined) return undefined;
  return {
    number: Number(number),
    head_sha: sha(event.head) ?? sha(env.GITHUB_SHA) ?? sha(env.CI_COMMIT_SHA),
    base_branch: text(event.base) ?? text(env.GITHUB_BASE_REF),
  };
}
