import type { RouteSpec } from '@bulwark/platform';
import { z } from '../zod';
import { byId } from '../common';
import { bracketQuery, bulkResult, idsBody, listOf, pageQuery, perm } from '../common';
import {
  WEBHOOK_NOTIFIER_TYPE,
  webhookSettings,
  notifierBody,
  notifierView,
  notifierTestResult,
  eventView,
  eventQuery,
  errorView,
  errorLogFilters,
  errorFilters,
} from '../schemas/notifications';

const service = 'notifications';
const notifiersP = (l: 'r' | 'w' | 'x' | 'd') => perm('notifications.notifiers', l, 'project-set');
const eventsP = (l: 'r' | 'w' | 'x' | 'd') => perm('notifications.events', l, 'project');
const errorsLogP = (l: 'r' | 'w' | 'x' | 'd') => perm('administration.errors_log', l, 'unscoped');

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
    description:
      'A caller limited to some projects sees notifiers of every project and those sharing one of its projects, with only its own project codes (others: 404), and creates, changes, tests or deletes only those whose projects are all its own (403).',
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
      params: z.object({
        id: z.coerce
          .number()
          .int()
          .pipe(z.literal(WEBHOOK_NOTIFIER_TYPE))
          .openapi({ type: 'integer', enum: [WEBHOOK_NOTIFIER_TYPE], description: 'The notifier type: 1, webhook' }),
      }),
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
    access: perm('notifications.events', 'r', 'organisation'),
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
    files: { 'text/csv': 'text' },
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
    files: { 'text/csv': 'text' },
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
