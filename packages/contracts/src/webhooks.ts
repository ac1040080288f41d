import { EVENT_PAYLOADS, IDENTITY_EVENTS, ISSUE_EVENTS, REPORT_EVENTS, SCAN_EVENTS } from './events';
import { z } from './zod';

/** How a webhook notifier writes an event: a JSON body, or one CEF line for SIEMs that ingest CEF over HTTP. */
export const WEBHOOK_PAYLOAD_FORMATS = ['json', 'cef'] as const;
export type WebhookPayloadFormat = (typeof WEBHOOK_PAYLOAD_FORMATS)[number];

/**
 * The version of every webhook body's layout (its `version` field). Within a version fields are only
 * added, never removed or retyped, so receivers should ignore fields they do not know; a breaking
 * change raises it.
 */
export const WEBHOOK_PAYLOAD_VERSION = 1;

/** The event a notifier test sends (POST /notifier/{id}/test): no data. */
export const NOTIFIER_TEST_EVENT = 'notifier.test';

/** The `data` of each event type a webhook receives: the event's payload, as the publishing service writes it. */
export const WEBHOOK_EVENT_DATA: Record<string, { summary: string; data: z.ZodObject }> = {
  [SCAN_EVENTS.scanCompleted]: {
    summary: 'A scan or an upload completed; its findings are being turned into issues',
    data: EVENT_PAYLOADS[SCAN_EVENTS.scanCompleted],
  },
  [SCAN_EVENTS.scanFailed]: {
    summary: 'A scan failed (scanner error, time limit, lost worker)',
    data: EVENT_PAYLOADS[SCAN_EVENTS.scanFailed],
  },
  [ISSUE_EVENTS.issuesIngested]: {
    summary: 'A completed scan\u2019s findings became issues: how many are new, seen again, reopened and fixed',
    data: EVENT_PAYLOADS[ISSUE_EVENTS.issuesIngested],
  },
  [ISSUE_EVENTS.qualityGateEvaluated]: {
    summary: 'The quality gates of a layer were evaluated after a scan: passed or failed, with each condition',
    data: EVENT_PAYLOADS[ISSUE_EVENTS.qualityGateEvaluated],
  },
  [ISSUE_EVENTS.issueStatusChanged]: {
    summary: 'Someone changed an issue\u2019s status',
    data: EVENT_PAYLOADS[ISSUE_EVENTS.issueStatusChanged],
  },
  [ISSUE_EVENTS.issueSlaBreached]: {
    summary: 'An open issue passed its SLA due date (sent once per issue and breach)',
    data: EVENT_PAYLOADS[ISSUE_EVENTS.issueSlaBreached],
  },
  [REPORT_EVENTS.reportReady]: {
    summary: 'A report is generated and can be downloaded',
    data: EVENT_PAYLOADS[REPORT_EVENTS.reportReady],
  },
  [REPORT_EVENTS.reportFailed]: {
    summary: 'A report could not be generated',
    data: EVENT_PAYLOADS[REPORT_EVENTS.reportFailed],
  },
  [IDENTITY_EVENTS.licenseExpiring]: {
    summary:
      'The installed license expires soon (sent at each warning threshold); after expiry the community limits apply',
    data: EVENT_PAYLOADS[IDENTITY_EVENTS.licenseExpiring],
  },
  [IDENTITY_EVENTS.licenseExpired]: {
    summary: 'The installed license has expired: the community limits apply',
    data: EVENT_PAYLOADS[IDENTITY_EVENTS.licenseExpired],
  },
  [NOTIFIER_TEST_EVENT]: {
    summary: 'A notifier test: proves the address, token and signature work',
    data: z.object({}),
  },
};

/** The whole JSON body a webhook receives for one event type. */
export function webhookBodySchema(type: string): z.ZodObject {
  const kind = WEBHOOK_EVENT_DATA[type];
  if (!kind) throw new Error(`No webhook schema for event type ${type}`);
  return z.object({
    version: z
      .literal(WEBHOOK_PAYLOAD_VERSION)
      .openapi({ description: 'The body layout\u2019s version; fields are only added within a version' }),
    id: z.string().openapi({ description: 'The event\u2019s id (the same on every notifier and retry)' }),
    type: z.literal(type),
    occurred_at: z.string().openapi({ description: 'ISO 8601 UTC' }),
    project_code: z.string().nullable(),
    message: z.string(),
    message_ru: z.string(),
    data: kind.data,
  });
}

/** A webhook body's JSON schema (JSON Schema 2020-12, as in the OpenAPI document). */
export function webhookJsonSchema(type: string): Record<string, unknown> {
  return z.toJSONSchema(webhookBodySchema(type), { target: 'draft-2020-12', io: 'input' });
}
