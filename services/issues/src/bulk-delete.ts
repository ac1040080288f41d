import { bulkRefusal, ProjectSetAccess } from '@bulwark/platform';

/** The outcome of one id of a bulk delete. */
export interface DeleteResult {
  id: string;
  status: 'deleted' | 'not_found' | 'forbidden';
  message?: string;
}

/** Per id of a bulk delete: `deleted`, or `not_found` for an id that named nothing. */
export function deleteResults(ids: string[], removed: readonly string[]): DeleteResult[] {
  const done = new Set(removed);
  return ids.map((id) => ({ id, status: done.has(id) ? 'deleted' : 'not_found' }));
}

/**
 * A bulk delete under project scope, per id: `not_found` for an object that does not exist or that
 * the caller does not see, `forbidden` saying why for one it sees but may not change; `remove` deletes
 * the others and answers the ids it deleted.
 */
export async function deleteInScope<T>(
  ids: string[],
  found: Map<string, T>,
  access: (object: T) => ProjectSetAccess,
  remove: (ids: string[]) => Promise<string[]>,
): Promise<DeleteResult[]> {
  const decided = new Map<string, DeleteResult>();
  for (const id of ids) {
    const object = found.get(id);
    const refused = bulkRefusal(id, object === undefined ? undefined : access(object));
    if (refused) decided.set(id, refused);
  }
  const removed = deleteResults(ids, await remove([...new Set(ids.filter((id) => !decided.has(id)))]));
  return removed.map((r) => decided.get(r.id) ?? r);
}
