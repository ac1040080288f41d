import type { RouteSpec } from '@bulwark/platform';
import { z } from '../zod';
import { ERROR_LEVELS } from '@bulwark/platform';
import { bracketQuery, bulkResult, idsBody, isoDateTime, listOf, multi, pageQuery, perm } from '../common';
import { IDENTITY_EVENTS, ISSUE_EVENTS, REPORT_EVENTS, SCAN_EVENTS } from '../events';
import { standardSecretProblem } from '../webhook-secret';
import { WEBHOOK_PAYLOAD_FORMATS } from '../webhooks';

const service = 'notifications';
const notifiersP = (l: 'r' | 'w' | 'x' | 'd') => perm('notifications.notifiers', l);
const eventsP = (l: 'r' | 'w' | 'x' | 'd') => perm('notifications.events', l);
const errorsLogP = (l: 'r' | 'w' | 'x' | 'd') => perm('administration.errors_log', l);
const byId = z.object({ id: z.uuid() });

/** The one notifier type so far. */
export const WEBHOOK_NOTIFIER_TYPE = 1;

/** The security events a notifier can receive (and the events log records). */
export const NOTIFIABLE_EVENTS = [
  SCAN_EVENTS.scanCompleted,
  SCAN_EVENTS.scanFailed,
  ISSUE_EVENTS.issuesIngested,
  ISSUE_EVENTS.qualityGateEvaluated,
  ISSUE_EVENTS.issueStatusChanged,
  REPORT_EVENTS.reportReady,
  REPORT_EVENTS.reportFailed,
  IDENTITY_EVENTS.licenseExpiring,
  IDENTITY_EVENTS.licenseExpired,
] as const;

const webhookSettings = z
  .object({
    url: z
      .url({ protocol: /^https?$/ })
      .max(2048)
      .openapi({ description: 'Target address (http or https); events are POSTed to it as JSON' }),
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

export const notifierBody = z
  .object({
    name: z.string().trim().min(1).max(255),
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

const eventQuery = {
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

const errorFilters = {
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

export const notificationsRoutes = [
  {
    operationId: 'createNotifier',
    method: 'post',
    path: '/api/v1/notifier',
    service,
    tag: 'Notifiers',
    access: notifiersP('w'),
    summary: 'Create a webhook notifier',
    description:
      'Each event is POSTed as JSON { id, type, occurred_at, project_code, message, message_ru, data } with headers X-Bulwark-Event and X-Bulwark-Delivery (the same on a retry), the token header and X-Bulwark-Signature when set. A non-2xx answer or no answer within timeout_seconds is retried with growing delays (1 s doubling to 10 min) up to NOTIFY_MAX_ATTEMPTS; a target the outbound policy refuses is not retried; deliveries of one notifier are spread to rate_limit per second.',
    request: { body: notifierBody },
    response: notifierView,
  },
  {
    operationId: 'listNotifiers',
    method: 'get',
    path: '/api/v1/notifiers',
    service,
    tag: 'Notifiers',
    access: notifiersP('r'),
    summary: 'Notifiers, by name',
    request: {
      query: bracketQuery(z.object({ ...pageQuery, 'search[name]': z.string().min(1).max(255).optional() }).strict()),
    },
    response: listOf(notifierView, 'NotifierList'),
  },
  {
    operationId: 'getNotifier',
    method: 'get',
    path: '/api/v1/notifier/{id}',
    service,
    tag: 'Notifiers',
    access: notifiersP('r'),
    summary: 'One notifier with its delivery counts',
    request: { params: byId },
    response: notifierView,
  },
  {
    operationId: 'deleteNotifierRemoved',
    method: 'delete',
    path: '/api/v1/notifier/{id}',
    service,
    tag: 'Notifiers',
    access: notifiersP('d'),
    summary: 'Removed in release 1.5',
    gone: 'Removed in release 1.5: use DELETE /api/v1/notifiers with { "ids": [...] }',
  },
  {
    operationId: 'updateNotifier',
    method: 'put',
    path: '/api/v1/notifier/{id}',
    service,
    tag: 'Notifiers',
    access: notifiersP('w'),
    summary: 'Replace a notifier\u2019s settings (a token left out is kept)',
    request: { params: byId, body: notifierBody },
    response: notifierView,
  },
  {
    operationId: 'deleteNotifiers',
    method: 'delete',
    path: '/api/v1/notifiers',
    service,
    tag: 'Notifiers',
    access: notifiersP('d'),
    summary: 'Delete notifiers by id (their pending deliveries are dropped)',
    request: { body: idsBody },
    response: bulkResult,
  },
  {
    operationId: 'testNotifier',
    method: 'post',
    path: '/api/v1/notifier/{id}/test',
    service,
    tag: 'Notifiers',
    access: notifiersP('x'),
    summary: 'Send a notifier.test event to a saved notifier now and say how it went',
    request: { params: byId },
    response: notifierTestResult,
  },
  {
    operationId: 'testNotifierType',
    method: 'post',
    path: '/api/v1/notifier-type/{id}/test',
    service,
    tag: 'Notifiers',
    access: notifiersP('x'),
    summary: 'Send a notifier.test event with settings not saved yet (id 1: webhook)',
    request: {
      params: z.object({ id: z.coerce.number().int().pipe(z.literal(WEBHOOK_NOTIFIER_TYPE)) }),
      body: z.object({ settings: webhookSettings }).strict(),
    },
    response: notifierTestResult,
  },
  {
    operationId: 'eventTemplate',
    method: 'get',
    path: '/api/v1/event-template',
    service,
    tag: 'Events',
    access: eventsP('r'),
    summary:
      'The events a notifier can send: type, description, an example of its data, and the JSON schema (2020-12) of the whole webhook body of that version',
    description: 'The same schemas are the OpenAPI document\u2019s webhooks, one per event type (plus notifier.test).',
    response: z.object({
      items: z.array(
        z.object({
          type: z.string(),
          description: z.string(),
          example: z.record(z.string(), z.unknown()),
          version: z
            .number()
            .int()
            .openapi({ description: 'The webhook body layout\u2019s version (its version field)' }),
          schema: z.record(z.string(), z.unknown()).openapi({ description: 'JSON Schema of the webhook body' }),
        }),
      ),
    }),
  },
  {
    operationId: 'listEvents',
    method: 'get',
    path: '/api/v1/events',
    service,
    tag: 'Events',
    access: eventsP('r'),
    summary: 'Security events, newest first, within the caller\u2019s projects',
    request: { query: bracketQuery(z.object({ ...pageQuery, ...eventQuery }).strict()) },
    response: listOf(eventView, 'SecurityEventList'),
  },
  {
    operationId: 'eventsCsv',
    method: 'get',
    path: '/api/v1/events/csv',
    service,
    tag: 'Events',
    access: eventsP('r'),
    summary: 'The same events as CSV (at most 100,000 rows)',
    request: { query: bracketQuery(z.object(eventQuery).strict()) },
  },
  {
    operationId: 'listErrors',
    method: 'get',
    path: '/api/v1/errors-log',
    service,
    tag: 'Error log',
    access: errorsLogP('r'),
    summary: 'Operational errors of every service, newest first',
    description:
      'What an administrator must see: 5xx answers (route, request id and code, never a stack or a secret), failed scans and checkouts, failed report generations, ' +
      'webhook deliveries given up, integration failures (directory) and events a consumer gave up. Kept ERRORS_LOG_RETENTION_DAYS days.',
    request: { query: bracketQuery(z.object({ ...pageQuery, ...errorFilters }).strict()) },
    response: listOf(errorView, 'ErrorLogList'),
  },
  {
    operationId: 'errorsCsv',
    method: 'get',
    path: '/api/v1/errors-log/csv',
    service,
    tag: 'Error log',
    access: errorsLogP('r'),
    summary: 'The same errors as CSV, streamed (cells that a spreadsheet would run as formulas are defused)',
    request: { query: bracketQuery(z.object(errorFilters).strict()) },
  },
  {
    operationId: 'errorFilters',
    method: 'get',
    path: '/api/v1/errors-log/filters',
    service,
    tag: 'Error log',
    access: errorsLogP('r'),
    summary:
      'The values the error-log filters can take: services, codes and levels present, and the date range, within the given dates',
    request: {
      query: bracketQuery(
        z
          .object({
            'filter[occurred_at_start]': errorFilters['filter[occurred_at_start]'],
            'filter[occurred_at_end]': errorFilters['filter[occurred_at_end]'],
          })
          .strict(),
      ),
    },
    response: errorLogFilters,
  },
] as const satisfies readonly RouteSpec[];
