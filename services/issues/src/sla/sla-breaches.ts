import { ISSUE_EVENTS, newEvent, writeEvents } from '@bulwark/contracts';
import type { ServiceData } from '@bulwark/platform';
import { slaBreached } from '../events';
import { slaClockStore } from '../store/sla-clock';

/** Issues announced per transaction: a backlog of breaches drains over several runs, each short. */
const BATCH = 500;

/**
 * Announces each breach once (issue.sla_breached, through the outbox in the transaction that marks
 * the issue announced). The mark clears when the issue stops being breached (closed, or its due date
 * moved ahead), so a later breach is announced again. Run periodically on every replica: the
 * claim skips rows another replica holds.
 */
export class SlaBreaches {
  constructor(private readonly data: ServiceData) {}

  async announceDue(): Promise<number> {
    let total = 0;
    for (;;) {
      const announced = await this.data.transaction(async (trx) => {
        const breaches = await slaClockStore.claimBreaches(trx, BATCH);
        await writeEvents(
          trx,
          breaches.map((b) => newEvent(ISSUE_EVENTS.issueSlaBreached, b.id, slaBreached(b))),
        );
        return breaches.length;
      });
      total += announced;
      if (announced < BATCH) return total;
    }
  }
}
