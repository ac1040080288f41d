import { canSeeProject, invalid, notFound, Principal, ServiceData, Trx } from '@bulwark/platform';
import { ISSUE_EVENTS, newEvent, ViaClient, writeEvents } from '@bulwark/contracts';
import { historyStore } from '../store/history';
import { IssueRecord, issueStore } from '../store/issues/issue-store';
import type { AssigneeDirectory, AssigneeType, DirectoryEntry } from './directory';

type Ref = { type: AssigneeType; id: string } | null;

/** What an assignee must hold on the issue's project: reading its issues. */
const ISSUE_READ = 'issues.issues:r';

/** Who works on an issue: a user or a user group of the identity service, checked to exist first. */
export class IssueAssignments {
  private readonly data: ServiceData;
  private readonly directory: AssigneeDirectory;

  constructor(deps: { data: ServiceData; directory: AssigneeDirectory }) {
    this.data = deps.data;
    this.directory = deps.directory;
  }

  /** Users and groups to choose from, by part of their name: for a caller of some projects, those reaching one of them. */
  async find(principal: Principal, search: string, limit: number): Promise<DirectoryEntry[]> {
    if (principal.projects === null) return this.directory.search(search, limit);
    if (principal.projects.length === 0) return [];
    return this.directory.search(search, limit, { projectCodes: principal.projects, permission: ISSUE_READ });
  }

  /** Assigns one issue (null unassigns); answers the issue as it is now. */
  async assign(principal: Principal, id: string, ref: Ref, comment: string | undefined): Promise<IssueRecord> {
    const [seen] = await this.visible(principal, [id]);
    if (!seen) throw notFound(`Issue ${id}`);
    const assignee = await this.resolve(ref, [seen.projectCode]);
    await this.data.transaction(async (trx) => {
      const [issue] = await issueStore.getMany(trx, [id]);
      if (!issue) throw notFound(`Issue ${id}`);
      await recordAssignee(trx, principal.username, [issue], assignee, comment);
    });
    const issue = await issueStore.get(this.data.db, id);
    if (!issue) throw notFound(`Issue ${id}`);
    return issue;
  }

  /** Assigns every issue or none: an id outside the caller's projects fails the whole request. */
  async assignMany(principal: Principal, ids: string[], ref: Ref, comment: string | undefined) {
    const seen = await this.visible(principal, ids);
    const known = new Set(seen.map((i) => i.id));
    const unknown = ids.filter((id) => !known.has(id));
    if (unknown.length)
      throw invalid('Some issues are unknown; nothing was assigned', [
        { field: 'ids', problem: `unknown issues: ${unknown.slice(0, 20).join(', ')}` },
      ]);
    const assignee = await this.resolve(ref, [...new Set(seen.map((i) => i.projectCode))]);
    return this.data.transaction(async (trx) => {
      const found = await issueStore.getMany(trx, [...known]);
      const changed = new Set(await recordAssignee(trx, principal.username, found, assignee, comment));
      return ids.map((id) => ({ id, status: changed.has(id) ? ('changed' as const) : ('unchanged' as const) }));
    });
  }

  private async visible(principal: Principal, ids: string[]): Promise<IssueRecord[]> {
    return (await issueStore.getMany(this.data.db, [...new Set(ids)])).filter((i) =>
      canSeeProject(principal, i.projectCode),
    );
  }

  /** The assignee, which must exist and reach every project of the issues (400 naming assignee.id otherwise). */
  private async resolve(ref: Ref, projects: string[]): Promise<DirectoryEntry | null> {
    if (!ref) return null;
    const entry = await this.directory.find(ref);
    if (!entry)
      throw invalid(`No ${ref.type} ${ref.id}`, [{ field: 'assignee.id', problem: `is not a known ${ref.type}` }]);
    const reached = await this.directory.reached(ref, { projectCodes: projects, permission: ISSUE_READ });
    const missed = projects.find((p) => !reached.includes(p));
    if (missed !== undefined) {
      const problem = unreached(ref.type, missed);
      throw invalid(`The ${ref.type} ${entry.name} ${problem}`, [{ field: 'assignee.id', problem }]);
    }
    return entry;
  }
}

/** Why a user or group that exists may not be named for an issue of this project. */
export function unreached(type: AssigneeType, projectCode: string): string {
  return type === 'user'
    ? `is a user who may not read the issues of project ${projectCode}`
    : `is a group that does not cover project ${projectCode}`;
}

/** An assignee by name: a user or group of the identity service, or a free-text name (type and id null). */
export interface AssigneeName {
  name: string;
  type: AssigneeType | null;
  id: string | null;
}

/**
 * Writes the assignee of the issues it changes, with their history and events; answers their ids.
 * Both ways of assigning go through it: this class's, and PUT /issue/{id} with a free-text name.
 */
export async function recordAssignee(
  trx: Trx,
  by: string,
  issues: IssueRecord[],
  assignee: AssigneeName | null,
  comment: string | undefined,
  via: ViaClient | null = null,
): Promise<string[]> {
  const changing = issues.filter((i) =>
    !assignee
      ? i.assignee !== null
      : assignee.type
        ? i.assigneeId !== assignee.id || i.assigneeType !== assignee.type
        : i.assignee !== assignee.name,
  );
  if (!changing.length) return [];
  const at = new Date().toISOString();
  await issueStore.assignMany(
    trx,
    changing.map((i) => i.id),
    assignee,
    at,
  );
  await historyStore.add(
    trx,
    changing.map((i) => ({
      issueId: i.id,
      actorKind: 'user' as const,
      actor: by,
      field: 'assignee',
      oldValue: i.assignee,
      newValue: assignee?.name ?? null,
      comment: comment || null,
      at,
      via,
    })),
  );
  await writeEvents(
    trx,
    changing.map((i) =>
      newEvent(ISSUE_EVENTS.issueUpdated, i.id, {
        issue_id: i.id,
        project_code: i.projectCode,
        assignee: assignee?.name ?? null,
        by,
      }),
    ),
  );
  return changing.map((i) => i.id);
}
