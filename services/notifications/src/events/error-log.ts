import type { EventEnvelope, Logger, Trx } from '@bulwark/platform';
import { ERROR_EVENTS, errorRecordedPayload } from '@bulwark/contracts';
import { errorStore } from '../store/errors';

/**
 * The error log's consumer: each `error.recorded` of any service becomes one row (the event id is
 * the row's, so a redelivery changes nothing). The notifications service keeps it beside the events
 * log: both are logs an administrator reads and exports, searched in English and Russian, with the
 * same retention job, and no other service must be up for errors to be kept.
 */
export function errorLogConsumer(log: Logger) {
  return async (event: EventEnvelope, trx: Trx): Promise<void> => {
    if (event.type !== ERROR_EVENTS.errorRecorded) return;
    const parsed = errorRecordedPayload.safeParse(event.payload);
    if (!parsed.success) {
      // A record that does not parse never will: retrying it would only hold up the ones behind it.
      log.error('error.recorded event skipped: its payload does not match the schema', {
        eventId: event.id,
        problems: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`),
      });
      return;
    }
    const e = parsed.data;
    await errorStore.record(trx, {
      id: event.id,
      occurredAt: e.occurred_at,
      service: e.service,
      level: e.level,
      code: e.code,
      message: e.message,
      messageRu: e.message_ru,
      subject: e.subject,
      route: e.route,
      requestId: e.request_id,
      details: e.details,
    });
  };
}
