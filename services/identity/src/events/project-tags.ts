import { AUTH_EPOCH_KEY, Cache, Logger, ServiceData, Trx } from '@bulwark/platform';
import { CATALOG_EVENTS, onEvents } from '@bulwark/contracts';
import { groupStore } from '../store/groups';

const PROJECT_EVENTS = [
  CATALOG_EVENTS.projectCreated,
  CATALOG_EVENTS.projectUpdated,
  CATALOG_EVENTS.projectArchived,
  CATALOG_EVENTS.projectUnarchived,
  CATALOG_EVENTS.projectDeleted,
  CATALOG_EVENTS.projectRestored,
] as const;

/**
 * Keeps identity's copy of the projects' tags from the catalog's project events, so a user group
 * that covers a tag covers a project as soon as the project has it. When that can change someone's
 * rights, the auth epoch moves after the commit, and every gateway re-asks identity at once.
 */
export function keepProjectTags(cache: Cache, log: Logger) {
  return onEvents(PROJECT_EVENTS, async (event, trx: Trx): Promise<void> => {
    const project = event.payload;
    if (await groupStore.putProjectTags(trx, project.code, project.tags)) moveEpochAfterCommit(trx, cache, log);
  });
}

export function moveEpochAfterCommit(trx: Trx, cache: Cache, log: Logger): void {
  trx.executionPromise.then(
    () =>
      cache
        .incr(AUTH_EPOCH_KEY)
        .catch((err: Error) => log.warn('moving the auth epoch failed', { error: err.message })),
    () => undefined,
  );
}

/** The catalog's answer to one page of project tags. */
export type ListProjectTags = (req: {
  afterCode: string;
  limit: number;
}) => Promise<{ projects: { code: string; tags: string[] }[] }>;

const PAGE = 500;

/**
 * Fills identity's copy with the projects made before it listened to the catalog's events (a
 * deployment that had projects before user groups existed). Only codes it lacks are added: a row it
 * has came from an event, which is newer than any page read here. Answers true once done.
 */
export function copyProjectTags(
  list: ListProjectTags,
  data: ServiceData,
  cache: Cache,
  log: Logger,
): () => Promise<boolean> {
  return async () => {
    let after = '';
    let added = 0;
    for (;;) {
      const { projects } = await list({ afterCode: after, limit: PAGE });
      if (projects.length === 0) break;
      await data.transaction(async (trx) => {
        for (const p of projects) if (await groupStore.putProjectTags(trx, p.code, p.tags, true)) added++;
      });
      after = projects[projects.length - 1].code;
      if (projects.length < PAGE) break;
    }
    if (added > 0) {
      await cache.incr(AUTH_EPOCH_KEY);
      log.info('project tags copied from the catalog', { projectsNamingGroupTags: added });
    }
    return true;
  };
}
