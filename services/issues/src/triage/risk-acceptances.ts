import { randomUUID } from 'node:crypto';
import {
  canSeeProject,
  conflict,
  forbidden,
  invalid,
  notFound,
  Principal,
  Queryable,
  ServiceData,
  Trx,
} from '@bulwark/platform';
import { ISSUE_EVENTS, newEvent, writeEvents, type RiskAcceptanceState } from '@bulwark/contracts';
import { isAllowedTransition, STATUS } from '../domain/statuses';
import { statusChanged } from '../events';
import { ActorKind, historyStore } from '../store/history';
import { IssueRecord, issueStore } from '../store/issues/issue-store';
import { RiskAcceptanceRecord, riskAcceptanceStore } from '../store/risk-acceptances';
import { statusStore } from '../store/settings';
import type { AssigneeDirectory } from './directory';

export interface RiskAcceptanceInput {
  issue_ids: string[];
  reason: string;
  expires_at: string;
  approver_id?: string;
}

export interface RiskAcceptanceListQuery {
  page: number;
  limit: number;
  states?: RiskAcceptanceState[];
  projectCodes?: string[];
  /** `me` or a user id. */
  approver?: string;
  issueId?: string;
}

const EXPIRY_BATCH = 100;
/** What the approve route asks of its caller on the acceptance's project: the approver must hold it. */
const APPROVAL_PERMISSION = 'issues.issues:w';
const EXPIRY_ACTOR = 'risk acceptance';

/**
 * Risk acceptance as an object: who asked, why, until when, for which issues of one project, and the
 * second approver when one is named. Its issues are Risk accepted (6) while it holds; when it expires,
 * those still Risk accepted reopen (8), so the status and the object never disagree.
 */
export class RiskAcceptances {
  private readonly data: ServiceData;
  private readonly directory: AssigneeDirectory;
  private readonly clock: () => Date;

  constructor(deps: { data: ServiceData; directory: AssigneeDirectory; clock?: () => Date }) {
    this.data = deps.data;
    this.directory = deps.directory;
    this.clock = deps.clock ?? (() => new Date());
  }

  async create(principal: Principal, input: RiskAcceptanceInput): Promise<RiskAcceptanceRecord> {
    const now = this.clock();
    if (Date.parse(input.expires_at) <= now.getTime())
      throw invalid('expires_at is not in the future', [{ field: 'expires_at', problem: 'must be in the future' }]);
    const ids = [...new Set(input.issue_ids)];
    const projectCode = (await this.oneProject(this.data.db, principal, ids))[0].projectCode;
    const approver = input.approver_id ? await this.approver(principal, input.approver_id, projectCode) : null;
    return this.data.transaction(async (trx) => {
      const issues = await this.oneProject(trx, principal, ids);
      const busy = await riskAcceptanceStore.activeIssues(trx, ids);
      if (busy.length)
        throw conflict('Some issues are in another pending or accepted risk acceptance', [
          { field: 'issue_ids', problem: `already in a pending or accepted risk acceptance: ${busy.join(', ')}` },
        ]);
      await this.assertMayAccept(trx, issues);
      const record: RiskAcceptanceRecord = {
        id: randomUUID(),
        projectCode: issues[0].projectCode,
        state: approver ? 'pending' : 'accepted',
        reason: input.reason,
        requestedBy: principal.username,
        requestedById: principal.userId,
        requestedAt: now.toISOString(),
        expiresAt: new Date(input.expires_at).toISOString(),
        approverId: approver?.id ?? null,
        approver: approver?.name ?? null,
        decidedBy: null,
        decidedAt: null,
        decisionComment: null,
        revokedBy: null,
        revokedAt: null,
        revocationComment: null,
        issueIds: ids,
      };
      await riskAcceptanceStore.insert(trx, record);
      if (!approver) await this.accept(trx, record, issues, principal.username, now.toISOString());
      return record;
    });
  }

  list(principal: Principal, q: RiskAcceptanceListQuery) {
    return riskAcceptanceStore.list(this.data.db, {
      page: q.page,
      limit: q.limit,
      projects: principal.projects,
      states: q.states,
      projectCodes: q.projectCodes,
      approverId: q.approver === 'me' ? principal.userId : q.approver,
      issueId: q.issueId,
    });
  }

  async get(principal: Principal, id: string, trx?: Trx): Promise<RiskAcceptanceRecord> {
    const found = await riskAcceptanceStore.get(trx ?? this.data.db, id, trx !== undefined);
    if (!found || !canSeeProject(principal, found.projectCode)) throw notFound(`Risk acceptance ${id}`);
    return found;
  }

  /** The named approver's decision on a pending acceptance; approving moves its issues to Risk accepted. */
  async decide(principal: Principal, id: string, approve: boolean, comment?: string): Promise<RiskAcceptanceRecord> {
    await this.data.transaction(async (trx) => {
      const record = await this.get(principal, id, trx);
      if (record.approverId !== principal.userId)
        throw forbidden(
          record.approverId
            ? `Only the approver this risk acceptance names (${record.approver}) may decide on it`
            : 'This risk acceptance needs no approval',
        );
      if (record.state !== 'pending') throw conflict(`The risk acceptance is ${record.state}, not pending`);
      const at = this.clock().toISOString();
      if (approve) {
        if (Date.parse(record.expiresAt) <= Date.parse(at))
          throw conflict('The risk acceptance has expired before its approval');
        const issues = await issueStore.getMany(trx, record.issueIds);
        await this.assertMayAccept(trx, issues);
        await this.accept(trx, record, issues, principal.username, at);
      }
      await riskAcceptanceStore.decide(trx, id, {
        state: approve ? 'accepted' : 'rejected',
        by: principal.username,
        at,
        comment: comment?.trim() || null,
      });
    });
    return this.get(principal, id);
  }

  /**
   * Ends a pending or accepted acceptance before its time, by anyone who may change its project's
   * issues (the route's permission): of an accepted one, the issues still Risk accepted reopen.
   */
  async revoke(principal: Principal, id: string, comment?: string): Promise<RiskAcceptanceRecord> {
    await this.data.transaction(async (trx) => {
      const record = await this.get(principal, id, trx);
      if (record.state !== 'pending' && record.state !== 'accepted')
        throw conflict(`The risk acceptance is ${record.state}, neither pending nor accepted`);
      const at = this.clock().toISOString();
      const why = comment?.trim() || null;
      if (record.state === 'accepted') {
        const held = (await issueStore.getMany(trx, record.issueIds)).filter((i) => i.statusId === STATUS.riskAccepted);
        await this.move(trx, held, STATUS.reopen, {
          kind: 'user',
          actor: principal.username,
          comment: `Risk acceptance ${record.id} revoked${why ? `: ${why}` : ''}`,
          at,
        });
      }
      await riskAcceptanceStore.revoke(trx, id, { by: principal.username, at, comment: why });
    });
    return this.get(principal, id);
  }

  /** Ends the acceptances whose time has come: their issues still Risk accepted reopen. One replica takes each. */
  async expireDue(now = this.clock()): Promise<number> {
    return this.data.transaction(async (trx) => {
      const due = await riskAcceptanceStore.due(trx, now.toISOString(), EXPIRY_BATCH);
      if (!due.length) return 0;
      // One read of every issue the accepted ones hold; an issue is in at most one active acceptance.
      const accepted = due.filter((r) => r.state === 'accepted');
      const held = new Map(
        (
          await issueStore.getMany(
            trx,
            accepted.flatMap((r) => r.issueIds),
          )
        )
          .filter((i) => i.statusId === STATUS.riskAccepted)
          .map((i) => [i.id, i]),
      );
      for (const record of accepted)
        await this.move(
          trx,
          record.issueIds.flatMap((id) => held.get(id) ?? []),
          STATUS.reopen,
          {
            kind: 'system',
            actor: EXPIRY_ACTOR,
            comment: `Risk acceptance ${record.id} expired`,
            at: now.toISOString(),
          },
        );
      await riskAcceptanceStore.expire(
        trx,
        due.map((r) => r.id),
      );
      return due.length;
    });
  }

  /** The issues, every one visible to the caller and all of one project (400 naming issue_ids otherwise). */
  private async oneProject(q: Queryable, principal: Principal, ids: string[]): Promise<IssueRecord[]> {
    const issues = (await issueStore.getMany(q, ids)).filter((i) => canSeeProject(principal, i.projectCode));
    const known = new Set(issues.map((i) => i.id));
    const unknown = ids.filter((id) => !known.has(id));
    if (unknown.length)
      throw invalid('Some issues are unknown', [
        { field: 'issue_ids', problem: `unknown issues: ${unknown.slice(0, 20).join(', ')}` },
      ]);
    if (new Set(issues.map((i) => i.projectCode)).size > 1)
      throw invalid('The issues belong to several projects', [
        { field: 'issue_ids', problem: 'must all be issues of one project' },
      ]);
    return issues;
  }

  /** Another user, who may approve on the issues' project: holds the approval's permission there. */
  private async approver(principal: Principal, id: string, projectCode: string) {
    if (id === principal.userId)
      throw invalid('The approver is the requester', [
        { field: 'approver_id', problem: 'must be a user other than the requester' },
      ]);
    const user = await this.directory.find({ type: 'user', id });
    if (!user) throw invalid(`No user ${id}`, [{ field: 'approver_id', problem: 'is not a known user' }]);
    if (
      !(
        await this.directory.reached(
          { type: 'user', id },
          { projectCodes: [projectCode], permission: APPROVAL_PERMISSION },
        )
      ).length
    ) {
      const problem = `is a user who may not change the issues of project ${projectCode}, so could not approve`;
      throw invalid(`The user ${user.name} ${problem}`, [{ field: 'approver_id', problem }]);
    }
    return user;
  }

  /** Every issue is Risk accepted already or may move there by the configured transitions (409 otherwise). */
  private async assertMayAccept(trx: Trx, issues: IssueRecord[]) {
    const transitions = (await statusStore.transitions(trx)).map((t) => ({ from: t.fromStatus, to: t.toStatus }));
    const refused = issues.filter(
      (i) => i.statusId !== STATUS.riskAccepted && !isAllowedTransition(transitions, i.statusId, STATUS.riskAccepted),
    );
    if (refused.length)
      throw conflict('Some issues may not move to Risk accepted', [
        {
          field: 'issue_ids',
          problem: `may not move to Risk accepted (6) from their status: ${refused.map((i) => `${i.id} (${i.statusId})`).join(', ')}`,
        },
      ]);
  }

  private accept(trx: Trx, record: RiskAcceptanceRecord, issues: IssueRecord[], by: string, at: string) {
    return this.move(
      trx,
      issues.filter((i) => i.statusId !== STATUS.riskAccepted),
      STATUS.riskAccepted,
      {
        kind: 'user',
        actor: by,
        comment: `Risk acceptance ${record.id} until ${record.expiresAt}: ${record.reason}`,
        at,
      },
    );
  }

  private async move(
    trx: Trx,
    issues: IssueRecord[],
    to: number,
    how: { kind: ActorKind; actor: string; comment: string; at: string },
  ) {
    await issueStore.setStatusMany(
      trx,
      issues.map((i) => i.id),
      to,
      undefined,
      how.at,
    );
    await historyStore.add(
      trx,
      issues.map((i) => ({
        issueId: i.id,
        actorKind: how.kind,
        actor: how.actor,
        field: 'status',
        oldValue: String(i.statusId),
        newValue: String(to),
        comment: how.comment,
        at: how.at,
      })),
    );
    await writeEvents(
      trx,
      issues.map((i) => newEvent(ISSUE_EVENTS.issueStatusChanged, i.id, statusChanged(i, to, how.actor, how.comment))),
    );
  }
}
