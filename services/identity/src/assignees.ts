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
   * reaching one of its projects (a search then reads its most matches and keeps `limit` of those).
   */
  async find(
    refs: { type: string; id: string }[],
    search: string,
    limit: number,
    reach?: ProjectReach,
  ): Promise<AssigneeRecord[]> {
    const found = await this.existing(refs, search, reach ? MAX_MATCHES : limit);
    if (!reach) return found;
    const reaching = await Promise.all(found.map((a) => this.reaches(a, reach)));
    return found.filter((_, i) => reaching[i]).slice(0, refs.length ? undefined : limit);
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
   * A user reaches a project when its roles and groups give it the permission there; a group when it
   * covers the project (a group hands its roles out only on the projects it covers).
   */
  private async reaches(assignee: AssigneeRecord, { projectCodes, permission }: ProjectReach): Promise<boolean> {
    if (assignee.type === 'user') {
      const user = await userStore.get(this.db, assignee.id);
      if (!user) return false;
      const held = heldRights(await userGrants(this.db, user)).letters.get(permission);
      return held === null || (held !== undefined && held.some((p) => projectCodes.includes(p)));
    }
    const group = await groupStore.get(this.db, assignee.id);
    if (!group) return false;
    const covered = groupProjects(group, await groupStore.projectsTagged(this.db, group.projectTags));
    return covered === undefined || covered.some((p) => projectCodes.includes(p));
  }
}
