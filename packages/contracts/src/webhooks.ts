import { IDENTITY_EVENTS, ISSUE_EVENTS, REPORT_EVENTS, SCAN_EVENTS } from './events';
import { GATE_CONDITION_TYPES, GATE_OPERATORS } from './routes/issues';
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

const scanRef = { scan_result_id: z.string(), check_id: z.string(), layer_id: z.string(), project_code: z.string() };
const count = z.number().int().min(0);
const licenseRef = { license_id: z.string(), licensee: z.string(), edition: z.string(), expires_at: z.string().openapi({ description: 'ISO 8601 UTC' }) };

const conditionVerdict = z.object({
  condition_id: z.string(), quality_gate_id: z.string(), quality_gate_name: z.string(), action: z.enum(['lock', 'inform']),
  condition_type: z.enum(GATE_CONDITION_TYPES), condition_value: z.string(), operator: z.enum(GATE_OPERATORS),
  value: z.number(), measured: z.number(), passed: z.boolean(),
});

/** The `data` of each event type a webhook receives, as the publishing service writes it. */
export const WEBHOOK_EVENT_DATA: Record<string, { summary: string; data: z.ZodObject }> = {
  [SCAN_EVENTS.scanCompleted]: {
    summary: 'A scan or an upload completed; its findings are being turned into issues',
    data: z.object({
      ...scanRef,
      findings_count: count,
      severity_counts: z.record(z.string(), count).optional().openapi({ description: 'Findings by severity' }),
      tool_id: z.string(),
      uploaded: z.boolean().optional().openapi({ description: 'true when the report was uploaded rather than scanned' }),
      findings_digest: z.string().nullable().optional().openapi({ description: 'A digest of the findings: equal digests, equal findings' }),
    }),
  },
  [SCAN_EVENTS.scanFailed]: {
    summary: 'A scan failed (scanner error, time limit, lost worker)',
    data: z.object({ ...scanRef, error: z.string().optional(), reason: z.string().optional() }),
  },
  [ISSUE_EVENTS.issuesIngested]: {
    summary: 'A completed scan\u2019s findings became issues: how many are new, seen again, reopened and fixed',
    data: z.object({ ...scanRef, findings: count, created: count, updated: count, reopened: count, fixed: count }),
  },
  [ISSUE_EVENTS.qualityGateEvaluated]: {
    summary: 'The quality gates of a layer were evaluated after a scan: passed or failed, with each condition',
    data: z.object({
      scan_result_id: z.string(), layer_id: z.string(), project_code: z.string(),
      verdict: z.object({
        status: z.enum(['passed', 'failed']),
        locked: z.boolean(),
        gates: z.array(z.object({ quality_gate_id: z.string(), name: z.string(), action: z.enum(['lock', 'inform']), status: z.enum(['passed', 'failed']) })).optional(),
        conditions: z.array(conditionVerdict),
      }),
    }),
  },
  [ISSUE_EVENTS.issueStatusChanged]: {
    summary: 'Someone changed an issue\u2019s status',
    data: z.object({
      issue_id: z.string(), project_code: z.string(), from_status_id: z.number().int(), to_status_id: z.number().int(), by: z.string(), comment: z.string().nullable(),
    }),
  },
  [REPORT_EVENTS.reportReady]: {
    summary: 'A report is generated and can be downloaded',
    data: z.object({ id: z.string(), name: z.string(), type: z.string(), author: z.string().nullable(), project_codes: z.array(z.string()) }),
  },
  [REPORT_EVENTS.reportFailed]: {
    summary: 'A report could not be generated',
    data: z.object({ id: z.string(), name: z.string(), type: z.string(), author: z.string().nullable(), error: z.string() }),
  },
  [IDENTITY_EVENTS.licenseExpiring]: {
    summary: 'The installed license expires soon (sent at each warning threshold); after expiry the community limits apply',
    data: z.object({ ...licenseRef, days_left: count }),
  },
  [IDENTITY_EVENTS.licenseExpired]: {
    summary: 'The installed license has expired: the community limits apply',
    data: z.object(licenseRef),
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
    version: z.literal(WEBHOOK_PAYLOAD_VERSION).openapi({ description: 'The body layout\u2019s version; fields are only added within a version' }),
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
  return z.toJSONSchema(webhookBodySchema(type), { target: 'draft-2020-12', io: 'input' }) as Record<string, unknown>;
}
