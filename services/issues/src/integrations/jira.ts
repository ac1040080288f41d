import type { TrackerCredentials } from '@bulwark/contracts';
import type { TrackerHttp } from './http';
import { TicketDraft, TicketState, TrackerPort } from './port';

interface JiraIssue {
  key: string;
  fields?: { status?: { name: string; statusCategory?: { key: string } } };
}
interface JiraTransition {
  id: string;
  name: string;
  to?: { name: string };
}

/** Version 3 takes rich text as an Atlassian Document Format document; version 2 takes plain text. */
function richText(version: 2 | 3, text: string): unknown {
  if (version === 2) return text;
  return {
    type: 'doc',
    version: 1,
    content: text
      .split(/\n{2,}/)
      .map((para) => ({ type: 'paragraph', content: para ? [{ type: 'text', text: para }] : [] })),
  };
}

/**
 * Jira through its REST API (v2 or v3): create issue, read issues by JQL search, transitions and
 * comments. Tested against the contract server of the testkit, built from Jira's published shapes.
 */
export class JiraTracker implements TrackerPort {
  private readonly headers: Record<string, string>;

  constructor(
    private readonly http: TrackerHttp,
    private readonly base: string,
    credentials: TrackerCredentials,
    private readonly version: 2 | 3,
  ) {
    this.headers = credentials.token
      ? { authorization: `Bearer ${credentials.token}` }
      : { authorization: `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}` };
  }

  private call<T>(method: string, path: string, body?: unknown, notFound?: T): Promise<T> {
    return this.http.json<T>(this.base, method, `rest/api/${this.version}/${path}`, this.headers, body, notFound);
  }

  private state(issue: JiraIssue): TicketState {
    const status = issue.fields?.status;
    return {
      key: issue.key,
      url: new URL(`browse/${issue.key}`, this.base.endsWith('/') ? this.base : `${this.base}/`).toString(),
      status: status?.name ?? '',
      closed: status?.statusCategory?.key === 'done',
    };
  }

  async create(d: TicketDraft): Promise<TicketState> {
    const created = await this.call<{ key: string }>('POST', 'issue', {
      fields: {
        project: { key: d.project },
        issuetype: { name: d.issueType },
        summary: d.summary,
        description: richText(this.version, d.description),
        ...(d.labels.length ? { labels: d.labels } : {}),
      },
    });
    return (
      (await this.get(created.key)) ?? {
        key: created.key,
        url: this.state({ key: created.key }).url,
        status: '',
        closed: false,
      }
    );
  }

  async get(key: string): Promise<TicketState | undefined> {
    const found = await this.call<JiraIssue | null>(
      'GET',
      `issue/${encodeURIComponent(key)}?fields=status`,
      undefined,
      null,
    );
    return found ? this.state(found) : undefined;
  }

  async states(keys: string[]): Promise<TicketState[]> {
    const valid = keys.filter((k) => /^[A-Z][A-Z0-9_]*-\d+$/.test(k));
    if (!valid.length) return [];
    // v3's search moved to /search/jql (the former /search is withdrawn on Jira Cloud); v2 keeps /search.
    const { issues } = await this.call<{ issues: JiraIssue[] }>('POST', this.version === 3 ? 'search/jql' : 'search', {
      jql: `key in (${valid.join(',')})`,
      fields: ['status'],
      maxResults: valid.length,
    });
    return issues.map((i) => this.state(i));
  }

  async transition(key: string, status: string, comment: string): Promise<boolean> {
    const { transitions } = await this.call<{ transitions: JiraTransition[] }>(
      'GET',
      `issue/${encodeURIComponent(key)}/transitions`,
    );
    const wanted = status.toLowerCase();
    const t =
      transitions.find((x) => x.to?.name.toLowerCase() === wanted) ??
      transitions.find((x) => x.name.toLowerCase() === wanted);
    if (t) await this.call('POST', `issue/${encodeURIComponent(key)}/transitions`, { transition: { id: t.id } });
    await this.comment(key, comment);
    return t !== undefined;
  }

  async comment(key: string, text: string): Promise<void> {
    await this.call('POST', `issue/${encodeURIComponent(key)}/comment`, { body: richText(this.version, text) });
  }
}
