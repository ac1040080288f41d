import type { RiskAcceptanceRecord } from '../store/risk-acceptances';
import type { DirectoryEntry } from '../triage/directory';

export const assigneeView = (a: DirectoryEntry) => ({
  type: a.type,
  id: a.id,
  name: a.name,
  display_name: a.displayName,
});

export const riskAcceptanceView = (r: RiskAcceptanceRecord) => ({
  id: r.id,
  project_code: r.projectCode,
  state: r.state,
  reason: r.reason,
  requested_by: r.requestedBy,
  requested_by_id: r.requestedById,
  requested_at: r.requestedAt,
  expires_at: r.expiresAt,
  approver_id: r.approverId,
  approver: r.approver,
  decided_by: r.decidedBy,
  decided_at: r.decidedAt,
  decision_comment: r.decisionComment,
  revoked_by: r.revokedBy,
  revoked_at: r.revokedAt,
  revocation_comment: r.revocationComment,
  issue_ids: r.issueIds,
});
