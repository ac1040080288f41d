import type { TrackerCredentials } from '@bulwark/contracts';
import { z } from 'zod';
import type { TrackerClient, TrackerHttp } from './http';
import { TicketDraft, TicketState, TrackerPort } from './port';

const JIRA_KEY = /^[A-Z][A-Z0-9_]*-\d+$/;

// The parts of Jira's answers Bulwark reads; anything else in them is ignored.
// Names are shown and stored: a tracker's are short, a longer one is not a tracker's.
const name = z.string().max(255);
const jiraKey = z.string().max(255).regex(JIRA_KEY, 'is not a Jira issue key');
const jiraIssue = z.object({
  key: jiraKey,
  fields: z
    .object({
      status: z.object({ name, statusCategory: z.object({ key: z.string() }).optional() }).optional(),
    })
    .optional(),
});
type JiraIssue = z.output<typeof jiraIssue>;
const created = z.object({ key: jiraKey });
const searched = z.object({ issues: z.array(jiraIssue) });
const transitions = z.object({
  transitions: z.array(z.object({ id: z.string().max(255), name, to: z.object({ name }).optional() })),
});
const ignored = z.unknown();

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
  private readonly api: TrackerClient;
  private readonly base: string;
  private readonly version: 2 | 3;

  constructor({
    http,
    base,
    credentials,
    version,
  }: {
    http: TrackerHttp;
    base: string;
    credentials: TrackerCredentials;
    version: 2 | 3;
  }) {
    this.base = base;
    this.version = version;
    const headers = credentials.token
      ? { authorization: `Bearer ${credentials.token}` }
      : { authorization: `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}` };
    this.api = http.client(base, headers, `rest/api/${version}/`);
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
    const { key } = await this.api.json(created, 'POST', 'issue', {
      fields: {
        project: { key: d.project },
        issuetype: { name: d.issueType },
        summary: d.summary,
        description: richText(this.version, d.description),
        ...(d.labels.length ? { labels: d.labels } : {}),
      },
    });
    return (
      (await this.get(key)) ?? {
        key,
        url: this.state({ key }).url,
        status: '',
        closed: false,
      }
    );
  }

  async get(key: string): Promise<TicketState | undefined> {
    const found = await this.api.json(
      jiraIssue.nullable(),
      'GET',
      `issue/${encodeURIComponent(key)}?fields=status`,
      undefined,
      null,
    );
    return found ? this.state(found) : undefined;
  }

  async states(keys: string[]): Promise<TicketState[]> {
    const valid = keys.filter((k) => JIRA_KEY.test(k));
    if (!valid.length) return [];
    // v3's search moved to /search/jql (the former /search is withdrawn on Jira Cloud); v2 keeps /search.
    const { issues } = await this.api.json(searched, 'POST', this.version === 3 ? 'search/jql' : 'search', {
      jql: `key in (${valid.join(',')})`,
      fields: ['status'],
      maxResults: valid.length,
    });
    return issues.map((i) => this.state(i));
  }

  async transition(key: string, status: string, comment: string): Promise<boolean> {
    const offered = (await this.api.json(transitions, 'GET', `issue/${encodeURIComponent(key)}/transitions`))
      .transitions;
    const wanted = status.toLowerCase();
    const t =
      offered.find((x) => x.to?.name.toLowerCase() === wanted) ?? offered.find((x) => x.name.toLowerCase() === wanted);
    if (t)
      await this.api.json(ignored, 'POST', `issue/${encodeURIComponent(key)}/transitions`, {
        transition: { id: t.id },
      });
    await this.comment(key, comment);
    return t !== undefined;
  }

  async comment(key: string, text: string): Promise<void> {
    await this.api.json(ignored, 'POST', `issue/${encodeURIComponent(key)}/comment`, {
      body: richText(this.version, text),
    });
  }
}
