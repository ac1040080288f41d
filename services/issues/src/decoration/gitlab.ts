import { createHash } from 'node:crypto';
import { Commits, MergeRequestDiscussions, MergeRequestNotes, MergeRequests } from '@gitbeaker/rest';
import { createRequesterFn, type FormattedResponse, type RequestOptions } from '@gitbeaker/requester-utils';
import type { Dispatcher, FormData as UndiciFormData } from 'undici';
import { fetch as undiciFetch } from 'undici';
import {
  DecorationPlatform,
  GateState,
  PlatformRefused,
  PullRequestRef,
  ReviewComment,
  STATUS_CONTEXT,
} from './platform';
import { SUMMARY_MARKER } from './summary';

const STATES: Record<GateState, 'success' | 'failed'> = { success: 'success', failure: 'failed' };
/** GitLab answers 400 for a position outside the merge request's diff. */
const POSITION_REFUSED = 400;

/**
 * gitbeaker's requests through the given dispatcher (the outbound address policy) with redirects
 * not followed, so the token reaches only the configured address; an answer other than 2xx is a
 * PlatformRefused with its status (the delivery retries it, as it does GitHub's).
 */
function requesterThrough(dispatcher: Dispatcher) {
  return createRequesterFn(
    (_, options) => Promise.resolve(options),
    async (endpoint: string, options?: Record<string, unknown>): Promise<FormattedResponse> => {
      const { prefixUrl, searchParams, method, headers, body, signal } = (options ?? {}) as RequestOptions;
      const url = new URL(endpoint, prefixUrl?.endsWith('/') ? prefixUrl : `${prefixUrl}/`);
      url.search = searchParams ?? '';
      // gitbeaker's forms are the global FormData, undici's own; the tests' compilation types it as the DOM's.
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- unnecessary in this package only
      const sent = body as string | UndiciFormData | undefined;
      const res = await undiciFetch(url, { method, headers, body: sent, signal, dispatcher, redirect: 'manual' });
      const text = await res.text();
      if (!res.ok) throw new PlatformRefused(res.status, `GitLab answered ${res.status}: ${text.slice(0, 200)}`);
      const json = (res.headers.get('content-type') ?? '').includes('application/json');
      return {
        body: json && text ? (JSON.parse(text) as Record<string, unknown>) : text,
        headers: Object.fromEntries(res.headers.entries()),
        status: res.status,
      };
    },
  );
}

/**
 * Decorates GitLab merge requests through the REST API (`@gitbeaker/rest`): the summary as a note,
 * the verdict as a commit status, and review comments as discussions positioned on changed lines.
 */
export class GitLabDecorator implements DecorationPlatform {
  private constructor(
    private readonly api: {
      notes: MergeRequestNotes;
      discussions: MergeRequestDiscussions;
      mergeRequests: MergeRequests;
      commits: Commits;
    },
  ) {}

  /** `apiUrl` is the instance's API address, `https://gitlab.example/api/v4` (or the instance's own). */
  static connect(apiUrl: string, token: string, dispatcher: Dispatcher): GitLabDecorator {
    const options = {
      host: apiUrl.replace(/\/+$/, '').replace(/\/api\/v4$/, ''),
      // Sent as `Authorization: Bearer`, which GitLab takes for personal, project and group tokens.
      oauthToken: token,
      requesterFn: requesterThrough(dispatcher),
    };
    return new GitLabDecorator({
      notes: new MergeRequestNotes(options),
      discussions: new MergeRequestDiscussions(options),
      mergeRequests: new MergeRequests(options),
      commits: new Commits(options),
    });
  }

  /** GitLab anchors a file of a merge request's diff by the SHA-1 of its path (lines only with old and new numbers). */
  diffLink(pr: PullRequestRef, path: string): string {
    return `${pr.webUrl}/-/merge_requests/${pr.number}/diffs#${createHash('sha1').update(path).digest('hex')}`;
  }

  async upsertSummary(pr: PullRequestRef, body: string): Promise<number> {
    const notes = await this.api.notes.all(pr.repository, pr.number, { perPage: 100 });
    const existing = notes.find((n) => n.body.includes(SUMMARY_MARKER));
    if (existing) {
      if (existing.body !== body) await this.api.notes.edit(pr.repository, pr.number, existing.id, { body });
      return existing.id;
    }
    return (await this.api.notes.create(pr.repository, pr.number, body)).id;
  }

  async setStatus(pr: PullRequestRef, state: GateState, description: string, targetUrl: string): Promise<void> {
    await this.api.commits.editStatus(pr.repository, pr.headSha, STATES[state], {
      name: STATUS_CONTEXT,
      description: description.slice(0, 140),
      targetUrl,
    });
  }

  /**
   * Positions need the merge request's diff refs; when the request has moved past the scanned commit
   * the scan's lines may no longer be the diff's, so nothing is posted until a scan of its head.
   */
  async addReviewComments(pr: PullRequestRef, comments: ReviewComment[]): Promise<number> {
    const request = await this.api.mergeRequests.show(pr.repository, pr.number);
    const refs = request.diff_refs;
    if (!refs?.head_sha || refs.head_sha.toLowerCase() !== pr.headSha.toLowerCase()) return 0;
    const discussions = await this.api.discussions.all(pr.repository, pr.number, { perPage: 100 });
    const bodies = discussions.flatMap((d) => (d.notes ?? []).map((n) => n.body));
    let added = 0;
    for (const c of comments.filter((x) => !bodies.some((b) => b.includes(x.marker)))) {
      try {
        await this.api.discussions.create(pr.repository, pr.number, c.body, {
          position: {
            baseSha: refs.base_sha,
            startSha: refs.start_sha,
            headSha: refs.head_sha,
            positionType: 'text',
            oldPath: c.path,
            newPath: c.path,
            newLine: String(c.line),
          },
        });
        added += 1;
      } catch (err) {
        if (!(err instanceof PlatformRefused) || err.status !== POSITION_REFUSED) throw err;
      }
    }
    return added;
  }
}
