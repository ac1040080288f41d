import { csvRecord, CsvValue } from '@bulwark/platform';
import { WEBHOOK_PAYLOAD_VERSION, webhookJsonSchema } from '@bulwark/contracts';
import { EVENT_KINDS } from '../domain/messages';
import { previousSecretUntil } from '../domain/signatures';
import type { NotifierWithDeliveries } from '../notifiers';
import type { ErrorFilterValues, ErrorLogRecord } from '../store/errors';
import type { SecurityEventRecord } from '../store/events';
import type { WebhookResult } from '../webhook';

// Views never carry a secret: they say whether one is stored.

export const notifierView = ({ notifier: n, deliveries: d }: NotifierWithDeliveries) => ({
  id: n.id,
  name: n.name,
  type_id: n.typeId,
  active: n.active,
  events: n.events,
  project_codes: n.allProjects ? [] : n.projectCodes,
  settings: {
    url: n.url,
    rate_limit: n.rateLimit,
    auth_header_name: n.authHeaderName,
    auth_header_set: n.authHeaderValueSealed !== null,
    timeout_seconds: n.timeoutSeconds,
    payload_format: n.payloadFormat,
    signing_secret_set: n.signingSecretSealed !== null,
    previous_signing_secret_expires_at: previousSecretUntil(n),
  },
  author: n.author,
  created_at: n.createdAt,
  updated_at: n.updatedAt,
  deliveries: { pending: d.pending, delivered: d.delivered, failed: d.failed, last_error: d.lastError },
});

/** What a notifier test answers: not whether the address was refused, which would tell it from a closed port. */
export const testResultView = (r: WebhookResult) => ({
  delivered: r.delivered,
  status: r.status,
  error: r.error,
  duration_ms: r.duration_ms,
});

/** Each notifiable event type with its description, an example of its data and its webhook body's schema. */
export const eventTemplatesView = () => ({
  items: Object.entries(EVENT_KINDS).map(([type, k]) => ({
    type,
    description: k.description,
    example: k.example,
    version: WEBHOOK_PAYLOAD_VERSION,
    schema: webhookJsonSchema(type),
  })),
});

export const eventView = (e: SecurityEventRecord) => ({
  id: e.id,
  type: e.type,
  project_code: e.projectCode,
  message: e.message,
  message_ru: e.messageRu,
  data: e.data,
  occurred_at: e.occurredAt,
});

const EVENT_CSV: { header: string; value: (e: SecurityEventRecord) => CsvValue }[] = [
  { header: 'occurred_at', value: (e) => e.occurredAt },
  { header: 'type', value: (e) => e.type },
  { header: 'project_code', value: (e) => e.projectCode },
  { header: 'message', value: (e) => e.message },
  { header: 'message_ru', value: (e) => e.messageRu },
  { header: 'id', value: (e) => e.id },
];

/** The events log's CSV export: a header line, then one line per event. */
export const eventsCsv = (events: SecurityEventRecord[]) =>
  csvRecord(EVENT_CSV.map((c) => c.header)) + events.map((e) => csvRecord(EVENT_CSV.map((c) => c.value(e)))).join('');

export const errorView = (e: ErrorLogRecord) => ({
  id: e.id,
  occurred_at: e.occurredAt,
  service: e.service,
  level: e.level,
  code: e.code,
  message: e.message,
  message_ru: e.messageRu,
  subject: e.subject,
  route: e.route,
  request_id: e.requestId,
  details: e.details,
});

const ERROR_CSV: { header: string; value: (e: ErrorLogRecord) => CsvValue }[] = [
  { header: 'occurred_at', value: (e) => e.occurredAt },
  { header: 'service', value: (e) => e.service },
  { header: 'level', value: (e) => e.level },
  { header: 'code', value: (e) => e.code },
  { header: 'message', value: (e) => e.message },
  { header: 'message_ru', value: (e) => e.messageRu },
  { header: 'subject', value: (e) => e.subject },
  { header: 'route', value: (e) => e.route },
  { header: 'request_id', value: (e) => e.requestId },
  { header: 'id', value: (e) => e.id },
];

/** The error log's CSV header line. */
export const errorsCsvHeader = () => csvRecord(ERROR_CSV.map((c) => c.header));

/** The CSV lines of some error log records. */
export const errorsCsvLines = (errors: ErrorLogRecord[]) =>
  errors.map((e) => csvRecord(ERROR_CSV.map((c) => c.value(e)))).join('');

export const errorFiltersView = (v: ErrorFilterValues) => ({
  services: v.services,
  codes: v.codes,
  levels: v.levels,
  occurred_at: { first: v.occurredAt.first, last: v.occurredAt.last },
});
