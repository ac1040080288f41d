import {
  assertCredentialStaysWith,
  canSeeProject,
  conflict,
  ErrorRecorder,
  errorMessage,
  invalid,
  isUuid,
  Logger,
  notFound,
  OutboundPolicy,
  pageOf,
  projectSetIncludes,
  Principal,
  SecretBox,
  ServiceData,
  Trx,
  unreachableMessage,
} from '@bulwark/platform';
import { ISSUE_EVENTS, newEvent, TrackerBody, TrackerCredentials, TrackerType, writeEvents } from '@bulwark/contracts';
import {
  bulwarkStatusFor,
  groupForTickets,
  Grouping,
  pushBackoffSeconds,
  pushFor,
  renderTicket,
  TicketIssue,
} from './domain/tickets';
import { CallerScope } from './caller-scope';
import { statusChanged } from './events';
import { recordIntegrationFailure } from './integrations/failures';
import type { TrackerHttp } from './integrations/http';
import { JiraTracker } from './integrations/jira';
import { TrackerError, TrackerPort } from './integrations/port';
import { RedmineTracker } from './integrations/redmine';
import { trackerInScope, trackerProjects } from './tracker-scope';
import { historyStore } from './store/history';
import { issueStore } from './store/issues';
import { statusStore } from './store/settings';
import {
  IssueTicket,
  ProjectMapping,
  pushStore,
  ticketClaimStore,
  ticketStore,
  TicketRecord,
  TrackerInput,
  TrackerRecord,
  trackerStore,
} from './store/trackers';

type TicketResult = {
  id: string;
  status: 'linked' | 'not_found' | 'conflict' | 'failed';
  ticket_key?: string;
  message?: string;
};

const SEARCH_CHUNK = 50;
/** At most this many trackers are read for one list of a caller limited to some projects. */
const READ_CAP = 10000;
/**
 * A claim on an issue's ticket outlives its request only when that request died between the claim
 * and its release; past this age another request may take it (far beyond any tracker call's timeout).
 */
const TICKET_CLAIM_STALE_SECONDS = 15 * 60;

/** A ticket with the type of its tracker. */
export type TrackerTicket = TicketRecord & { trackerType: TrackerType };

export interface TrackerSettings {
  pushBatch: number;
  pushMaxAttempts: number;
}

/** Task trackers, the tickets of issues, and the status sync both ways. */
export class Trackers {
  constructor(
    private readonly data: ServiceData,
    private readonly secrets: SecretBox,
    private readonly policy: OutboundPolicy,
    private readonly http: TrackerHttp,
    private readonly log: Logger,
    private readonly errors: ErrorRecorder,
    private readonly settings: TrackerSettings,
  ) {}

  // ---- trackers

  /** How many tickets the tracker's issues are linked to. */
  async ticketCount(id: string): Promise<number> {
    return (await trackerStore.ticketCounts(this.data.db, [id])).get(id) ?? 0;
  }

  /**
   * A page of trackers, each with its number of tickets. A tracker applies to the projects it maps
   * (`*`: every project): a caller limited to some projects sees those mapping one of its projects
   * (or none), with only its own projects' mappings, and changes only those mapping its own projects.
   */
  async list(principal: Principal, q: { page: number; limit: number; name?: string; types?: string[] }) {
    const scope = new CallerScope(principal);
    const page = scope.everyProject
      ? await trackerStore.list(this.data.db, q)
      : pageOf(
          (await trackerStore.matching(this.data.db, q, READ_CAP))
            .filter((t) => scope.sees(trackerProjects(t.projects)))
            .map((t) => trackerInScope(scope, t)),
          q,
        );
    const counts = await trackerStore.ticketCounts(
      this.data.db,
      page.items.map((t) => t.id),
    );
    return { items: page.items.map((t) => ({ tracker: t, tickets: counts.get(t.id) ?? 0 })), total: page.total };
  }

  private async find(id: string): Promise<TrackerRecord> {
    const t = await trackerStore.get(this.data.db, id);
    if (!t) throw notFound(`Tracker ${id}`);
    return t;
  }

  /** The tracker if the caller sees it (404 otherwise). */
  private async seen(scope: CallerScope, id: string): Promise<TrackerRecord> {
    const t = await this.find(id);
    if (!scope.sees(trackerProjects(t.projects))) throw notFound(`Tracker ${id}`);
    return t;
  }

  /** The tracker if the caller sees it (404 otherwise) and may change it (403 otherwise). */
  private async changeable(scope: CallerScope, id: string): Promise<TrackerRecord> {
    const t = await this.seen(scope, id);
    scope.assertMayChange(trackerProjects(t.projects), `tracker ${id}`);
    return t;
  }

  async get(principal: Principal, id: string): Promise<TrackerRecord> {
    const scope = new CallerScope(principal);
    return trackerInScope(scope, await this.seen(scope, id));
  }

  /**
   * The address must be one the outbound policy lets Bulwark reach, now as at every later call. A
   * refused address and a name that does not resolve get one answer, as every outbound check gives:
   * the check must not tell which addresses exist behind a name.
   */
  private async checkUrl(url: string): Promise<void> {
    const host = new URL(url).hostname;
    try {
      await this.policy.resolve(host);
    } catch {
      const problem = `cannot be reached (${unreachableMessage(host)})`;
      throw invalid(`Tracker url ${problem}`, [{ field: 'url', problem }]);
    }
  }

  private async checkStatuses(b: TrackerBody): Promise<void> {
    const known = new Set((await statusStore.list(this.data.db)).map((s) => s.id));
    const problems = [
      ...(b.status_mapping?.to_bulwark ?? []).map((m, i) => ({
        field: `status_mapping.to_bulwark[${i}].status_id`,
        id: m.status_id,
      })),
      ...(b.status_mapping?.to_tracker ?? []).map((m, i) => ({
        field: `status_mapping.to_tracker[${i}].status_id`,
        id: m.status_id,
      })),
    ].filter((p) => !known.has(p.id));
    if (problems.length)
      throw invalid(
        'Unknown Bulwark status in status_mapping',
        problems.map((p) => ({ field: p.field, problem: 'is not a known status id' })),
      );
  }

  private input(b: TrackerBody, credentialsSealed: string): TrackerInput {
    return {
      name: b.name,
      type: b.type,
      url: b.url.replace(/\/+$/, ''),
      credentialsSealed,
      projects: b.projects ?? [],
      statusMapping: {
        to_bulwark: b.status_mapping?.to_bulwark ?? [],
        to_tracker: b.status_mapping?.to_tracker ?? [],
      },
      fieldTemplates: b.field_templates ?? {},
      jiraApiVersion: b.jira_api_version ?? 3,
      syncEnabled: b.sync_enabled ?? true,
    };
  }

  async create(principal: Principal, b: TrackerBody): Promise<TrackerRecord> {
    new CallerScope(principal).assertMayChange(trackerProjects(b.projects ?? []), 'this tracker');
    await this.checkUrl(b.url);
    await this.checkStatuses(b);
    return trackerStore.insert(this.data.db, this.input(b, this.secrets.seal(JSON.stringify(b.credentials))));
  }

  async update(principal: Principal, id: string, b: TrackerBody): Promise<TrackerRecord> {
    const scope = new CallerScope(principal);
    const current = await this.changeable(scope, id);
    scope.assertMayChange(trackerProjects(b.projects ?? []), `tracker ${id}`);
    if (!b.credentials && b.type !== current.type)
      throw invalid('A tracker of another type needs its credentials', [
        { field: 'credentials', problem: `is required when type changes from ${current.type}` },
      ]);
    // Stored credentials go only where they were stored for: another address needs them given again.
    if (!b.credentials) assertCredentialStaysWith(current.url, b.url, 'url');
    await this.checkUrl(b.url);
    await this.checkStatuses(b);
    const sealed = b.credentials ? this.secrets.seal(JSON.stringify(b.credentials)) : current.credentialsSealed;
    const row = await trackerStore.update(this.data.db, id, this.input(b, sealed));
    if (!row) throw notFound(`Tracker ${id}`);
    return trackerInScope(scope, row);
  }

  /** A tracker is in use while a project is mapped to it or an issue is linked to one of its tickets. */
  async delete(principal: Principal, ids: string[], force: boolean) {
    const scope = new CallerScope(principal);
    return this.data.transaction(async (trx) => {
      const out: { id: string; status: 'deleted' | 'not_found' | 'conflict' | 'forbidden'; message?: string }[] = [];
      const doomed: string[] = [];
      const counts = await trackerStore.ticketCounts(trx, ids.filter(isUuid));
      for (const id of ids) {
        const t = isUuid(id) ? await trackerStore.get(trx, id) : undefined;
        const access = t && scope.access(trackerProjects(t.projects), `tracker ${id}`);
        if (!t || !access?.sees) {
          out.push({ id, status: 'not_found' });
          continue;
        }
        if (access.refusal) {
          out.push({ id, status: 'forbidden', message: access.refusal });
          continue;
        }
        const tickets = counts.get(id) ?? 0;
        if (!force && (t.projects.length > 0 || tickets > 0)) {
          out.push({
            id,
            status: 'conflict',
            message: `in use: ${t.projects.length} project mapping(s) (${t.projects.map((p) => p.project_code).join(', ') || 'none'}), ${tickets} ticket(s); delete with force to unlink them`,
          });
          continue;
        }
        doomed.push(id);
        out.push({ id, status: 'deleted' });
      }
      const links = await ticketStore.linksOfTrackers(trx, doomed);
      const at = new Date().toISOString();
      await historyStore.add(
        trx,
        links.map((l) => ({
          issueId: l.issueId,
          actorKind: 'user' as const,
          actor: principal.username,
          field: 'ticket',
          oldValue: l.key,
          newValue: null,
          comment: 'Tracker deleted',
          at,
        })),
      );
      await trackerStore.deleteMany(trx, doomed);
      return out;
    });
  }

  private port(t: TrackerRecord): TrackerPort {
    const credentials = JSON.parse(this.secrets.open(t.credentialsSealed)) as TrackerCredentials;
    return t.type === 'jira'
      ? new JiraTracker(this.http, t.url, credentials, t.jiraApiVersion)
      : new RedmineTracker(this.http, t.url, credentials);
  }

  private failure(
    t: TrackerRecord,
    operation: string,
    error: unknown,
    extra: { ticket_key?: string; issue_ids?: string[]; gave_up?: boolean } = {},
  ): void {
    recordIntegrationFailure(this.log, this.errors, {
      tracker_id: t.id,
      tracker_type: t.type,
      operation,
      error,
      ...extra,
    });
  }

  // ---- tickets of issues

  private mappingFor(t: TrackerRecord, projectCode: string): ProjectMapping | undefined {
    return t.projects.find((p) => p.project_code === projectCode) ?? t.projects.find((p) => p.project_code === '*');
  }

  private async visibleIssues(principal: Principal, ids: string[]) {
    return new Map(
      (await issueStore.getMany(this.data.db, ids))
        .filter((i) => canSeeProject(principal, i.projectCode))
        .map((i) => [i.id, i]),
    );
  }

  private async linkInHistory(
    trx: Trx,
    principal: Principal,
    issueIds: string[],
    ticket: { key: string; url: string },
    previous: Map<string, IssueTicket>,
  ) {
    const at = new Date().toISOString();
    await historyStore.add(
      trx,
      issueIds.map((id) => ({
        issueId: id,
        actorKind: 'user' as const,
        actor: principal.username,
        field: 'ticket',
        oldValue: previous.get(id)?.key ?? null,
        newValue: ticket.key,
        comment: ticket.url,
        at,
      })),
    );
  }

  /** Creates tickets for a selection of issues, one per issue or per rule or CVE, and links them. */
  async createTickets(principal: Principal, trackerId: string, ids: string[], by: Grouping) {
    const tracker = await this.find(trackerId);
    const unique = [...new Set(ids)];
    const issues = await this.visibleIssues(principal, unique);
    // Claimed before the link is read: a request that made a ticket meanwhile has linked it by now.
    const claimed = await ticketClaimStore.claim(this.data.db, [...issues.keys()], TICKET_CLAIM_STALE_SECONDS);
    try {
      return await this.createClaimedTickets(principal, tracker, unique, issues, claimed, by);
    } finally {
      await ticketClaimStore.release(this.data.db, [...claimed]);
    }
  }

  private async createClaimedTickets(
    principal: Principal,
    tracker: TrackerRecord,
    unique: string[],
    issues: Map<string, TicketIssue>,
    claimed: Set<string>,
    by: Grouping,
  ) {
    const linked = await ticketStore.ofIssues(this.data.db, [...claimed]);
    const results = new Map<string, TicketResult>();
    const ready: TicketIssue[] = [];
    for (const id of unique) {
      const issue = issues.get(id);
      if (!issue) results.set(id, { id, status: 'not_found' });
      else if (!claimed.has(id))
        results.set(id, { id, status: 'conflict', message: 'another request is making a ticket for this issue' });
      else if (linked.has(id))
        results.set(id, {
          id,
          status: 'conflict',
          ticket_key: linked.get(id)!.key,
          message: `already linked to ticket ${linked.get(id)!.key}`,
        });
      else if (!this.mappingFor(tracker, issue.projectCode))
        results.set(id, {
          id,
          status: 'conflict',
          message: `the tracker maps project ${issue.projectCode} to no tracker project`,
        });
      else ready.push(issue);
    }
    const port = this.port(tracker);
    const tickets: { ticket: TrackerTicket; issueIds: string[] }[] = [];
    for (const group of groupForTickets(ready, by)) {
      const mapping = this.mappingFor(tracker, group.projectCode)!;
      const issueIds = group.issues.map((i) => i.id);
      const text = renderTicket(group, tracker.fieldTemplates);
      try {
        const state = await port.create({
          project: mapping.tracker_project,
          issueType: mapping.issue_type,
          summary: text.summary,
          description: text.description,
          labels: tracker.fieldTemplates.labels ?? [],
        });
        const ticket = await this.data.transaction(async (trx) => {
          const row = await ticketStore.upsert(trx, tracker.id, state);
          await ticketStore.link(trx, issueIds, row.id);
          await this.linkInHistory(trx, principal, issueIds, state, new Map());
          return row;
        });
        tickets.push({ ticket: { ...ticket, trackerType: tracker.type }, issueIds });
        for (const id of issueIds) results.set(id, { id, status: 'linked', ticket_key: state.key });
      } catch (err) {
        this.failure(tracker, 'create', err, { issue_ids: issueIds });
        for (const id of issueIds)
          results.set(id, {
            id,
            status: 'failed',
            message: `the tracker did not accept the ticket: ${errorMessage(err)}`,
          });
      }
    }
    return { results: unique.map((id) => results.get(id)!), tickets };
  }

  async createTicket(principal: Principal, issueId: string, trackerId: string): Promise<TrackerTicket> {
    const { results, tickets } = await this.createTickets(principal, trackerId, [issueId], 'issue');
    const [r] = results;
    if (r.status === 'not_found') throw notFound(`Issue ${issueId}`);
    if (r.status !== 'linked') throw conflict(`No ticket created: ${r.message}`);
    return tickets[0].ticket;
  }

  /** Links an issue to a ticket that exists in the tracker (read now, so the link starts with its status). */
  async linkTicket(principal: Principal, issueId: string, trackerId: string, key: string) {
    const tracker = await this.find(trackerId);
    const issue = (await this.visibleIssues(principal, [issueId])).get(issueId);
    if (!issue) throw notFound(`Issue ${issueId}`);
    // A caller limited to some projects reads tickets only of a tracker that serves the issue's project
    // (or every project, or none yet), never of one set up for other projects.
    const served = trackerProjects(tracker.projects);
    const empty = !served.every && served.codes.length === 0;
    if (principal.projects !== null && !empty && !projectSetIncludes(served, issue.projectCode))
      throw invalid(`Tracker ${trackerId} does not serve project ${issue.projectCode}`, [
        { field: 'tracker_id', problem: "is a tracker of other projects than the issue's" },
      ]);
    let state;
    try {
      state = await this.port(tracker).get(key);
    } catch (err) {
      this.failure(tracker, 'link', err, { ticket_key: key, issue_ids: [issueId] });
      throw conflict(`The tracker could not be read: ${errorMessage(err)}`);
    }
    if (!state)
      throw invalid(`Ticket ${key} not found in the tracker`, [
        { field: 'key', problem: 'names no ticket of this tracker' },
      ]);
    const previous = await ticketStore.ofIssues(this.data.db, [issueId]);
    await this.data.transaction(async (trx) => {
      const row = await ticketStore.upsert(trx, tracker.id, state);
      await ticketStore.link(trx, [issueId], row.id);
      const before = previous.get(issueId);
      if (before?.id !== row.id) {
        await this.linkInHistory(trx, principal, [issueId], state, previous);
        if (before) await ticketStore.dropUnlinked(trx, [before.id]);
      }
    });
    return (await ticketStore.ofIssues(this.data.db, [issueId])).get(issueId)!;
  }

  async unlink(principal: Principal, issueId: string) {
    if (!(await this.visibleIssues(principal, [issueId])).has(issueId)) throw notFound(`Issue ${issueId}`);
    return this.data.transaction(async (trx) => {
      const current = (await ticketStore.ofIssues(trx, [issueId])).get(issueId);
      if (!current) return { id: issueId, status: 'unchanged' as const, key: null };
      await ticketStore.unlink(trx, issueId);
      await ticketStore.dropUnlinked(trx, [current.id]);
      await historyStore.add(trx, [
        {
          issueId,
          actorKind: 'user',
          actor: principal.username,
          field: 'ticket',
          oldValue: current.key,
          newValue: null,
          comment: current.url,
          at: new Date().toISOString(),
        },
      ]);
      return { id: issueId, status: 'unlinked' as const, key: current.key };
    });
  }

  /** The tickets of a page of issues, for their views. */
  ticketsOf(issueIds: string[]): Promise<Map<string, IssueTicket>> {
    return ticketStore.ofIssues(this.data.db, issueIds);
  }

  // ---- status sync: tracker -> Bulwark

  /** Reads every ticket's status; a changed one moves its linked issues along the mapping, once. */
  async sync(
    t: TrackerRecord,
  ): Promise<{ tickets: number; changed: number; issues_moved: number; error: string | null }> {
    const tickets = await ticketStore.ofTracker(this.data.db, t.id);
    let changed = 0;
    let moved = 0;
    let error: string | null = null;
    try {
      const port = this.port(t);
      for (let i = 0; i < tickets.length; i += SEARCH_CHUNK) {
        const chunk = tickets.slice(i, i + SEARCH_CHUNK);
        const states = new Map((await port.states(chunk.map((c) => c.key))).map((s) => [s.key, s]));
        for (const ticket of chunk) {
          const state = states.get(ticket.key);
          if (!state || state.status === ticket.status) continue;
          const n = await this.applyTicketStatus(t, ticket, state);
          if (n >= 0) changed++;
          moved += Math.max(n, 0);
        }
        await ticketStore.touch(
          this.data.db,
          chunk.map((c) => c.id),
        );
      }
    } catch (err) {
      error = errorMessage(err);
      this.failure(t, 'sync', err);
    }
    await trackerStore.markSynced(this.data.db, t.id, error);
    return { tickets: tickets.length, changed, issues_moved: moved, error };
  }

  /** Records the ticket's new status; -1 when another sync recorded it first, else the issues moved. */
  private async applyTicketStatus(
    t: TrackerRecord,
    ticket: TicketRecord,
    state: { status: string; closed: boolean },
  ): Promise<number> {
    return this.data.transaction(async (trx) => {
      if (!(await ticketStore.recordStatus(trx, ticket.id, ticket.status, state))) return -1;
      const target = bulwarkStatusFor(t.statusMapping, state.status);
      if (target === undefined) return 0;
      const issues = (await issueStore.getMany(trx, await ticketStore.linkedIssues(trx, ticket.id))).filter(
        (i) => i.statusId !== target,
      );
      const at = new Date().toISOString();
      const actor = `tracker:${t.name}`;
      for (const issue of issues) await issueStore.update(trx, issue.id, { statusId: target }, at);
      await historyStore.add(
        trx,
        issues.map((i) => ({
          issueId: i.id,
          actorKind: 'tracker' as const,
          actor,
          field: 'status',
          oldValue: String(i.statusId),
          newValue: String(target),
          comment: `Ticket ${ticket.key} is ${state.status}`,
          at,
        })),
      );
      await writeEvents(
        trx,
        issues.map((i) =>
          newEvent(
            ISSUE_EVENTS.issueStatusChanged,
            i.id,
            statusChanged(i, target, actor, `Ticket ${ticket.key} is ${state.status}`),
          ),
        ),
      );
      return issues.length;
    });
  }

  async syncOne(principal: Principal, id: string) {
    return this.sync(await this.changeable(new CallerScope(principal), id));
  }

  /** The schedule's run: every tracker with sync enabled, one after another. */
  async syncAll(): Promise<void> {
    for (const t of await trackerStore.syncable(this.data.db)) await this.sync(t);
  }

  // ---- status push: Bulwark -> tracker

  /** Delivers due status changes of linked issues to their tickets; a failed one is retried with backoff, then given up. */
  async drainPushes(): Promise<number> {
    const pushes = await pushStore.claim(this.data.db, this.settings.pushBatch, 60);
    if (!pushes.length) return 0;
    const names = new Map((await statusStore.list(this.data.db)).map((s) => [s.id, s.nameEn]));
    for (const p of pushes) {
      const ticket = await ticketStore.get(this.data.db, p.ticketId);
      const tracker = ticket ? await trackerStore.get(this.data.db, ticket.trackerId) : undefined;
      if (!ticket || !tracker) {
        await pushStore.done(this.data.db, p.id, 'ticket_gone');
        continue;
      }
      const action = pushFor(
        tracker.statusMapping,
        p.issueId,
        names.get(p.toStatus) ?? String(p.toStatus),
        p.toStatus,
        p.actor,
      );
      try {
        if (action.kind === 'transition') {
          const moved = await this.port(tracker).transition(ticket.key, action.status, action.comment);
          await pushStore.done(this.data.db, p.id, moved ? 'transitioned' : 'commented');
        } else if (action.kind === 'comment') {
          await this.port(tracker).comment(ticket.key, action.comment);
          await pushStore.done(this.data.db, p.id, 'commented');
        } else await pushStore.done(this.data.db, p.id, 'not_mapped');
      } catch (err) {
        const permanent = err instanceof TrackerError && err.permanent && err.status !== 429;
        const giveUp = permanent || p.attempts >= this.settings.pushMaxAttempts;
        this.failure(tracker, 'push', err, { ticket_key: ticket.key, issue_ids: [p.issueId], gave_up: giveUp });
        await pushStore.failed(this.data.db, p.id, errorMessage(err), giveUp ? null : pushBackoffSeconds(p.attempts));
      }
    }
    return pushes.length;
  }
}
