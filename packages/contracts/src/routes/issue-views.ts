import type { RouteSpec } from '@bulwark/platform';
import { z } from '../zod';
import { bulkResult, idsBody, perm } from '../common';
import { issueViewBody, ISSUE_VIEWS_PER_USER, savedIssueView } from '../schemas/issue-views';

// Saved views of the issue list: each user's own, so no project scope applies (a view is filters,
// and the list applies the caller's projects whenever it is opened).
const service = 'issues';
const viewsP = perm('issues.issues', 'r', 'organisation');

export const issueViewRoutes = [
  {
    operationId: 'listIssueViews',
    method: 'get',
    path: '/api/v1/issue-views',
    service,
    tag: 'Issues',
    access: viewsP,
    summary: 'The caller\u2019s saved views of the issue list, by name',
    description: 'Only the caller\u2019s own views: another user\u2019s are never listed.',
    response: z.object({ items: z.array(savedIssueView) }).openapi('SavedIssueViewList'),
  },
  {
    operationId: 'createIssueView',
    method: 'post',
    path: '/api/v1/issue-views',
    service,
    tag: 'Issues',
    access: viewsP,
    summary: 'Save a view of the issue list (its filters, sort and page size) under a name, for the caller only',
    description:
      `A name the caller already uses answers 409 naming name; at most ${ISSUE_VIEWS_PER_USER} views per user (409 beyond). ` +
      'query takes only parameters of a view (400 naming query with the unknown ones).',
    request: { body: issueViewBody },
    response: savedIssueView,
    errors: { 409: 'The caller already has a view of that name, or has the most views allowed' },
  },
  {
    operationId: 'deleteIssueViews',
    method: 'delete',
    path: '/api/v1/issue-views',
    service,
    tag: 'Issues',
    access: viewsP,
    summary: 'Delete saved views of the caller by id',
    description: 'Another user\u2019s view is not_found, as one that does not exist.',
    request: { body: idsBody },
    response: bulkResult,
  },
] as const satisfies readonly RouteSpec[];
