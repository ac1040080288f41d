import type { EventEnvelope, Trx } from '@bulwark/platform';
import { EVENT_KINDS, projectOf } from '../domain/messages';
import { deliveryStore } from '../store/deliveries';
import { eventStore, SecurityEventRecord } from '../store/events';
import { notifierStore } from '../store/notifiers';

/**
 * Records each security event of the bus once, in the events log, with a pending delivery for each
 * notifier that wants it, in the consumer's transaction (a crash redelivers, the inbox dedupes).
 */
export async function recordSecurityEvent(event: EventEnvelope, trx: Trx): Promise<void> {
  const kind = EVENT_KINDS[event.type];
  if (!kind) return;
  const data = event.payload as Record<string, unknown>;
  const [message, messageRu] = kind.message(data);
  const record: SecurityEventRecord = {
    id: event.id,
    type: event.type,
    projectCode: projectOf(data),
    message,
    messageRu,
    data,
    occurredAt: event.occurredAt || new Date().toISOString(),
  };
  if (!(await eventStore.record(trx, record))) return;
  await deliveryStore.enqueue(trx, record.id, await notifierStore.subscribed(trx, record.type, record.projectCode));
}
