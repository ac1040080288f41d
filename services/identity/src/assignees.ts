import type { Db } from '@bulwark/platform';
import { AssigneeRecord, assigneeStore } from './store/assignees';

const MAX_MATCHES = 50;

/** Who an issue can be assigned to, for the issues service: users that are not deleted, and user groups. */
export class Assignees {
  constructor(private readonly db: Db) {}

  /** Those of the refs that exist; an empty search with no refs finds nobody. */
  find(refs: { type: string; id: string }[], search: string, limit: number): Promise<AssigneeRecord[]> {
    if (refs.length)
      return assigneeStore.byIds(
        this.db,
        refs.filter((r) => r.type === 'user').map((r) => r.id),
        refs.filter((r) => r.type === 'group').map((r) => r.id),
      );
    if (!search.trim()) return Promise.resolve([]);
    return assigneeStore.search(this.db, search.trim(), Math.min(Math.max(limit, 1), MAX_MATCHES));
  }
}
