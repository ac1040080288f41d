import { errorMessage, ServiceData } from '@bulwark/platform';
import { retryBackoffSeconds } from '../domain/retry-backoff';
import { pushFor } from '../domain/tickets';
import { TrackerError } from '../integrations/port';
import { statusStore } from '../store/settings';
import { pushStore, ticketStore, trackerStore } from '../store/trackers';
import type { TrackerAccess } from './access';

export interface PushSettings {
  pushBatch: number;
  pushMaxAttempts: number;
}

/** The status push from Bulwark to trackers: status changes of linked issues, delivered to their tickets. */
export class TrackerPush {
  constructor(private readonly deps: { data: ServiceData; access: TrackerAccess; settings: PushSettings }) {}

  /** Delivers due status changes of linked issues to their tickets; a failed one is retried with backoff, then given up. */
  async drainPushes(): Promise<number> {
    const { data, access, settings } = this.deps;
    const pushes = await pushStore.claim(data.db, settings.pushBatch, 60);
    if (!pushes.length) return 0;
    const names = new Map((await statusStore.list(data.db)).map((s) => [s.id, s.nameEn]));
    for (const p of pushes) {
      const ticket = await ticketStore.get(data.db, p.ticketId);
      const tracker = ticket ? await trackerStore.get(data.db, ticket.trackerId) : undefined;
      if (!ticket || !tracker) {
        await pushStore.done(data.db, p.id, 'ticket_gone');
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
          const moved = await access.port(tracker).transition(ticket.key, action.status, action.comment);
          await pushStore.done(data.db, p.id, moved ? 'transitioned' : 'commented');
        } else if (action.kind === 'comment') {
          await access.port(tracker).comment(ticket.key, action.comment);
          await pushStore.done(data.db, p.id, 'commented');
        } else await pushStore.done(data.db, p.id, 'not_mapped');
      } catch (err) {
        const permanent = err instanceof TrackerError && err.permanent && err.status !== 429;
        const giveUp = permanent || p.attempts >= settings.pushMaxAttempts;
        access.failure(tracker, 'push', err, { ticket_key: ticket.key, issue_ids: [p.issueId], gave_up: giveUp });
        await pushStore.failed(data.db, p.id, errorMessage(err), giveUp ? null : retryBackoffSeconds(p.attempts));
      }
    }
    return pushes.length;
  }
}
