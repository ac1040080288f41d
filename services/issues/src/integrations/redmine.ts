import type { TrackerCredentials } from '@bulwark/contracts';
import { z } from 'zod';
import type { TrackerClient, TrackerHttp } from './http';
import { TicketDraft, TicketState, TrackerError, TrackerPort } from './port';

// The parts of Redmine's answers Bulwark reads; anything else in them is ignored.
// Names are shown and stored: a tracker's are short, a longer one is not a tracker's.
const named = z.object({ id: z.number().int(), name: z.string().max(255), is_closed: z.boolean().optional() });
type Named = z.output<typeof named>;
const redmineIssue = z.object({ id: z.number().int().positive(), status: named });
type RedmineIssue = z.output<typeof redmineIssue>;
const oneIssue = z.object({ issue: redmineIssue });
const maybeIssue = z.object({ issue: redmineIssue.optional() });
const issues = z.object({ issues: z.array(redmineIssue) });
const trackerList = z.object({ trackers: z.array(named) });
const statusList = z.object({ issue_statuses: z.array(named) });
const ignored = z.unknown();

/** Redmine through its REST API (JSON): /issues.json, /trackers.json, /issue_statuses.json. */
export class RedmineTracker implements TrackerPort {
  private readonly api: TrackerClient;
  private statusList: Named[] | undefined;

  constructor(
    http: TrackerHttp,
    private readonly base: string,
    credentials: TrackerCredentials,
  ) {
    const headers: Record<string, string> = credentials.api_key
      ? { 'x-redmine-api-key': credentials.api_key }
      : { authorization: `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}` };
    this.api = http.client(base, headers);
  }

  private state(issue: RedmineIssue, statuses: Named[]): TicketState {
    const closed = issue.status.is_closed ?? statuses.find((s) => s.id === issue.status.id)?.is_closed ?? false;
    return {
      key: String(issue.id),
      url: new URL(`issues/${issue.id}`, this.base.endsWith('/') ? this.base : `${this.base}/`).toString(),
      status: issue.status.name,
      closed,
    };
  }

  private async statuses(): Promise<Named[]> {
    this.statusList ??= (await this.api.json(statusList, 'GET', 'issue_statuses.json')).issue_statuses;
    return this.statusList;
  }

  async create(d: TicketDraft): Promise<TicketState> {
    const { trackers } = await this.api.json(trackerList, 'GET', 'trackers.json');
    const tracker = trackers.find((t) => t.name.toLowerCase() === d.issueType.toLowerCase());
    if (!tracker)
      throw new TrackerError(
        `Redmine has no tracker named ${d.issueType} (it has ${trackers.map((t) => t.name).join(', ')})`,
        422,
        true,
      );
    const { issue } = await this.api.json(oneIssue, 'POST', 'issues.json', {
      issue: { project_id: d.project, tracker_id: tracker.id, subject: d.summary, description: d.description },
    });
    return this.state(issue, await this.statuses());
  }

  async get(key: string): Promise<TicketState | undefined> {
    if (!/^\d+$/.test(key)) return undefined;
    const found = await this.api.json(maybeIssue, 'GET', `issues/${key}.json`, undefined, {});
    return found.issue ? this.state(found.issue, await this.statuses()) : undefined;
  }

  async states(keys: string[]): Promise<TicketState[]> {
    const ids = keys.filter((k) => /^\d+$/.test(k));
    if (!ids.length) return [];
    // status_id=* includes closed tickets, which a plain listing leaves out.
    const found = await this.api.json(
      issues,
      'GET',
      `issues.json?issue_id=${ids.join(',')}&status_id=*&limit=${ids.length}`,
    );
    const statuses = await this.statuses();
    return found.issues.map((i) => this.state(i, statuses));
  }

  async transition(key: string, status: string, comment: string): Promise<boolean> {
    const target = (await this.statuses()).find((s) => s.name.toLowerCase() === status.toLowerCase());
    await this.api.json(ignored, 'PUT', `issues/${key}.json`, {
      issue: { notes: comment, ...(target ? { status_id: target.id } : {}) },
    });
    return target !== undefined;
  }

  async comment(key: string, text: string): Promise<void> {
    await this.api.json(ignored, 'PUT', `issues/${key}.json`, { issue: { notes: text } });
  }
}
