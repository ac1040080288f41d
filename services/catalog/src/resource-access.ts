import {
  assertMayChangeProjectSet,
  bulkRefusal,
  canSeeProject,
  FieldProblem,
  hasPermission,
  invalid,
  isUuid,
  notFound,
  present,
  Principal,
  projectSetAccess,
  Queryable,
  scopedTo,
  ServiceData,
} from '@bulwark/platform';
import { TypedEvent, writeEvents } from '@bulwark/contracts';
import { BulkStatus } from './catalog-writes';
import { ChecksLookup, usedByMessage } from './checks-lookup';
import { Access, AccessType, projectSetOf, resolveAccess, seenBy, usableIn, visibleTo } from './domain/access';
import type { Projects } from './projects';
import { projectStore } from './store/projects';
import { SourceQuery, sourceStore } from './store/sources';
import { toolStore } from './store/tools';

export type ResourceKind = 'source' | 'tool';
export interface AccessInput {
  access_type?: AccessType;
  project_codes?: string[];
}

/** How one kind of resource is read by id. */
export interface ResourceLookup<R extends { access: Access }> {
  kind: ResourceKind;
  get: (db: Queryable, id: string) => Promise<R | undefined>;
}

/** How one kind of resource is read, deleted and announced, for the update and deletion both kinds share. */
export interface ResourceWrites<R extends { access: Access }> extends ResourceLookup<R> {
  remove: (db: Queryable, id: string) => Promise<unknown>;
  /** The event that announces an update of the record, naming the fields the request gave. */
  updated: (record: R, fields: string[]) => TypedEvent;
  /** The event that announces the deletion of the record with this id. */
  deleted: (record: R, id: string) => TypedEvent;
}

export function throwProblems(problems: FieldProblem[]): void {
  if (problems.length > 0)
    throw invalid(`Invalid request: ${problems.map((p) => `${p.field} ${p.problem}`).join('; ')}`, problems);
}

/**
 * Who may see, change, use and delete sources and tools, by platform's project-set rule (a global one
 * applies to every project): a scoped caller sees global resources and those shared with one of its
 * projects, with only its own codes (others: 404), and changes, runs or deletes only those wholly
 * within its projects (403); a resource a check uses cannot be deleted.
 */
export class ResourceAccess {
  constructor(
    private readonly data: ServiceData,
    private readonly projects: Projects,
    private readonly checks: ChecksLookup,
  ) {}

  /** The access a write asks for; every listed project must be live and visible to the caller. */
  async resolve(
    db: Queryable,
    p: Principal,
    kind: ResourceKind,
    input: AccessInput,
    current?: Access,
  ): Promise<Access> {
    const { access, problems } = resolveAccess(input, current);
    if (input.project_codes) {
      const live = await projectStore.live(
        db,
        input.project_codes.filter((c) => p.projects === null || p.projects.includes(c)),
      );
      input.project_codes.forEach((c, i) => {
        if (!live.has(c)) problems.push({ field: `project_codes[${i}]`, problem: `unknown project code "${c}"` });
      });
    }
    throwProblems(problems);
    assertMayChangeProjectSet(p, projectSetOf(access), `a ${access.accessType} ${kind}`);
    return access;
  }

  /** A source or tool the caller sees: global, or shared with one of its projects (404 otherwise, as for none). */
  async visible<R extends { access: Access }>(db: Queryable, p: Principal, id: string, how: ResourceLookup<R>) {
    const record = isUuid(id) ? await how.get(db, id) : undefined;
    if (!record || !visibleTo(p, record.access)) throw notFound(`${how.kind === 'source' ? 'Source' : 'Tool'} ${id}`);
    return record;
  }

  /** One the caller may also change, run or delete: all its projects within the caller's (403 otherwise). */
  async changeable<R extends { access: Access }>(db: Queryable, p: Principal, id: string, how: ResourceLookup<R>) {
    const record = await this.visible(db, p, id, how);
    assertMayChangeProjectSet(p, projectSetOf(record.access), `${how.kind} ${id}`);
    return record;
  }

  /** The record as an update in `trx` left it, its update announced with the fields the request gave. */
  async announceUpdate<R extends { access: Access }>(
    trx: Queryable,
    id: string,
    fields: string[],
    how: ResourceWrites<R>,
  ): Promise<R> {
    const updated = present(await how.get(trx, id), `${how.kind} ${id}`);
    await writeEvents(trx, [how.updated(updated, fields)]);
    return updated;
  }

  async deleteUnused<R extends { access: Access }>(
    p: Principal,
    ids: string[],
    how: ResourceWrites<R>,
  ): Promise<BulkStatus[]> {
    const known = ids.filter(isUuid);
    const inUse = known.length
      ? await this.checks.using(how.kind === 'source' ? { sourceIds: known } : { toolIds: known })
      : [];
    return this.data.transaction(async (trx) => {
      const results: BulkStatus[] = [];
      for (const id of ids) {
        const record = isUuid(id) ? await how.get(trx, id) : undefined;
        const users = inUse.filter((c) => (how.kind === 'source' ? c.scanSourceId : c.securityToolId) === id);
        const refused = bulkRefusal(
          id,
          record && projectSetAccess(p, projectSetOf(record.access), `${how.kind} ${id}`),
        );
        if (!record || refused) results.push(refused ?? { id, status: 'not_found' });
        else if (users.length > 0) results.push({ id, status: 'conflict', message: usedByMessage(users) });
        else {
          await how.remove(trx, id);
          await writeEvents(trx, [how.deleted(record, id)]);
          results.push({ id, status: 'deleted' });
        }
      }
      return results;
    });
  }

  /** Sources and tools usable in a project (or all the caller sees), each part only with its read right. */
  async usable(p: Principal, projectCode: string | undefined) {
    if (projectCode) await this.projects.visible(this.data.db, p, projectCode);
    const [sources, tools] = await Promise.all([
      this.usablePart(p, 'catalog.sources', projectCode, (q) => sourceStore.list(this.data.db, q)),
      this.usablePart(p, 'catalog.tools', projectCode, (q) => toolStore.list(this.data.db, q)),
    ]);
    return { sources, tools };
  }

  /**
   * One part of {@link usable}, within the projects its read right covers: the route needs no
   * permission, so the gateway narrowed nothing. A project outside them leaves the part empty.
   */
  private async usablePart<R extends { access: Access }>(
    p: Principal,
    key: string,
    projectCode: string | undefined,
    list: (q: Pick<SourceQuery, 'page' | 'limit' | 'scope' | 'usableIn'>) => Promise<{ items: R[] }>,
  ): Promise<R[]> {
    if (!hasPermission(p, key, 'r')) return [];
    const reader = scopedTo(p, key, 'r');
    if (projectCode && !canSeeProject(reader, projectCode)) return [];
    const { items } = await list({ page: 1, limit: 1000, scope: reader.projects, usableIn: projectCode });
    return items.map((r) => seenBy(reader, r));
  }

  /** Whether a project's checks may use a source and a tool: the project live and not archived, both available to it. */
  async checkUsable(projectCode: string, sourceId: string, toolId: string): Promise<FieldProblem[]> {
    const problems: FieldProblem[] = [];
    const project = projectCode ? await projectStore.get(this.data.db, projectCode) : undefined;
    if (!project || project.deletedAt)
      problems.push({ field: 'layer_id', problem: `project ${projectCode} does not exist` });
    else if (project.archivedAt)
      problems.push({ field: 'layer_id', problem: `project ${projectCode} is archived and read-only` });
    if (sourceId) {
      const source = isUuid(sourceId) ? await sourceStore.get(this.data.db, sourceId) : undefined;
      if (!source) problems.push({ field: 'scan_source_id', problem: `unknown source ${sourceId}` });
      else if (!usableIn(source.access, projectCode))
        problems.push({
          field: 'scan_source_id',
          problem: `source ${sourceId} is not available in project ${projectCode}`,
        });
    }
    if (toolId) {
      const tool = isUuid(toolId) ? await toolStore.get(this.data.db, toolId) : undefined;
      if (!tool) problems.push({ field: 'security_tool_id', problem: `unknown tool ${toolId}` });
      else if (!usableIn(tool.access, projectCode))
        problems.push({
          field: 'security_tool_id',
          problem: `tool ${toolId} is not available in project ${projectCode}`,
        });
    }
    return problems;
  }
}
