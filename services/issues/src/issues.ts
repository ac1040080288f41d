import { canSeeProject, conflict, Db, invalid, notFound, Principal, ServiceData, Trx, isUuid } from '@bulwark/platform';
import { ISSUE_EVENTS, ViaClient, writeEvent } from '@bulwark/contracts';
import type { AssistantSettings } from './assistant-settings';
import { allowedTargets, isAllowedTransition } from './domain/statuses';
import { statusChanged } from './events';
import { recordAssignee } from './triage/assignments';
import { CountDimension, CountGroupRecord, groupedCounts, WeekCountsRecord } from './store/grouped-counts';
import { commentStore, historyStore } from './store/history';
import { IssueFilter, IssueRecord, issueStore, SortKey } from './store/issues/issue-store';
import { statusStore } from './store/settings';
import { ticketStore } from './store/trackers';

type ChangeStatus = 'changed' | 'unchanged' | 'not_found' | 'conflict';

/** The values each issue filter can take among the matching issues. */
export interface IssueFilterValues {
  tools: unknown[];
  scanners: unknown[];
  projectCodes: unknown[];
  layers: unknown[];
  checks: unknown[];
  statuses: { id: number; name: string }[];
  severities: unknown[];
  assignees: unknown[];
  categories: unknown[];
  cves: unknown[];
  cwes: unknown[];
  libNames: unknown[];
  detectedAt: { min: string | null; max: string | null };
}

export type IssueBasicFilterValues = Pick<IssueFilterValues, 'statuses' | 'severities' | 'tools' | 'projectCodes'> &
  Partial<Pick<IssueFilterValues, 'detectedAt'>>;

/** Reading and changing issues on behalf of a caller, within the caller's projects. */
export class Issues {
  constructor(
    private readonly data: ServiceData,
    private readonly assistants: AssistantSettings,
  ) {}

  async visible(principal: Principal, id: string, db: Db | Trx = this.data.db): Promise<IssueRecord> {
    const issue = await issueStore.get(db, id);
    if (!issue || !canSeeProject(principal, issue.projectCode)) throw notFound(`Issue ${id}`);
    return issue;
  }

  async statusNames(db: Db | Trx = this.data.db): Promise<Map<number, string>> {
    return new Map((await statusStore.list(db)).map((s) => [s.id, s.nameEn]));
  }

  list(filter: IssueFilter, o: { page: number; limit: number; sort: SortKey; desc: boolean; cursor?: string }) {
    return Promise.all([issueStore.list(this.data.db, filter, o), issueStore.count(this.data.db, filter)]);
  }

  count(filter: IssueFilter) {
    return issueStore.count(this.data.db, filter);
  }

  /**
   * The matching issues per group (severity, status, project, tool, category, layer, library, version,
   * CVE), or new, fixed and open per week up to now when grouped by week, which takes no other dimension.
   */
  async countGrouped(
    filter: IssueFilter,
    by: ('week' | CountDimension)[],
    weeks: number,
  ): Promise<{ weeks: WeekCountsRecord[] } | { groups: CountGroupRecord[]; total: number }> {
    if (by.includes('week')) {
      if (by.length > 1)
        throw invalid('group_by=week takes no other dimension', [
          { field: 'group_by', problem: 'week cannot be combined with another value' },
        ]);
      return { weeks: await groupedCounts.weekly(this.data.db, filter, weeks, new Date()) };
    }
    const groups = await groupedCounts.byAttributes(this.data.db, filter, by as CountDimension[]);
    return { groups, total: groups.reduce((sum, g) => sum + g.count, 0) };
  }

  compactCounts(): Promise<void> {
    return issueStore.compactCounts(this.data.db);
  }

  /** Values each filter can take among the matching issues. */
  async filterValues(filter: IssueFilter): Promise<IssueFilterValues> {
    const names = await this.statusNames();
    const d = (column: string, unnest = false) => issueStore.distinct(this.data.db, filter, column, unnest);
    const [
      tools,
      scanners,
      projects,
      layers,
      checks,
      statuses,
      severities,
      assignees,
      categories,
      cves,
      cwes,
      libs,
      range,
    ] = await Promise.all([
      d('tool_name'),
      d('scanner'),
      d('project_code'),
      d('layer_id'),
      d('check_id'),
      d('status_id'),
      d('severity'),
      d('assignee'),
      d('category'),
      d('vulnerability_ids', true),
      d('cwes', true),
      d('lib_name'),
      issueStore.detectedRange(this.data.db, filter),
    ]);
    return {
      tools,
      scanners,
      projectCodes: projects,
      layers,
      checks,
      statuses: (statuses as number[]).map((id) => ({ id, name: names.get(id) ?? String(id) })),
      severities,
      assignees,
      categories,
      cves,
      cwes,
      libNames: libs,
      detectedAt: range,
    };
  }

  /** The basic filter's values among the matching issues; the range of detection times only when asked for. */
  async basicFilter(filter: IssueFilter, needDetectedAt: boolean): Promise<IssueBasicFilterValues> {
    const [values, range] = await Promise.all([
      Promise.all([
        issueStore.distinct(this.data.db, filter, 'status_id'),
        issueStore.distinct(this.data.db, filter, 'severity'),
        issueStore.distinct(this.data.db, filter, 'tool_name'),
        issueStore.distinct(this.data.db, filter, 'project_code'),
      ]),
      needDetectedAt ? issueStore.detectedRange(this.data.db, filter) : undefined,
    ]);
    const names = await this.statusNames();
    const [statuses, severities, tools, projects] = values;
    return {
      statuses: (statuses as number[]).map((id) => ({ id, name: names.get(id) ?? String(id) })),
      severities,
      tools,
      projectCodes: projects,
      ...(range ? { detectedAt: range } : {}),
    };
  }

  /** The CVSS v3/v4 qualitative scale and the matching issues per band of their highest score. */
  async cvssSeverities(filter: IssueFilter) {
    const counts = await issueStore.cvssBuckets(this.data.db, filter);
    const scale = [
      { severity: 'none', min: 0, max: 0 },
      { severity: 'low', min: 0.1, max: 3.9 },
      { severity: 'medium', min: 4, max: 6.9 },
      { severity: 'high', min: 7, max: 8.9 },
      { severity: 'critical', min: 9, max: 10 },
    ];
    return {
      items: [
        ...scale.map((s) => ({ ...s, count: counts[s.severity] ?? 0 })),
        { severity: 'unknown', min: null, max: null, count: counts.unknown ?? 0 },
      ],
    };
  }

  private async transitions(trx: Trx) {
    return (await statusStore.transitions(trx)).map((t) => ({ from: t.fromStatus, to: t.toStatus }));
  }

  /** One manual status change, checked against the configured transitions. */
  private async changeStatus(
    trx: Trx,
    principal: Principal,
    issue: IssueRecord,
    to: number,
    comment: string | undefined,
    at: string,
    via: ViaClient | null,
  ): Promise<ChangeStatus> {
    if (issue.statusId === to) return 'unchanged';
    const transitions = await this.transitions(trx);
    if (!isAllowedTransition(transitions, issue.statusId, to)) return 'conflict';
    await issueStore.update(trx, issue.id, { statusId: to }, at);
    await historyStore.add(trx, [
      {
        issueId: issue.id,
        actorKind: 'user',
        actor: principal.username,
        field: 'status',
        oldValue: String(issue.statusId),
        newValue: String(to),
        comment: comment ?? null,
        at,
        via,
      },
    ]);
    await writeEvent(
      trx,
      ISSUE_EVENTS.issueStatusChanged,
      issue.id,
      statusChanged(issue, to, principal.username, comment ?? null),
    );
    return 'changed';
  }

  private async statusExists(trx: Trx, id: number) {
    if (!(await statusStore.list(trx, { ids: [id] })).length)
      throw invalid('Unknown status_id', [{ field: 'status_id', problem: 'is not a known status id' }]);
  }

  async update(
    principal: Principal,
    id: string,
    body: { assignee?: string | null; status_id?: number; comment?: string },
    via: ViaClient | null = null,
  ): Promise<IssueRecord> {
    await this.data.transaction(async (trx) => {
      await this.assistants.assertMayWrite(trx, via);
      const [issue] = await issueStore.getMany(trx, [id]);
      if (!issue || !canSeeProject(principal, issue.projectCode)) throw notFound(`Issue ${id}`);
      const at = new Date().toISOString();
      if (body.status_id !== undefined) {
        await this.statusExists(trx, body.status_id);
        const result = await this.changeStatus(trx, principal, issue, body.status_id, body.comment, at, via);
        if (result === 'conflict') {
          const allowed = allowedTargets(await this.transitions(trx), issue.statusId);
          const names = await this.statusNames(trx);
          throw conflict(
            `Status ${names.get(issue.statusId)} (${issue.statusId}) cannot change to ${names.get(body.status_id)} (${body.status_id}); allowed: ${allowed.length ? allowed.map((s) => `${names.get(s)} (${s})`).join(', ') : 'none'}`,
            [{ field: 'status_id', problem: `allowed targets: ${allowed.join(', ') || 'none'}` }],
          );
        }
      }
      if (body.assignee !== undefined)
        await recordAssignee(
          trx,
          principal.username,
          [issue],
          body.assignee === null ? null : { name: body.assignee, type: null, id: null },
          body.comment,
          via,
        );
      if (body.comment && body.status_id === undefined && body.assignee === undefined)
        await commentStore.add(trx, id, principal.username, body.comment);
    });
    return this.visible(principal, id);
  }

  async changeMany(
    principal: Principal,
    ids: string[],
    to: number,
    comment?: string,
    via: ViaClient | null = null,
  ): Promise<{ id: string; status: ChangeStatus; message?: string }[]> {
    return this.data.transaction(async (trx) => {
      await this.assistants.assertMayWrite(trx, via);
      await this.statusExists(trx, to);
      const found = new Map(
        (await issueStore.getMany(trx, ids))
          .filter((i) => canSeeProject(principal, i.projectCode))
          .map((i) => [i.id, i]),
      );
      const transitions = await this.transitions(trx);
      const at = new Date().toISOString();
      const out: { id: string; status: ChangeStatus; message?: string }[] = [];
      for (const id of ids) {
        const issue = found.get(id);
        if (!issue) {
          out.push({ id, status: 'not_found' });
          continue;
        }
        const status = await this.changeStatus(trx, principal, issue, to, comment, at, via);
        if (status === 'changed') issue.statusId = to;
        out.push(
          status === 'conflict'
            ? {
                id,
                status,
                message: `allowed targets from ${issue.statusId}: ${allowedTargets(transitions, issue.statusId).join(', ') || 'none'}`,
              }
            : { id, status },
        );
      }
      return out;
    });
  }

  async delete(principal: Principal, ids: string[]) {
    return this.data.transaction(async (trx) => {
      const visible = (await issueStore.getMany(trx, ids.filter(isUuid))).filter((i) =>
        canSeeProject(principal, i.projectCode),
      );
      const deleted = new Set(
        await issueStore.deleteMany(
          trx,
          visible.map((i) => i.id),
        ),
      );
      if (deleted.size) await ticketStore.dropUnlinked(trx);
      if (deleted.size)
        await writeEvent(trx, ISSUE_EVENTS.issuesDeleted, [...deleted][0], {
          ids: [...deleted],
          by: principal.username,
        });
      return ids.map((id) => ({ id, status: deleted.has(id) ? ('deleted' as const) : ('not_found' as const) }));
    });
  }

  async history(
    principal: Principal,
    id: string,
    q: { page: number; limit: number; users?: string[]; kinds?: string[] },
  ) {
    await this.visible(principal, id);
    return historyStore.list(this.data.db, id, q);
  }

  async comment(principal: Principal, id: string, message: string) {
    await this.visible(principal, id);
    return commentStore.add(this.data.db, id, principal.username, message);
  }

  async comments(principal: Principal, id: string, q: { page: number; limit: number }) {
    await this.visible(principal, id);
    return commentStore.list(this.data.db, id, q);
  }

  async similar(principal: Principal, id: string) {
    const issue = await this.visible(principal, id);
    return issueStore.similar(this.data.db, issue);
  }

  /** Links issues of the same project as duplicates of a main issue (or unlinks them), in their history. */
  async linkDuplicates(principal: Principal, mainId: string, ids: string[], unlink: boolean) {
    return this.data.transaction(async (trx) => {
      const main = await this.visible(principal, mainId, trx);
      const found = new Map(
        (await issueStore.getMany(trx, ids)).filter((i) => i.projectCode === main.projectCode).map((i) => [i.id, i]),
      );
      const at = new Date().toISOString();
      const out: { id: string; status: ChangeStatus; message?: string }[] = [];
      for (const id of ids) {
        const issue = found.get(id);
        if (!issue) out.push({ id, status: 'not_found', message: 'no such issue in the main issue\u2019s project' });
        else if (id === mainId) out.push({ id, status: 'conflict', message: 'an issue cannot duplicate itself' });
        else {
          const target = unlink ? null : mainId;
          if (issue.duplicateOf === target) {
            out.push({ id, status: 'unchanged' });
            continue;
          }
          await issueStore.update(trx, id, { duplicateOf: target }, at);
          await historyStore.add(trx, [
            {
              issueId: id,
              actorKind: 'user',
              actor: principal.username,
              field: 'duplicate_of',
              oldValue: issue.duplicateOf,
              newValue: target,
              comment: null,
              at,
            },
          ]);
          out.push({ id, status: 'changed' });
        }
      }
      return out;
    });
  }
}
