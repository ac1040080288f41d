import { containing, isUuid, Queryable } from '@bulwark/platform';

/** A user (not deleted) or a user group, as an issue's assignee. */
export interface AssigneeRecord {
  type: 'user' | 'group';
  id: string;
  name: string;
  displayName: string;
}

export const assigneeStore = {
  /** Of these ids, the users that exist and are not deleted and the groups that exist. */
  async byIds(db: Queryable, userIds: string[], groupIds: string[]): Promise<AssigneeRecord[]> {
    const users = userIds.filter(isUuid);
    const groups = groupIds.filter(isUuid);
    const [u, g] = await Promise.all([
      users.length
        ? db('users').whereIn('id', users).whereNull('deleted_at').select('id', 'username', 'display_name')
        : [],
      groups.length ? db('user_groups').whereIn('id', groups).select('id', 'name') : [],
    ]);
    return [
      ...(u as { id: string; username: string; display_name: string }[]).map((r) => ({
        type: 'user' as const,
        id: r.id,
        name: r.username,
        displayName: r.display_name,
      })),
      ...(g as { id: string; name: string }[]).map((r) => ({
        type: 'group' as const,
        id: r.id,
        name: r.name,
        displayName: '',
      })),
    ];
  },

  /** Users (by username or display name) and groups (by name) containing `search`, users first. */
  async search(db: Queryable, search: string, limit: number): Promise<AssigneeRecord[]> {
    const like = containing(search);
    const users: { id: string; username: string; display_name: string }[] = await db('users')
      .whereNull('deleted_at')
      .where((w) => {
        w.whereILike('username', like).orWhereILike('display_name', like);
      })
      .orderByRaw('lower(username)')
      .limit(limit)
      .select('id', 'username', 'display_name');
    const groups: { id: string; name: string }[] =
      users.length < limit
        ? await db('user_groups')
            .whereILike('name', like)
            .orderByRaw('lower(name)')
            .limit(limit - users.length)
            .select('id', 'name')
        : [];
    return [
      ...users.map((r) => ({ type: 'user' as const, id: r.id, name: r.username, displayName: r.display_name })),
      ...groups.map((r) => ({ type: 'group' as const, id: r.id, name: r.name, displayName: '' })),
    ];
  },
};
