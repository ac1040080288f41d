import { iso, pgArray, Queryable, queryPage } from '@bulwark/platform';
import type { RiskAcceptanceState } from '@bulwark/contracts';

export interface RiskAcceptanceRecord {
  id: string;
  projectCode: string;
  state: RiskAcceptanceState;
  reason: string;
  requestedBy: string;
  requestedById: string;
  requestedAt: string;
  expiresAt: string;
  approverId: string | null;
  approver: string | null;
  decidedBy: string | null;
  decidedAt: string | null;
  decisionComment: string | null;
  revokedBy: string | null;
  revokedAt: string | null;
  revocationComment: string | null;
  issueIds: string[];
}

interface RiskAcceptanceRow {
  id: string;
  project_code: string;
  state: RiskAcceptanceState;
  reason: string;
  requested_by: string;
  requested_by_id: string;
  requested_at: Date;
  expires_at: Date;
  approver_id: string | null;
  approver: string | null;
  decided_by: string | null;
  decided_at: Date | null;
  decision_comment: string | null;
  revoked_by: string | null;
  revoked_at: Date | null;
  revocation_comment: string | null;
}

export interface RiskAcceptanceQuery {
  page: number;
  limit: number;
  projects: string[] | null;
  states?: RiskAcceptanceState[];
  projectCodes?: string[];
  approverId?: string;
  issueId?: string;
}

const ACTIVE: RiskAcceptanceState[] = ['pending', 'accepted'];

async function withIssues(db: Queryable, rows: RiskAcceptanceRow[]): Promise<RiskAcceptanceRecord[]> {
  if (rows.length === 0) return [];
  const links: { risk_acceptance_id: string; issue_id: string }[] = await db('risk_acceptance_issues')
    .whereRaw('risk_acceptance_id = any(?::uuid[])', [pgArray(rows.map((r) => r.id))])
    .orderBy('issue_id')
    .select('risk_acceptance_id', 'issue_id');
  const issues = new Map<string, string[]>();
  for (const l of links) issues.set(l.risk_acceptance_id, [...(issues.get(l.risk_acceptance_id) ?? []), l.issue_id]);
  return rows.map((r) => ({
    id: r.id,
    projectCode: r.project_code,
    state: r.state,
    reason: r.reason,
    requestedBy: r.requested_by,
    requestedById: r.requested_by_id,
    requestedAt: iso(r.requested_at),
    expiresAt: iso(r.expires_at),
    approverId: r.approver_id,
    approver: r.approver,
    decidedBy: r.decided_by,
    decidedAt: r.decided_at && iso(r.decided_at),
    decisionComment: r.decision_comment,
    revokedBy: r.revoked_by,
    revokedAt: r.revoked_at && iso(r.revoked_at),
    revocationComment: r.revocation_comment,
    issueIds: issues.get(r.id) ?? [],
  }));
}

export const riskAcceptanceStore = {
  async insert(
    db: Queryable,
    r: Omit<
      RiskAcceptanceRecord,
      'decidedBy' | 'decidedAt' | 'decisionComment' | 'revokedBy' | 'revokedAt' | 'revocationComment'
    >,
  ) {
    await db('risk_acceptances').insert({
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
    });
    await db('risk_acceptance_issues').insert(
      r.issueIds.map((issueId) => ({ risk_acceptance_id: r.id, issue_id: issueId })),
    );
  },

  /** One acceptance; `lock` holds it until the transaction ends (a decision or an expiry). */
  async get(db: Queryable, id: string, lock = false): Promise<RiskAcceptanceRecord | undefined> {
    const q = db<RiskAcceptanceRow>('risk_acceptances').where({ id });
    if (lock) q.forUpdate();
    const row = await q.first();
    return row ? (await withIssues(db, [row]))[0] : undefined;
  },

  async list(db: Queryable, q: RiskAcceptanceQuery): Promise<{ items: RiskAcceptanceRecord[]; total: number }> {
    const base = db<RiskAcceptanceRow>('risk_acceptances').where((w) => {
      if (q.projects !== null) w.whereRaw('project_code = any(?::text[])', [pgArray(q.projects)]);
      if (q.states?.length) w.whereIn('state', q.states);
      if (q.projectCodes?.length) w.whereIn('project_code', q.projectCodes);
      if (q.approverId) w.where('approver_id', q.approverId);
      if (q.issueId)
        w.whereExists(
          db('risk_acceptance_issues')
            .whereRaw('risk_acceptance_issues.risk_acceptance_id = risk_acceptances.id')
            .where('issue_id', q.issueId),
        );
    });
    const { rows, total } = await queryPage<RiskAcceptanceRow>(base, q, [
      { column: 'requested_at', order: 'desc' },
      { column: 'id' },
    ]);
    return { items: await withIssues(db, rows), total };
  },

  /** Of these issues, those already held by a pending or accepted acceptance. */
  async activeIssues(db: Queryable, issueIds: string[]): Promise<string[]> {
    const rows: { issue_id: string }[] = await db('risk_acceptance_issues as l')
      .join('risk_acceptances as a', 'a.id', 'l.risk_acceptance_id')
      .whereIn('a.state', ACTIVE)
      .whereRaw('l.issue_id = any(?::uuid[])', [pgArray(issueIds)])
      .distinct('l.issue_id');
    return rows.map((r) => r.issue_id);
  },

  /** The approver's decision: accepted or rejected. */
  async decide(
    db: Queryable,
    id: string,
    d: { state: 'accepted' | 'rejected'; by: string; at: string; comment: string | null },
  ): Promise<void> {
    await db('risk_acceptances')
      .where({ id })
      .update({ state: d.state, decided_by: d.by, decided_at: d.at, decision_comment: d.comment });
  },

  /** Ended before its time by `by`; the approver's decision stays as it was. */
  async revoke(db: Queryable, id: string, r: { by: string; at: string; comment: string | null }): Promise<void> {
    await db('risk_acceptances')
      .where({ id })
      .update({ state: 'revoked', revoked_by: r.by, revoked_at: r.at, revocation_comment: r.comment });
  },

  async expire(db: Queryable, ids: string[]): Promise<void> {
    await db('risk_acceptances')
      .whereRaw('id = any(?::uuid[])', [pgArray(ids)])
      .update({ state: 'expired' });
  },

  /** Pending or accepted acceptances whose time has come, locked; a replica skips those another is expiring. */
  async due(db: Queryable, now: string, limit: number): Promise<RiskAcceptanceRecord[]> {
    const rows = await db<RiskAcceptanceRow>('risk_acceptances')
      .whereIn('state', ACTIVE)
      .where('expires_at', '<=', now)
      .orderBy('expires_at')
      .limit(limit)
      .forUpdate()
      .skipLocked();
    return withIssues(db, rows);
  },
};
