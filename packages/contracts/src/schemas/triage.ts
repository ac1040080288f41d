import { z } from '../zod';
import { isoDateTime, nonBlank } from '../common';
import { allowedOnlyWhen, withFieldRules } from '../field-rules';
import { VEX_JUSTIFICATIONS, VEX_RESPONSES, VEX_STATES } from '../vex';

export {
  VEX_JUSTIFICATIONS,
  VEX_RESPONSES,
  VEX_STATES,
  type VexJustification,
  type VexResponse,
  type VexState,
} from '../vex';

export const ASSIGNEE_TYPES = ['user', 'group'] as const;
export const RISK_ACCEPTANCE_STATES = ['pending', 'accepted', 'rejected', 'expired', 'revoked'] as const;
export type RiskAcceptanceState = (typeof RISK_ACCEPTANCE_STATES)[number];

/** The longest comment, reason or analysis detail a person writes. */
export const TRIAGE_TEXT_MAX = 4000;
const triageText = nonBlank(TRIAGE_TEXT_MAX);

export const assigneeRef = z
  .object({
    type: z.enum(ASSIGNEE_TYPES),
    id: z.uuid().openapi({ description: 'A user id or a user group id of the identity service' }),
  })
  .strict()
  .openapi('AssigneeRef');

export const assigneeView = z
  .object({
    type: z.enum(ASSIGNEE_TYPES),
    id: z.string(),
    name: z.string().openapi({ description: 'The username, or the user group\u2019s name' }),
    display_name: z.string(),
  })
  .openapi('Assignee');

export const assignBody = z
  .object({
    assignee: assigneeRef.nullable().openapi({ description: 'null unassigns' }),
    comment: z.string().max(TRIAGE_TEXT_MAX).optional(),
  })
  .strict();

export const bulkAssignBody = z
  .object({
    ids: z.array(z.uuid()).min(1).max(1000),
    assignee: assigneeRef.nullable().openapi({ description: 'null unassigns' }),
    comment: z.string().max(TRIAGE_TEXT_MAX).optional(),
  })
  .strict();

export const bulkAssignResult = z
  .object({
    results: z.array(z.object({ id: z.string(), status: z.enum(['changed', 'unchanged']) })),
  })
  .openapi('BulkAssignResult');

export const analysisBody = withFieldRules(
  z
    .object({
      state: z.enum(VEX_STATES),
      justification: z.enum(VEX_JUSTIFICATIONS).nullable().optional(),
      response: z.array(z.enum(VEX_RESPONSES)).max(VEX_RESPONSES.length).optional().openapi({ uniqueItems: true }),
      detail: z.string().max(TRIAGE_TEXT_MAX).nullable().optional(),
    })
    .strict(),
  // CycloneDX gives a justification only to not_affected.
  [allowedOnlyWhen('justification', 'state', ['not_affected'], 'is allowed only with state not_affected')],
).superRefine((b, ctx) => {
  if (b.response && new Set(b.response).size !== b.response.length)
    ctx.addIssue({ code: 'custom', path: ['response'], message: 'must not repeat a value' });
});

export const analysisView = z
  .object({
    state: z.enum(VEX_STATES),
    justification: z.enum(VEX_JUSTIFICATIONS).nullable(),
    response: z.array(z.enum(VEX_RESPONSES)),
    detail: z.string().nullable(),
    updated_by: z.string(),
    updated_at: isoDateTime,
  })
  .openapi('IssueAnalysis');

export const riskAcceptanceBody = z
  .object({
    issue_ids: z.array(z.uuid()).min(1).max(1000).openapi({ description: 'Issues of one project' }),
    reason: triageText,
    expires_at: isoDateTime.openapi({ description: 'When the acceptance ends and its issues reopen; in the future' }),
    approver_id: z.uuid().optional().openapi({
      description: 'A second approver (a user other than the requester): the acceptance waits for them',
    }),
  })
  .strict();

export const decisionBody = z.object({ comment: z.string().max(TRIAGE_TEXT_MAX).optional() }).strict();

export const riskAcceptanceView = z
  .object({
    id: z.string(),
    project_code: z.string(),
    state: z.enum(RISK_ACCEPTANCE_STATES),
    reason: z.string(),
    requested_by: z.string(),
    requested_by_id: z.string(),
    requested_at: isoDateTime,
    expires_at: isoDateTime,
    approver_id: z.string().nullable(),
    approver: z.string().nullable(),
    decided_by: z.string().nullable(),
    decided_at: isoDateTime.nullable(),
    decision_comment: z.string().nullable(),
    revoked_by: z.string().nullable(),
    revoked_at: isoDateTime.nullable(),
    revocation_comment: z.string().nullable(),
    issue_ids: z.array(z.string()),
  })
  .openapi('RiskAcceptance');
