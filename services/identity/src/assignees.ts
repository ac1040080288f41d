import type { Db } from '@bulwark/platform';
import { heldRights } from './domain/escalation';
import { groupProjects } from './domain/groups';
import { AssigneeRecord, assigneeStore } from './store/assignees';
import { groupStore } from './store/groups';
import { userStore } from './store/users';
import { userGrants } from './user-grants';

const MAX_MATCHES = 50;

/** Projects an assignee must reach one of, and the permission (`key:letter`) a user must hold there. */
export interface ProjectReach {
  projectCodes: string[];
  permission: string;
}

/** Who an issue can be assigned to, for the issues service: users that are not deleted, and user groups. */
export class Assignees {
  constructor(private readonly db: Db) {}

  /**
   * Those of the refs that exist; an empty search with no refs finds nobody. With `reach`, only those
   * reaching one of its projects, each with those it reaches (a search then reads its most matches
   * and keeps `limit` of those).
   */
  async find(
    refs: { type: string; id: string }[],
    search: string,
    limit: number,
    reach?: ProjectReach,
  ): Promise<(AssigneeRecord & { reachedProjectCodes: string[] })[]> {
    const found = await this.existing(refs, search, reach ? MAX_MATCHES : limit);
    if (!reach) return found.map((a) => ({ ...a, reachedProjectCodes: [] }));
    const reached = await Promise.all(found.map((a) => this.reached(a, reach)));
    return found
      .map((a, i) => ({ ...a, reachedProjectCodes: reached[i] ?? [] }))
      .filter((a) => a.reachedProjectCodes.length)
      .slice(0, refs.length ? undefined : limit);
  }

  private existing(refs: { type: string; id: string }[], search: string, limit: number): Promise<AssigneeRecord[]> {
    if (refs.length)
      return assigneeStore.byIds(
        this.db,
        refs.filter((r) => r.type === 'user').map((r) => r.id),
        refs.filter((r) => r.type === 'group').map((r) => r.id),
      );
    if (!search.trim()) return Promise.resolve([]);
    return assigneeStore.search(this.db, search.trim(), Math.min(Math.max(limit, 1), MAX_MATCHES));
  }

  /**
   * The projects of `projectCodes` the assignee reaches: a user those where its roles and groups
   * give it the permission; a group those it covers (a group hands its roles out only there).
   */
  private async reached(assignee: AssigneeRecord, { projectCodes, permission }: ProjectReach): Promise<string[]> {
    let reachable: string[] | null | undefined;
    if (assignee.type === 'user') {
      const user = await userStore.get(this.db, assignee.id);
      if (!user) return [];
      reachable = heldRights(await userGrants(this.db, user)).letters.get(permission);
    } else {
      const group = await groupStore.get(this.db, assignee.id);
      if (!group) return [];
      reachable = groupProjects(group, await groupStore.projectsTagged(this.db, group.projectTags)) ?? null;
    }
    // null: every project; undefined: none.
    return reachable === null ? projectCodes : projectCodes.filter((p) => reachable?.includes(p));
  }
}
