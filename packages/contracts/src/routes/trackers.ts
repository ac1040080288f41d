import type { RouteSpec } from '@bulwark/platform';
import { z } from '../zod';
import { bracketQuery, bulkResult, int4, isoDateTime, listOf, multi, pageQuery, perm } from '../common';

// Trackers and the tickets of issues live in the issues service: it owns issue statuses and history,
// which ticket links and status sync change in the same transaction.
const service = 'issues';
const trackersP = (l: 'r' | 'w' | 'x' | 'd') => perm('integrations.trackers', l);
const issuesP = (l: 'r' | 'w' | 'x' | 'd') => perm('issues.issues', l);
const byId = z.object({ id: z.uuid() });

export const TRACKER_TYPES = ['redmine', 'jira'] as const;
export type TrackerType = (typeof TRACKER_TYPES)[number];
export const TICKET_GROUPINGS = ['issue', 'rule', 'cve'] as const;

/** Placeholders a field template may use; `{{name}}` anywhere else is refused. */
export const TEMPLATE_PLACEHOLDERS = [
  'title',
  'description',
  'severity',
  'project_code',
  'rule_id',
  'cve',
  'cwes',
  'file_path',
  'start_line',
  'lib_name',
  'lib_version',
  'tool_name',
  'issue_id',
  'count',
  'group',
  'issues',
] as const;

const name255 = z.string().trim().min(1).max(255);
const placeholderProblem = (text: string) => {
  const unknown = [...text.matchAll(/\{\{\s*([^}]*?)\s*\}\}/g)]
    .map((m) => m[1])
    .filter((p) => !(TEMPLATE_PLACEHOLDERS as readonly string[]).includes(p));
  return unknown.length
    ? `unknown placeholder ${unknown.map((u) => `{{${u}}}`).join(', ')}; known: ${TEMPLATE_PLACEHOLDERS.join(', ')}`
    : undefined;
};
const template = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .superRefine((v, ctx) => {
      const problem = placeholderProblem(v);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    });

const credentials = z
  .object({
    api_key: z
      .string()
      .min(1)
      .max(1024)
      .optional()
      .openapi({ description: 'Redmine: the API key of the account Bulwark acts as' }),
    username: z
      .string()
      .min(1)
      .max(255)
      .optional()
      .openapi({ description: 'Basic authentication: Redmine login, or the Jira account\u2019s e-mail' }),
    password: z
      .string()
      .min(1)
      .max(4096)
      .optional()
      .openapi({ description: 'Basic authentication: Redmine password, or a Jira API token' }),
    token: z
      .string()
      .min(1)
      .max(4096)
      .optional()
      .openapi({ description: 'Jira Data Center: a personal access token (Bearer)' }),
  })
  .strict()
  .openapi('TrackerCredentials', {
    description: 'Sealed at rest and never returned; an update that leaves it out keeps the stored one',
    writeOnly: true,
  });
export type TrackerCredentials = z.infer<typeof credentials>;

const projectMapping = z
  .object({
    project_code: z
      .string()
      .min(1)
      .max(64)
      .openapi({ description: 'A Bulwark project code, or * for every project without its own entry' }),
    tracker_project: z
      .string()
      .trim()
      .min(1)
      .max(255)
      .openapi({ description: 'Redmine project identifier or Jira project key' }),
    issue_type: z
      .string()
      .trim()
      .min(1)
      .max(255)
      .openapi({ description: 'Redmine tracker name (Bug) or Jira issue type name (Task, Bug)' }),
  })
  .strict();

const statusMapping = z
  .object({
    to_bulwark: z
      .array(z.object({ tracker_status: name255, status_id: int4(1) }).strict())
      .max(100)
      .default([])
      .openapi({
        description: 'A ticket reaching tracker_status moves its linked issues to the Bulwark status status_id',
      }),
    to_tracker: z
      .array(z.object({ status_id: int4(1), tracker_status: name255 }).strict())
      .max(100)
      .default([])
      .openapi({
        description:
          'A linked issue reaching status_id moves its ticket to tracker_status (a Redmine status, or the target status of a Jira transition), with a comment',
      }),
  })
  .strict();

const fieldTemplates = z
  .object({
    summary: template(1000)
      .optional()
      .openapi({
        description: `Ticket title (cut to 255 characters). Placeholders: ${TEMPLATE_PLACEHOLDERS.map((p) => `{{${p}}}`).join(' ')}`,
      }),
    description: template(20000)
      .optional()
      .openapi({ description: 'Ticket text, same placeholders; {{issues}} lists every issue of the ticket' }),
    labels: z
      .array(z.string().regex(/^[^\s]{1,255}$/, 'must be one word without spaces'))
      .max(20)
      .optional()
      .openapi({ description: 'Jira labels' }),
  })
  .strict();

const trackerFields = {
  name: name255,
  type: z.enum(TRACKER_TYPES),
  url: z
    .url({ protocol: /^https?$/ })
    .max(2048)
    .refine((u) => !/^[a-z]+:\/\/[^/]*@/i.test(u), 'must not carry credentials (give them in credentials)')
    .openapi({
      description:
        'Base address of the tracker (http or https); it must be reachable under the outbound address policy',
    }),
  projects: z.array(projectMapping).max(1000).optional(),
  status_mapping: statusMapping.optional(),
  field_templates: fieldTemplates.optional(),
  jira_api_version: z
    .union([z.literal(2), z.literal(3)])
    .optional()
    .openapi({ description: 'Jira REST API version (default 3: rich-text bodies in Atlassian Document Format)' }),
  sync_enabled: z
    .boolean()
    .optional()
    .openapi({ description: 'Poll the tracker for ticket statuses on the schedule (default true)' }),
};

function checkTracker(
  b: { type?: string; credentials?: TrackerCredentials; projects?: { project_code: string }[] },
  ctx: z.RefinementCtx,
  create: boolean,
) {
  const c = b.credentials;
  if (!c) {
    if (create) ctx.addIssue({ code: 'custom', path: ['credentials'], message: 'is required' });
  } else if (b.type === 'redmine' && !c.api_key && !(c.username && c.password)) {
    ctx.addIssue({ code: 'custom', path: ['credentials'], message: 'Redmine needs api_key, or username and password' });
  } else if (b.type === 'jira' && !c.token && !(c.username && c.password)) {
    ctx.addIssue({
      code: 'custom',
      path: ['credentials'],
      message: 'Jira needs token, or username and password (API token)',
    });
  } else if (b.type === 'jira' && c.api_key) {
    ctx.addIssue({
      code: 'custom',
      path: ['credentials', 'api_key'],
      message: 'is for Redmine; Jira takes token, or username and password',
    });
  }
  b.projects?.forEach((p, i) => {
    if (b.projects!.findIndex((q) => q.project_code === p.project_code) < i)
      ctx.addIssue({
        code: 'custom',
        path: ['projects', i, 'project_code'],
        message: 'repeats a project listed before',
      });
  });
}

export const trackerBody = z
  .object({ ...trackerFields, credentials: credentials.optional() })
  .strict()
  .superRefine((b, ctx) => checkTracker(b, ctx, true))
  .openapi('TrackerCreate');
export const trackerUpdateBody = z
  .object({ ...trackerFields, credentials: credentials.optional() })
  .strict()
  .superRefine((b, ctx) => checkTracker(b, ctx, false))
  .openapi('TrackerUpdate');
export type TrackerBody = z.infer<typeof trackerBody>;

export const trackerView = z
  .object({
    id: z.string(),
    name: z.string(),
    type: z.enum(TRACKER_TYPES),
    url: z.string(),
    has_credentials: z.boolean(),
    projects: z.array(z.object({ project_code: z.string(), tracker_project: z.string(), issue_type: z.string() })),
    status_mapping: z.object({
      to_bulwark: z.array(z.object({ tracker_status: z.string(), status_id: z.number().int() })),
      to_tracker: z.array(z.object({ status_id: z.number().int(), tracker_status: z.string() })),
    }),
    field_templates: z.object({ summary: z.string(), description: z.string(), labels: z.array(z.string()) }),
    jira_api_version: z.number().int(),
    sync_enabled: z.boolean(),
    tickets: z.number().int(),
    last_sync_at: isoDateTime.nullable(),
    last_sync_error: z.string().nullable(),
    created_at: isoDateTime,
    updated_at: isoDateTime,
  })
  .openapi('Tracker');

/** What an issue shows of its ticket. */
export const ticketView = z
  .object({
    tracker_id: z.string(),
    tracker_type: z.enum(TRACKER_TYPES),
    key: z.string(),
    url: z.string(),
    status: z.string().nullable(),
    closed: z.boolean(),
    synced_at: isoDateTime.nullable(),
  })
  .openapi('IssueTicket');

const ticketResult = z
  .object({
    results: z.array(
      z.object({
        id: z.string(),
        status: z.enum(['linked', 'not_found', 'conflict', 'failed']),
        ticket_key: z.string().optional(),
        message: z.string().optional(),
      }),
    ),
    tickets: z.array(ticketView.extend({ issue_ids: z.array(z.string()) })),
  })
  .openapi('TicketCreation');

export const trackerRoutes = [
  {
    operationId: 'createTracker',
    method: 'post',
    path: '/api/v1/tracker',
    service,
    tag: 'Task trackers',
    access: trackersP('w'),
    summary:
      'Connect a task tracker (Redmine or Jira): address, credentials, project and issue-type mapping, status mapping, field templates',
    description:
      'The address must be reachable under the outbound address policy (400 naming url otherwise). Credentials are sealed and never returned.',
    request: { body: trackerBody },
    response: trackerView,
  },
  {
    operationId: 'listTrackers',
    method: 'get',
    path: '/api/v1/trackers',
    service,
    tag: 'Task trackers',
    access: trackersP('r'),
    summary: 'Task trackers',
    request: {
      query: bracketQuery(
        z
          .object({
            ...pageQuery,
            'search[name]': z.string().min(1).max(255).optional(),
            'filter[type]': multi(z.enum(TRACKER_TYPES)),
          })
          .strict(),
      ),
    },
    response: listOf(trackerView, 'TrackerList'),
  },
  {
    operationId: 'getTracker',
    method: 'get',
    path: '/api/v1/tracker/{id}',
    service,
    tag: 'Task trackers',
    access: trackersP('r'),
    summary: 'One task tracker (without its credentials)',
    request: { params: byId },
    response: trackerView,
  },
  {
    operationId: 'updateTracker',
    method: 'put',
    path: '/api/v1/tracker/{id}',
    service,
    tag: 'Task trackers',
    access: trackersP('w'),
    summary: 'Replace a task tracker\u2019s settings; credentials left out are kept',
    request: { params: byId, body: trackerUpdateBody },
    response: trackerView,
  },
  {
    operationId: 'deleteTrackers',
    method: 'delete',
    path: '/api/v1/trackers',
    service,
    tag: 'Task trackers',
    access: trackersP('d'),
    summary:
      'Delete task trackers by id; one in use (a project mapped, or tickets linked) is a conflict unless force is true',
    description:
      'With force, the tracker\u2019s ticket links are removed from their issues (recorded in each issue\u2019s history); the tickets stay in the tracker.',
    request: {
      body: z
        .object({ ids: z.array(z.string().min(1)).min(1).max(1000), force: z.boolean().optional() })
        .strict()
        .openapi('TrackerDelete'),
    },
    response: bulkResult,
  },
  {
    operationId: 'removedDeleteTracker',
    method: 'delete',
    path: '/api/v1/tracker/{id}',
    service,
    tag: 'Task trackers',
    access: trackersP('d'),
    summary: 'Removed in release 1.5',
    gone: 'Removed in release 1.5: use DELETE /api/v1/trackers with { ids }',
  },
  {
    operationId: 'syncTracker',
    method: 'post',
    path: '/api/v1/tracker/{id}/sync',
    service,
    tag: 'Task trackers',
    access: trackersP('x'),
    summary:
      'Read the statuses of the tracker\u2019s tickets now (as the schedule does) and move linked issues along the status mapping',
    request: { params: byId },
    response: z
      .object({
        tickets: z.number().int(),
        changed: z.number().int(),
        issues_moved: z.number().int(),
        error: z.string().nullable(),
      })
      .openapi('TrackerSync'),
  },
  {
    operationId: 'createTickets',
    method: 'post',
    path: '/api/v1/issues/tickets',
    service,
    tag: 'Task trackers',
    access: issuesP('w'),
    summary: 'Create tickets from a selection of issues: one per issue, or one per rule or per CVE (within a project)',
    description:
      'Issues already linked to a ticket, or of a project the tracker maps to no tracker project, answer conflict; a ticket the tracker did not accept answers failed for its issues.',
    request: {
      body: z
        .object({
          tracker_id: z.uuid(),
          ids: z.array(z.uuid()).min(1).max(1000),
          group_by: z.enum(TICKET_GROUPINGS).default('issue'),
        })
        .strict(),
    },
    response: ticketResult,
  },
  {
    operationId: 'createIssueTicket',
    method: 'post',
    path: '/api/v1/issue/{id}/ticket',
    service,
    tag: 'Task trackers',
    access: issuesP('w'),
    summary: 'Create a ticket from one issue and link it',
    errors: { 409: 'Already linked, no project mapping, or the tracker did not accept the ticket' },
    request: { params: byId, body: z.object({ tracker_id: z.uuid() }).strict() },
    response: ticketView,
  },
  {
    operationId: 'linkIssueTicket',
    method: 'put',
    path: '/api/v1/issue/{id}/ticket',
    service,
    tag: 'Task trackers',
    access: issuesP('w'),
    summary: 'Link an issue to an existing ticket (replacing a link it has)',
    errors: { 409: 'The tracker could not be read' },
    request: {
      params: byId,
      body: z
        .object({
          tracker_id: z.uuid(),
          key: z
            .string()
            .trim()
            .min(1)
            .max(64)
            .regex(/^[A-Za-z0-9_-]+$/, 'must be a ticket key such as 123 or SEC-42'),
        })
        .strict(),
    },
    response: ticketView,
  },
  {
    operationId: 'unlinkIssueTicket',
    method: 'delete',
    path: '/api/v1/issue/{id}/ticket',
    service,
    tag: 'Task trackers',
    access: issuesP('w'),
    summary: 'Unlink an issue from its ticket (the ticket stays in the tracker)',
    request: { params: byId },
    response: z
      .object({ id: z.string(), status: z.enum(['unlinked', 'unchanged']), key: z.string().nullable() })
      .openapi('TicketUnlink'),
  },
] as const satisfies readonly RouteSpec[];
