import {
  canSeeProject,
  conflict,
  errorMessage,
  invalid,
  notFound,
  Principal,
  projectSetIncludes,
  ServiceData,
  Trx,
  present,
} from '@bulwark/platform';
import { TrackerType } from '@bulwark/contracts';
import { groupForTickets, Grouping, renderTicket, TicketIssue } from '../domain/tickets';
import { historyStore } from '../store/history';
import { issueStore } from '../store/issues/issue-store';
import { IssueTicket, ticketClaimStore, ticketStore, TicketRecord, TrackerRecord } from '../store/trackers';
import type { TrackerAccess } from './access';
import { mappingFor, trackerProjects } from './scope';

type TicketResult = {
  id: string;
  status: 'linked' | 'not_found' | 'conflict' | 'failed';
  ticket_key?: string;
  message?: string;
};

/**
 * A claim on an issue's ticket outlives its request only when that request died between the claim
 * and its release; past this age another request may take it (far beyond any tracker call's timeout).
 */
const TICKET_CLAIM_STALE_SECONDS = 15 * 60;

/** A ticket with the type of its tracker. */
export type TrackerTicket = TicketRecord & { trackerType: TrackerType };

/** The tickets of issues: created in a tracker (an issue claimed meanwhile), linked, unlinked, read. */
export class TrackerTickets {
  constructor(private readonly deps: { data: ServiceData; access: TrackerAccess }) {}

  private async visibleIssues(principal: Principal, ids: string[]) {
    return new Map(
      (await issueStore.getMany(this.deps.data.db, ids))
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
    const tracker = await this.deps.access.find(trackerId);
    const unique = [...new Set(ids)];
    const issues = await this.visibleIssues(principal, unique);
    const { db } = this.deps.data;
    // Claimed before the link is read: a request that made a ticket meanwhile has linked it by now.
    const claimed = await ticketClaimStore.claim(db, [...issues.keys()], TICKET_CLAIM_STALE_SECONDS);
    try {
      return await this.createClaimedTickets(principal, tracker, unique, issues, claimed, by);
    } finally {
      await ticketClaimStore.release(db, [...claimed]);
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
    const linked = await ticketStore.ofIssues(this.deps.data.db, [...claimed]);
    const results = new Map<string, TicketResult>();
    const ready: TicketIssue[] = [];
    for (const id of unique) {
      const issue = issues.get(id);
      const link = linked.get(id);
      if (!issue) results.set(id, { id, status: 'not_found' });
      else if (!claimed.has(id))
        results.set(id, { id, status: 'conflict', message: 'another request is making a ticket for this issue' });
      else if (link)
        results.set(id, {
          id,
          status: 'conflict',
          ticket_key: link.key,
          message: `already linked to ticket ${link.key}`,
        });
      else if (!mappingFor(tracker, issue.projectCode))
        results.set(id, {
          id,
          status: 'conflict',
          message: `the tracker maps project ${issue.projectCode} to no tracker project`,
        });
      else ready.push(issue);
    }
    const port = this.deps.access.port(tracker);
    const tickets: { ticket: TrackerTicket; issueIds: string[] }[] = [];
    for (const group of groupForTickets(ready, by)) {
      const mapping = present(mappingFor(tracker, group.projectCode), `the mapping of project ${group.projectCode}`);
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
        const ticket = await this.deps.data.transaction(async (trx) => {
          const row = await ticketStore.upsert(trx, tracker.id, state);
          await ticketStore.link(trx, issueIds, row.id);
          await this.linkInHistory(trx, principal, issueIds, state, new Map());
          return row;
        });
        tickets.push({ ticket: { ...ticket, trackerType: tracker.type }, issueIds });
        for (const id of issueIds) results.set(id, { id, status: 'linked', ticket_key: state.key });
      } catch (err) {
        this.deps.access.failure(tracker, 'create', err, { issue_ids: issueIds });
        for (const id of issueIds)
          results.set(id, {
            id,
            status: 'failed',
            message: `the tracker did not accept the ticket: ${errorMessage(err)}`,
          });
      }
    }
    return { results: unique.map((id) => present(results.get(id), `the result for issue ${id}`)), tickets };
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
    const tracker = await this.deps.access.find(trackerId);
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
      state = await this.deps.access.port(tracker).get(key);
    } catch (err) {
      this.deps.access.failure(tracker, 'link', err, { ticket_key: key, issue_ids: [issueId] });
      throw conflict(`The tracker could not be read: ${errorMessage(err)}`);
    }
    if (!state)
      throw invalid(`Ticket ${key} not found in the tracker`, [
        { field: 'key', problem: 'names no ticket of this tracker' },
      ]);
    const previous = await ticketStore.ofIssues(this.deps.data.db, [issueId]);
    await this.deps.data.transaction(async (trx) => {
      const row = await ticketStore.upsert(trx, tracker.id, state);
      await ticketStore.link(trx, [issueId], row.id);
      const before = previous.get(issueId);
      if (before?.id !== row.id) {
        await this.linkInHistory(trx, principal, [issueId], state, previous);
        if (before) await ticketStore.dropUnlinked(trx, [before.id]);
      }
    });
    const linked = await ticketStore.ofIssues(this.deps.data.db, [issueId]);
    return present(linked.get(issueId), `the ticket of issue ${issueId}`);
  }

  async unlink(principal: Principal, issueId: string) {
    if (!(await this.visibleIssues(principal, [issueId])).has(issueId)) throw notFound(`Issue ${issueId}`);
    return this.deps.data.transaction(async (trx) => {
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
    return ticketStore.ofIssues(this.deps.data.db, issueIds);
  }
}
