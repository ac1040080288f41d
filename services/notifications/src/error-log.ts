import { csvRecord, CsvValue, EventEnvelope, Logger, Queryable, Trx } from '@bulwark/platform';
import { ERROR_EVENTS, errorRecordedPayload } from '@bulwark/contracts';
import { ErrorCursor, ErrorLogRow, ErrorQuery, errorStore } from './store/errors';

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
    await errorStore.record(trx, { id: event.id, ...parsed.data });
  };
}

const CSV_PAGE = 1000;
const CSV_COLUMNS: { header: string; value: (e: ErrorLogRow) => CsvValue }[] = [
  { header: 'occurred_at', value: (e) => e.occurred_at },
  { header: 'service', value: (e) => e.service },
  { header: 'level', value: (e) => e.level },
  { header: 'code', value: (e) => e.code },
  { header: 'message', value: (e) => e.message },
  { header: 'message_ru', value: (e) => e.message_ru },
  { header: 'subject', value: (e) => e.subject },
  { header: 'route', value: (e) => e.route },
  { header: 'request_id', value: (e) => e.request_id },
  { header: 'id', value: (e) => e.id },
];

/** The errors a query selects as CSV, newest first, read page by page by keyset: the whole log never sits in memory. */
export async function* errorsCsv(db: Queryable, q: ErrorQuery): AsyncGenerator<string> {
  yield csvRecord(CSV_COLUMNS.map((c) => c.header));
  for (let after: ErrorCursor | undefined; ;) {
    const page = await errorStore.pageAfter(db, q, after, CSV_PAGE);
    if (page.length > 0) yield page.map((e) => csvRecord(CSV_COLUMNS.map((c) => c.value(e)))).join('');
    if (page.length < CSV_PAGE) return;
    const last = page[page.length - 1];
    after = { occurredAt: last.occurred_at, id: last.id };
  }
}
