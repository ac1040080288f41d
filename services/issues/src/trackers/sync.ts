import { errorMessage, Principal, ServiceData } from '@bulwark/platform';
import { ISSUE_EVENTS, newEvent, writeEvents } from '@bulwark/contracts';
import { CallerScope } from '../caller-scope';
import { bulwarkStatusFor } from '../domain/tickets';
import { statusChanged } from '../events';
import { historyStore } from '../store/history';
import { issueStore } from '../store/issues/issue-store';
import { ticketStore, TicketRecord, TrackerRecord, trackerStore } from '../store/trackers';
import type { TrackerAccess } from './access';

const SEARCH_CHUNK = 50;

/** The status sync from tracker to Bulwark: a ticket's new status moves its linked issues along the mapping. */
export class TrackerSync {
  constructor(private readonly deps: { data: ServiceData; access: TrackerAccess }) {}

  /** Reads every ticket's status; a changed one moves its linked issues along the mapping, once. */
  async sync(
    t: TrackerRecord,
  ): Promise<{ tickets: number; changed: number; issues_moved: number; error: string | null }> {
    const { db } = this.deps.data;
    const tickets = await ticketStore.ofTracker(db, t.id);
    let changed = 0;
    let moved = 0;
    let error: string | null = null;
    try {
      const port = this.deps.access.port(t);
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
          db,
          chunk.map((c) => c.id),
        );
      }
    } catch (err) {
      error = errorMessage(err);
      this.deps.access.failure(t, 'sync', err);
    }
    await trackerStore.markSynced(db, t.id, error);
    return { tickets: tickets.length, changed, issues_moved: moved, error };
  }

  /** Records the ticket's new status; -1 when another sync recorded it first, else the issues moved. */
  private async applyTicketStatus(
    t: TrackerRecord,
    ticket: TicketRecord,
    state: { status: string; closed: boolean },
  ): Promise<number> {
    return this.deps.data.transaction(async (trx) => {
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
    return this.sync(await this.deps.access.changeable(new CallerScope(principal), id));
  }

  /** The schedule's run: every tracker with sync enabled, one after another. */
  async syncAll(): Promise<void> {
    for (const t of await trackerStore.syncable(this.deps.data.db)) await this.sync(t);
  }
}
