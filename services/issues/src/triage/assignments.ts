import { canSeeProject, invalid, notFound, Principal, ServiceData, Trx } from '@bulwark/platform';
import { ISSUE_EVENTS, newEvent, ViaClient, writeEvents } from '@bulwark/contracts';
import { historyStore } from '../store/history';
import { IssueRecord, issueStore } from '../store/issues/issue-store';
import type { AssigneeDirectory, AssigneeType, DirectoryEntry } from './directory';

type Ref = { type: AssigneeType; id: string } | null;

/** Who works on an issue: a user or a user group of the identity service, checked to exist first. */
export class IssueAssignments {
  private readonly data: ServiceData;
  private readonly directory: AssigneeDirectory;

  constructor(deps: { data: ServiceData; directory: AssigneeDirectory }) {
    this.data = deps.data;
    this.directory = deps.directory;
  }

  /** Users and groups to choose from, by part of their name. */
  find(search: string, limit: number): Promise<DirectoryEntry[]> {
    return this.directory.search(search, limit);
  }

  /** Assigns one issue (null unassigns); answers the issue as it is now. */
  async assign(principal: Principal, id: string, ref: Ref, comment: string | undefined): Promise<IssueRecord> {
    const assignee = await this.resolve(ref, 'assignee.id');
    await this.data.transaction(async (trx) => {
      const [issue] = await issueStore.getMany(trx, [id]);
      if (!issue || !canSeeProject(principal, issue.projectCode)) throw notFound(`Issue ${id}`);
      await recordAssignee(trx, principal.username, [issue], assignee, comment);
    });
    const issue = await issueStore.get(this.data.db, id);
    if (!issue) throw notFound(`Issue ${id}`);
    return issue;
  }

  /** Assigns every issue or none: an id outside the caller's projects fails the whole request. */
  async assignMany(principal: Principal, ids: string[], ref: Ref, comment: string | undefined) {
    const assignee = await this.resolve(ref, 'assignee.id');
    return this.data.transaction(async (trx) => {
      const found = (await issueStore.getMany(trx, [...new Set(ids)])).filter((i) =>
        canSeeProject(principal, i.projectCode),
      );
      const known = new Set(found.map((i) => i.id));
      const unknown = ids.filter((id) => !known.has(id));
      if (unknown.length)
        throw invalid('Some issues are unknown; nothing was assigned', [
          { field: 'ids', problem: `unknown issues: ${unknown.slice(0, 20).join(', ')}` },
        ]);
      const changed = new Set(await recordAssignee(trx, principal.username, found, assignee, comment));
      return ids.map((id) => ({ id, status: changed.has(id) ? ('changed' as const) : ('unchanged' as const) }));
    });
  }

  private async resolve(ref: Ref, field: string): Promise<DirectoryEntry | null> {
    if (!ref) return null;
    const entry = await this.directory.find(ref);
    if (!entry) throw invalid(`No ${ref.type} ${ref.id}`, [{ field, problem: `is not a known ${ref.type}` }]);
    return entry;
  }
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
