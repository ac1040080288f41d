import { z } from '../zod';
import { ERROR_LEVELS } from '@bulwark/platform';
import { isoDateTime, multi, nonBlank, webUrl } from '../common';
import { IDENTITY_EVENTS, ISSUE_EVENTS, REPORT_EVENTS, SCAN_EVENTS } from '../events';
import { requiredWith, withFieldRules } from '../field-rules';
import { standardSecretProblem } from '../webhook-secret';
import { WEBHOOK_PAYLOAD_FORMATS } from '../webhooks';

/** The one notifier type so far. */
export const WEBHOOK_NOTIFIER_TYPE = 1;

/** The security events a notifier can receive (and the events log records). */
export const NOTIFIABLE_EVENTS = [
  SCAN_EVENTS.scanCompleted,
  SCAN_EVENTS.scanFailed,
  ISSUE_EVENTS.issuesIngested,
  ISSUE_EVENTS.qualityGateEvaluated,
  ISSUE_EVENTS.issueStatusChanged,
  ISSUE_EVENTS.issueSlaBreached,
  REPORT_EVENTS.reportReady,
  REPORT_EVENTS.reportFailed,
  IDENTITY_EVENTS.licenseExpiring,
  IDENTITY_EVENTS.licenseExpired,
] as const;

const webhookFields = z
  .object({
    url: webUrl().max(2048).openapi({ description: 'Target address (http or https); events are POSTed to it as JSON' }),
    rate_limit: z
      .number()
      .int()
      .min(1)
      .max(100)
      .default(5)
      .openapi({ description: 'Requests per second at most (1-100)' }),
    auth_header_name: z
      .string()
      .regex(/^[A-Za-z0-9-]{1,64}$/, 'must be an HTTP header name')
      .optional()
      .openapi({ description: 'Token authentication: the header carrying the token' }),
    auth_header_value: z.string().min(1).max(4096).optional().openapi({
      description: 'The token; sealed at rest and never returned (kept when an update leaves it out)',
      writeOnly: true,
    }),
    timeout_seconds: z.number().int().min(1).max(60).default(10),
    payload_format: z.enum(WEBHOOK_PAYLOAD_FORMATS).default('json').openapi({
      description:
        'json: the JSON body of the event type\u2019s webhook; cef: one ArcSight CEF line (text/plain; CEF:0|Bulwark|Bulwark|<version>|<event type>|<message>|<severity 0-10>|rt externalId msg cs1 project_code, cs2 payload_version, cs3 data as JSON), signed the same way',
    }),
    signing_secret: z
      .string()
      .min(16)
      .max(256)
      .superRefine((secret, ctx) => {
        const problem = standardSecretProblem(secret);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      })
      .optional()
      .openapi({
        description:
          'Signs every call with Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">). ' +
          'Preferably whsec_ followed by base64 of 24-64 random bytes; any other text of 16+ characters is used as raw key bytes. ' +
          'A new secret replaces the old one, which keeps signing beside it for NOTIFY_SECRET_ROTATION_HOURS. Also sent: X-Bulwark-Signature: sha256=<hex HMAC-SHA256 of the body> (legacy). ' +
          'Sealed at rest, never returned, kept when an update leaves it out',
        writeOnly: true,
      }),
  })
  .strict();

export const webhookSettings = withFieldRules(webhookFields, [
  requiredWith('auth_header_name', 'auth_header_value', 'is required with settings.auth_header_value'),
]);

export const notifierBody = z
  .object({
    name: nonBlank(255),
    type_id: z.literal(WEBHOOK_NOTIFIER_TYPE).default(WEBHOOK_NOTIFIER_TYPE).openapi({ description: '1: webhook' }),
    settings: webhookSettings,
    events: z
      .array(z.enum(NOTIFIABLE_EVENTS))
      .max(NOTIFIABLE_EVENTS.length)
      .default([])
      .openapi({ description: 'Event types to send; empty: all' }),
    project_codes: z
      .array(z.string().min(1).max(64))
      .max(1000)
      .default([])
      .openapi({ description: 'Projects whose events are sent; empty: all the author may see' }),
    active: z.boolean().default(true),
  })
  .strict();

export const notifierView = z
  .object({
    id: z.string(),
    name: z.string(),
    type_id: z.number().int(),
    active: z.boolean(),
    events: z.array(z.string()),
    project_codes: z.array(z.string()),
    settings: z.object({
      url: z.string(),
      rate_limit: z.number().int(),
      auth_header_name: z.string().nullable(),
      auth_header_set: z.boolean(),
      timeout_seconds: z.number().int(),
      payload_format: z.enum(WEBHOOK_PAYLOAD_FORMATS),
      signing_secret_set: z.boolean(),
      previous_signing_secret_expires_at: isoDateTime
        .nullable()
        .openapi({ description: 'Until when the replaced signing secret still signs beside the current one' }),
    }),
    author: z.string(),
    created_at: isoDateTime,
    updated_at: isoDateTime,
    deliveries: z.object({
      pending: z.number().int(),
      delivered: z.number().int(),
      failed: z.number().int(),
      last_error: z.string().nullable(),
    }),
  })
  .openapi('Notifier');

export const notifierTestResult = z
  .object({
    delivered: z.boolean(),
    status: z.number().int().nullable(),
    error: z.string().nullable(),
    duration_ms: z.number().int(),
  })
  .openapi('NotifierTestResult');

export const eventView = z
  .object({
    id: z.string(),
    type: z.string(),
    project_code: z.string().nullable(),
    message: z.string(),
    message_ru: z.string(),
    occurred_at: isoDateTime,
    data: z.record(z.string(), z.unknown()),
  })
  .openapi('SecurityEvent');

export const eventQuery = {
  'search[message]': z.string().min(1).max(255).optional(),
  'search[message_ru]': z.string().min(1).max(255).optional(),
  'filter[type]': z.enum(NOTIFIABLE_EVENTS).optional(),
  'filter[project_code]': z.string().min(1).max(64).optional(),
};

export const errorView = z
  .object({
    id: z.string(),
    occurred_at: isoDateTime,
    service: z.string().openapi({ description: 'The service that met the error' }),
    level: z.enum(ERROR_LEVELS),
    code: z.string().openapi({
      description:
        'Dotted, area first: http.internal, http.unavailable, scan.failed, scan.checkout_failed, scan.worker_lost, report.failed, webhook.given_up, directory.unreachable, event.dead_lettered',
      example: 'scan.checkout_failed',
    }),
    message: z.string(),
    message_ru: z.string(),
    subject: z
      .string()
      .nullable()
      .openapi({ description: 'The id of what failed (scan result, report, delivery, event), when there is one' }),
    route: z.string().nullable().openapi({
      description: 'METHOD and route-table path of the request that failed',
      example: 'GET /api/v1/project/{project_code}',
    }),
    request_id: z.string().nullable(),
    details: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
  })
  .openapi('ErrorLogEntry');

export const errorLogFilters = z
  .object({
    services: z.array(z.string()),
    codes: z.array(z.string()),
    levels: z.array(z.enum(ERROR_LEVELS)),
    occurred_at: z.object({ first: isoDateTime.nullable(), last: isoDateTime.nullable() }),
  })
  .openapi('ErrorLogFilters');

export const errorFilters = {
  'filter[service]': multi(z.string().min(1).max(64)).openapi({
    description: 'One or several services (repeat the parameter)',
  }),
  'filter[code]': multi(z.string().min(1).max(100)).openapi({
    description: 'One or several codes (repeat the parameter)',
  }),
  'filter[level]': multi(z.enum(ERROR_LEVELS)).openapi({ description: 'One or several levels (repeat the parameter)' }),
  'filter[occurred_at_start]': isoDateTime.optional(),
  'filter[occurred_at_end]': isoDateTime.optional(),
  'search[message]': z
    .string()
    .min(1)
    .max(255)
    .optional()
    .openapi({ description: 'Part of the English message, any case' }),
  'search[message_ru]': z
    .string()
    .min(1)
    .max(255)
    .optional()
    .openapi({ description: 'Part of the Russian message, any case' }),
};
