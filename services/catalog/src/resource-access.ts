import {
  FieldProblem,
  forbidden,
  hasPermission,
  invalid,
  isUuid,
  Principal,
  Queryable,
  ServiceData,
} from '@bulwark/platform';
import { TypedEvent, writeEvents } from '@bulwark/contracts';
import { BulkStatus } from './catalog-writes';
import { ChecksLookup, usedByMessage } from './checks-lookup';
import { Access, AccessType, changeableBy, resolveAccess, usableIn, visibleTo } from './domain/access';
import type { Projects } from './projects';
import { projectStore } from './store/projects';
import { sourceStore } from './store/sources';
import { toolStore } from './store/tools';

export type ResourceKind = 'source' | 'tool';
export interface AccessInput {
  access_type?: AccessType;
  project_codes?: string[];
}

/** How one kind of resource is read, deleted and announced, for the deletion both kinds share. */
export interface ResourceDeletion<R extends { access: Access }> {
  kind: ResourceKind;
  get: (db: Queryable, id: string) => Promise<R | undefined>;
  remove: (db: Queryable, id: string) => Promise<unknown>;
  /** The event that announces the deletion of the record with this id. */
  deleted: (record: R, id: string) => TypedEvent;
}

export function throwProblems(problems: FieldProblem[]): void {
  if (problems.length > 0)
    throw invalid(`Invalid request: ${problems.map((p) => `${p.field} ${p.problem}`).join('; ')}`, problems);
}

/**
 * Who may see, change, use and delete sources and tools. A scoped caller sees global resources and
 * those of its projects (others: 404), and changes only resources wholly within them; a resource a
 * check uses cannot be deleted.
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
    if (!changeableBy(p, access))
      throw forbidden(
        `A user limited to some projects can only give a ${kind} access_type "project" within its projects`,
      );
    return access;
  }

  mayChange(p: Principal, kind: ResourceKind, id: string, a: Access): void {
    if (!changeableBy(p, a)) throw forbidden(`Only a user with access to every project of ${kind} ${id} can change it`);
  }

  async deleteUnused<R extends { access: Access }>(
    p: Principal,
    ids: string[],
    how: ResourceDeletion<R>,
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
        if (!record || !visibleTo(p, record.access)) results.push({ id, status: 'not_found' });
        else if (!changeableBy(p, record.access))
          results.push({ id, status: 'conflict', message: 'shared with projects outside your scope' });
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
    const all = { page: 1, limit: 1000, scope: p.projects, usableIn: projectCode };
    const [sources, tools] = await Promise.all([
      hasPermission(p, 'catalog.sources', 'r') ? sourceStore.list(this.data.db, all) : { items: [] },
      hasPermission(p, 'catalog.tools', 'r') ? toolStore.list(this.data.db, all) : { items: [] },
    ]);
    return { sources: sources.items, tools: tools.items };
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
