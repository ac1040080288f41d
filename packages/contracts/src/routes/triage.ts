import type { RouteSpec } from '@bulwark/platform';
import { z } from '../zod';
import { bracketQuery, byId, listOf, multi, pageQuery, perm } from '../common';
import { issueView } from '../schemas/issues';
import {
  RISK_ACCEPTANCE_STATES,
  analysisBody,
  analysisView,
  assignBody,
  assigneeView,
  bulkAssignBody,
  bulkAssignResult,
  decisionBody,
  riskAcceptanceBody,
  riskAcceptanceView,
} from '../schemas/triage';

// Triage of issues: who works on them, what they found (CycloneDX VEX analysis) and which risks are
// accepted until when. Served by the issues service, which owns the issues and their history.
const service = 'issues';
const issuesP = (l: 'r' | 'w') => perm('issues.issues', l, 'project');

export const triageRoutes = [
  {
    operationId: 'findAssignees',
    method: 'get',
    path: '/api/v1/issues/assignees',
    service,
    tag: 'Issue triage',
    access: perm('issues.issues', 'r', 'organisation'),
    summary: 'Users and user groups whose name contains the search text, to assign issues to',
    description:
      'Users (by username or display name; deleted ones left out) first, then user groups (by name); at most limit (50). ' +
      'A caller limited to some projects finds only those reaching one of them: users holding issues.issues r there, groups covering one.',
    request: {
      query: z
        .object({
          search: z.string().trim().min(1).max(255),
          limit: z.coerce.number().int().min(1).max(50, 'must be at most 50').default(20),
        })
        .strict(),
    },
    response: z.object({ items: z.array(assigneeView) }).openapi('AssigneeList'),
  },
  {
    operationId: 'assignIssue',
    method: 'put',
    path: '/api/v1/issue/{id}/assignee',
    service,
    tag: 'Issue triage',
    access: issuesP('w'),
    summary: 'Assign an issue to a user or a user group (null unassigns); recorded in its history',
    description:
      'The assignee must exist in the identity service (a user not deleted, or a user group) and reach the issue\u2019s project ' +
      '(a user holding issues.issues r there, a group covering it): 400 naming assignee.id otherwise.',
    request: { params: byId, body: assignBody },
    response: issueView,
  },
  {
    operationId: 'assignIssues',
    method: 'put',
    path: '/api/v1/issues/assignee',
    service,
    tag: 'Issue triage',
    access: issuesP('w'),
    summary: 'Assign several issues at once, all or nothing',
    description:
      'Every id must be an issue of the caller\u2019s projects, or nothing changes: 400 naming ids with the unknown ones. ' +
      'Each issue whose assignee changes gets a history entry.',
    request: { body: bulkAssignBody },
    response: bulkAssignResult,
  },
  {
    operationId: 'setIssueAnalysis',
    method: 'put',
    path: '/api/v1/issue/{id}/analysis',
    service,
    tag: 'Issue triage',
    access: issuesP('w'),
    summary: 'Record the issue\u2019s analysis in the CycloneDX VEX vocabulary: state, justification, response, detail',
    description:
      'justification only with state not_affected. The VEX export (GET /api/v1/layer/{layer_id}/sbom?kind=vex) states this analysis ' +
      'instead of the one derived from the status. The change is in the issue\u2019s history (field analysis).',
    request: { params: byId, body: analysisBody },
    response: analysisView,
  },
  {
    operationId: 'createRiskAcceptance',
    method: 'post',
    path: '/api/v1/risk-acceptance',
    service,
    tag: 'Risk acceptance',
    access: issuesP('w'),
    summary:
      'Accept the risk of issues of one project, with a reason, until a time; optionally after a second approval',
    description:
      'Without approver_id the acceptance holds at once: its issues move to Risk accepted (6). With approver_id (a user other than the requester ' +
      'holding issues.issues w on the issues\u2019 project, 400 naming approver_id otherwise) ' +
      'it is pending until that user approves (then the issues move) or rejects it. Each issue must be allowed to move to Risk accepted by the ' +
      'transitions and be in no other pending or accepted acceptance (409 naming issue_ids). At expires_at the issues still Risk accepted reopen (8).',
    request: { body: riskAcceptanceBody },
    response: riskAcceptanceView,
  },
  {
    operationId: 'listRiskAcceptances',
    method: 'get',
    path: '/api/v1/risk-acceptances',
    service,
    tag: 'Risk acceptance',
    access: issuesP('r'),
    summary: 'Risk acceptances of the caller\u2019s projects, newest first',
    description:
      'filter[approver]=me lists those waiting for the caller\u2019s approval with filter[state]=pending; filter[issue] those that list an issue.',
    request: {
      query: bracketQuery(
        z
          .object({
            ...pageQuery,
            'filter[state]': multi(z.enum(RISK_ACCEPTANCE_STATES)),
            'filter[project_code]': multi(z.string().min(1).max(64)),
            'filter[approver]': z
              .union([z.literal('me'), z.uuid()])
              .optional()
              .openapi({ description: 'me, or a user id' }),
            'filter[issue]': z.uuid().optional(),
          })
          .strict(),
      ),
    },
    response: listOf(riskAcceptanceView, 'RiskAcceptanceList'),
  },
  {
    operationId: 'getRiskAcceptance',
    method: 'get',
    path: '/api/v1/risk-acceptance/{id}',
    service,
    tag: 'Risk acceptance',
    access: issuesP('r'),
    summary: 'One risk acceptance with its issues',
    request: { params: byId },
    response: riskAcceptanceView,
  },
  {
    operationId: 'approveRiskAcceptance',
    method: 'post',
    path: '/api/v1/risk-acceptance/{id}/approve',
    service,
    tag: 'Risk acceptance',
    access: issuesP('w'),
    summary: 'Approve a pending risk acceptance as its named approver: its issues move to Risk accepted',
    description:
      'Only the approver it names may approve (403 otherwise, also for the requester); one not pending answers 409.',
    request: { params: byId, body: decisionBody },
    response: riskAcceptanceView,
  },
  {
    operationId: 'rejectRiskAcceptance',
    method: 'post',
    path: '/api/v1/risk-acceptance/{id}/reject',
    service,
    tag: 'Risk acceptance',
    access: issuesP('w'),
    summary: 'Reject a pending risk acceptance as its named approver; its issues stay as they are',
    request: { params: byId, body: decisionBody },
    response: riskAcceptanceView,
  },
  {
    operationId: 'revokeRiskAcceptance',
    method: 'post',
    path: '/api/v1/risk-acceptance/{id}/revoke',
    service,
    tag: 'Risk acceptance',
    access: issuesP('w'),
    summary: 'End a pending or accepted risk acceptance before its time: the issues it still holds reopen',
    description:
      'Any caller who may change the issues of the acceptance\u2019s project may revoke it (the requester withdrawing a request, a ' +
      'team ending an acceptance early): its state becomes revoked, with revoked_by, revoked_at and the comment as revocation_comment; the ' +
      'approver\u2019s decision stays as it was. Of an accepted one, the issues still Risk accepted (6) reopen (8), as at its expiry, each ' +
      'change in the issue\u2019s history. One neither pending nor accepted answers 409; one of another project 404.',
    request: { params: byId, body: decisionBody },
    response: riskAcceptanceView,
  },
] as const satisfies readonly RouteSpec[];
