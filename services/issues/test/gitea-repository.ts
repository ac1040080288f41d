import { type GiteaServer, uniqueSuffix } from '@bulwark/testkit';

/** A comment on a Gitea issue or pull request, as its API answers it. */
export interface GiteaComment {
  id: number;
  body: string;
}

/** A commit status on Gitea: it answers the state as `status` (GitHub: `state`). */
export interface GiteaStatus {
  status: string;
  context: string;
  description: string;
  target_url: string;
}

/** Gitea's own REST API, as a person or script working in Gitea would use it. */
function giteaApi(g: GiteaServer) {
  return async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${g.url}/api/v1${path}`, {
      method,
      headers: { authorization: `token ${g.token}`, 'content-type': 'application/json', accept: 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`Gitea ${method} ${path}: ${res.status} ${text}`);
    return (res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text) as T;
  };
}

/**
 * A repository on the real Gitea with a `main` branch, a `feature` branch one commit ahead and an
 * open pull request from it, all made through Gitea's API; and what Bulwark posted on the request.
 */
export class GiteaPullRequest {
  private constructor(
    private readonly api: ReturnType<typeof giteaApi>,
    /** `owner/name`. */
    readonly repository: string,
    readonly number: number,
    readonly headSha: string,
  ) {}

  static async open(g: GiteaServer): Promise<GiteaPullRequest> {
    const api = giteaApi(g);
    const repo = await api<{ full_name: string }>('POST', '/user/repos', {
      name: `shop-${uniqueSuffix()}`,
      auto_init: true,
      default_branch: 'main',
      private: true,
    });
    await api('POST', `/repos/${repo.full_name}/contents/src/db.py`, {
      branch: 'main',
      new_branch: 'feature',
      message: 'Query the orders',
      content: Buffer.from('query(x)\n'.repeat(50)).toString('base64'),
    });
    const pr = await api<{ number: number; head: { sha: string } }>('POST', `/repos/${repo.full_name}/pulls`, {
      head: 'feature',
      base: 'main',
      title: 'Query the orders',
    });
    return new GiteaPullRequest(api, repo.full_name, pr.number, pr.head.sha);
  }

  /** Pushes a commit adding `path` to the request's branch (through the contents API); answers its SHA. */
  async push(path: string): Promise<string> {
    const added = await this.api<{ commit: { sha: string } }>('POST', `/repos/${this.repository}/contents/${path}`, {
      branch: 'feature',
      message: `Add ${path}`,
      content: Buffer.from('query(y)\n').toString('base64'),
    });
    return added.commit.sha;
  }

  comments(): Promise<GiteaComment[]> {
    return this.api('GET', `/repos/${this.repository}/issues/${this.number}/comments`);
  }

  statuses(sha = this.headSha): Promise<GiteaStatus[]> {
    return this.api('GET', `/repos/${this.repository}/commits/${sha}/statuses?limit=50`);
  }

  /** The HTML Gitea shows for `markdown` in a comment of this repository. */
  rendered(markdown: string): Promise<string> {
    return this.api('POST', '/markdown', { Text: markdown, Mode: 'comment', Context: `/${this.repository}` });
  }
}
