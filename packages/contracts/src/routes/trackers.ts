import type { RouteSpec } from '@bulwark/platform';
import { z } from '../zod';
import { byId } from '../common';
import { bracketQuery, bulkResult, listOf, multi, pageQuery, perm } from '../common';
import {
  TRACKER_TYPES,
  TICKET_GROUPINGS,
  trackerBody,
  trackerUpdateBody,
  trackerView,
  ticketView,
  ticketResult,
} from '../schemas/trackers';

// Trackers and the tickets of issues live in the issues service: it owns issue statuses and history,
// which ticket links and status sync change in the same transaction.
const service = 'issues';
const trackersP = (l: 'r' | 'w' | 'x' | 'd') => perm('integrations.trackers', l, 'project-set');
const issuesP = (l: 'r' | 'w' | 'x' | 'd') => perm('issues.issues', l, 'project');

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
