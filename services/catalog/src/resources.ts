import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {
  EgressProxy, FieldProblem, forbidden, gitHost, hasPermission, invalid, invalidField, isUuid, Logger, notFound, Principal, Queryable, SecretBox,
  ServiceHost,
} from '@bulwark/platform';
import { CATALOG_EVENTS, TOOL_TYPES, toolType, ToolType } from '@bulwark/contracts';
import { ChecksLookup, usedByMessage } from './checks-lookup';
import type { CatalogConfig } from './config';
import { Access, AccessType, changeableBy, resolveAccess, usableIn, visibleTo } from './domain/access';
import { probeGit, ProbeResult } from './domain/git-probe';
import { resolveConnection, SourceConnection, SourceSettingsInput, sourceType, SourceType } from './domain/source-types';
import { resolveToolSettings } from './domain/tool-settings';
import { BulkStatus, catalogEvent } from './catalog-writes';
import type { Projects } from './projects';
import { projectStore } from './store/projects';
import { sealedStore } from './store/sealed';
import { SourceRecord, sourceStore } from './store/sources';
import { ToolRecord, toolStore } from './store/tools';

type Kind = 'source' | 'tool';
interface AccessInput {
  access_type?: AccessType;
  project_codes?: string[];
}

const sourceEvent = (s: SourceRecord) => ({
  id: s.id, name: s.name, source_type_id: s.sourceTypeId, url: s.url, access_type: s.access.accessType, project_codes: s.access.projectCodes,
});
const toolEvent = (t: ToolRecord) => ({
  id: t.id, name: t.name, type_id: t.typeId, version: t.version, access_type: t.access.accessType, project_codes: t.access.projectCodes,
});

function throwProblems(problems: FieldProblem[]): void {
  if (problems.length > 0) throw invalid(`Invalid request: ${problems.map((p) => `${p.field} ${p.problem}`).join('; ')}`, problems);
}

/**
 * Sources and tools: what checks run with. Secrets are sealed with the master key before they are
 * stored and opened only for the connection test and internal callers. A scoped caller sees global
 * resources and those of its projects (others: 404), and changes only resources wholly within them.
 */
export class Resources {
  constructor(
    private readonly host: ServiceHost,
    private readonly projects: Projects,
    private readonly secrets: SecretBox,
    private readonly checks: ChecksLookup,
    private readonly egress: EgressProxy,
    private readonly config: CatalogConfig,
    private readonly log: Logger,
  ) {}

  private get db() {
    return this.host.db;
  }

  /** The access a write asks for; every listed project must be live and visible to the caller. */
  private async access(db: Queryable, p: Principal, kind: Kind, input: AccessInput, current?: Access): Promise<Access> {
    const { access, problems } = resolveAccess(input, current);
    if (input.project_codes) {
      const live = await projectStore.live(db, input.project_codes.filter((c) => p.projects === null || p.projects.includes(c)));
      input.project_codes.forEach((c, i) => {
        if (!live.has(c)) problems.push({ field: `project_codes[${i}]`, problem: `unknown project code "${c}"` });
      });
    }
    throwProblems(problems);
    if (!changeableBy(p, access)) throw forbidden(`A user limited to some projects can only give a ${kind} access_type "project" within its projects`);
    return access;
  }

  private mayChange(p: Principal, kind: Kind, id: string, a: Access): void {
    if (!changeableBy(p, a)) throw forbidden(`Only a user with access to every project of ${kind} ${id} can change it`);
  }

  // ---- sources

  private sourceTypeOrThrow(id: number, field: string): SourceType {
    const type = sourceType(id);
    if (!type) throw invalidField(field, `unknown source type ${id} (see GET /api/v1/source-types)`);
    return type;
  }

  private connectionOf(s: SourceRecord): SourceConnection {
    return {
      url: s.url, branchName: s.branchName, authMethod: s.authMethod, login: s.login,
      password: s.passwordSealed ? this.secrets.open(s.passwordSealed) : null,
      sshPrivateKey: s.sshKeySealed ? this.secrets.open(s.sshKeySealed) : null,
    };
  }

  private sealed(c: SourceConnection) {
    return {
      url: c.url, branchName: c.branchName, authMethod: c.authMethod, login: c.login,
      passwordSealed: c.password ? this.secrets.seal(c.password) : null,
      sshKeySealed: c.sshPrivateKey ? this.secrets.seal(c.sshPrivateKey) : null,
    };
  }

  async createSource(p: Principal, w: { name: string; description?: string; source_type_id: number; settings: SourceSettingsInput } & AccessInput) {
    const type = this.sourceTypeOrThrow(w.source_type_id, 'source_type_id');
    const { connection, problems } = resolveConnection(type, w.settings);
    throwProblems(problems);
    return this.host.transaction(async (trx) => {
      const access = await this.access(trx, p, 'source', w);
      const id = randomUUID();
      await sourceStore.insert(trx, id, { name: w.name, description: w.description ?? '', sourceTypeId: type.id, ...this.sealed(connection), access });
      const source = (await sourceStore.get(trx, id))!;
      await catalogEvent(trx, CATALOG_EVENTS.sourceCreated, id, sourceEvent(source));
      this.log.info('source created', { id, name: source.name, sourceTypeId: type.id, authMethod: source.authMethod, by: p.username });
      return source;
    });
  }

  private async visibleSource(db: Queryable, p: Principal, id: string): Promise<SourceRecord> {
    const source = isUuid(id) ? await sourceStore.get(db, id) : undefined;
    if (!source || !visibleTo(p, source.access)) throw notFound(`Source ${id}`);
    return source;
  }

  getSource(p: Principal, id: string) {
    return this.visibleSource(this.db, p, id);
  }

  listSources(p: Principal, q: { page: number; limit: number; searchName?: string; searchSource?: string }) {
    return sourceStore.list(this.db, { ...q, scope: p.projects });
  }

  async updateSource(p: Principal, id: string, w: { name?: string; description?: string; source_type_id?: number; settings?: Partial<SourceSettingsInput> } & AccessInput) {
    return this.host.transaction(async (trx) => {
      const source = await this.visibleSource(trx, p, id);
      this.mayChange(p, 'source', id, source.access);
      const type = this.sourceTypeOrThrow(w.source_type_id ?? source.sourceTypeId, 'source_type_id');
      const { connection, problems } = resolveConnection(type, w.settings ?? {}, this.connectionOf(source));
      throwProblems(problems);
      const access = await this.access(trx, p, 'source', w, source.access);
      await sourceStore.update(trx, id, { name: w.name ?? source.name, description: w.description ?? source.description, sourceTypeId: type.id, ...this.sealed(connection), access });
      const updated = (await sourceStore.get(trx, id))!;
      await catalogEvent(trx, CATALOG_EVENTS.sourceUpdated, id, { ...sourceEvent(updated), fields: Object.keys(w) });
      this.log.info('source updated', { id, fields: Object.keys(w), by: p.username });
      return updated;
    });
  }

  async deleteSources(p: Principal, ids: string[]): Promise<BulkStatus[]> {
    return this.deleteResources(p, 'source', ids);
  }

  /** Contacts the repository with the given settings; secrets left out come from `source_id` when given. */
  async testSource(p: Principal, typeId: number, w: { settings: SourceSettingsInput & { url: string }; source_id?: string }): Promise<ProbeResult> {
    const type = sourceType(typeId);
    if (!type) throw notFound(`Source type ${typeId}`);
    const stored = w.source_id ? this.connectionOf(await this.visibleSource(this.db, p, w.source_id)) : undefined;
    // Stored secrets go only where they already went: never to another host named in the request.
    if (stored && gitHost(stored.url) !== gitHost(w.settings.url)) {
      throw invalidField('settings.url', `must point at the host of source ${w.source_id} to use its stored secrets`);
    }
    const secretsOnly = stored ? { ...stored, url: w.settings.url, branchName: w.settings.branch_name ?? null } : undefined;
    const { connection, problems } = resolveConnection(type, w.settings, secretsOnly);
    throwProblems(problems);
    const result = await probeGit(type.transport, connection, this.config.CATALOG_GIT_TEST_TIMEOUT_SECONDS * 1000, this.egress);
    this.log.info('source connection tested', { sourceTypeId: typeId, ok: result.ok, message: result.message, by: p.username });
    return result;
  }

  // ---- tools

  private toolTypeOrThrow(id: number): ToolType {
    const type = toolType(id);
    if (!type) throw invalidField('type_id', `unknown tool type ${id} (see GET /api/v1/tool-types)`);
    return type;
  }

  async createTool(p: Principal, w: { name?: string; description?: string; type_id: number; version?: string; settings: Record<string, unknown> } & AccessInput) {
    const type = this.toolTypeOrThrow(w.type_id);
    const { settings, apiToken, problems } = resolveToolSettings(type, w.settings, null);
    throwProblems(problems);
    return this.host.transaction(async (trx) => {
      const access = await this.access(trx, p, 'tool', w);
      const id = randomUUID();
      const version = w.version ?? type.version;
      await toolStore.insert(trx, id, {
        name: w.name ?? `${type.name} ${version}`, description: w.description ?? '', typeId: type.id, version, settings,
        apiTokenSealed: apiToken ? this.secrets.seal(apiToken) : null, access,
      });
      const tool = (await toolStore.get(trx, id))!;
      await catalogEvent(trx, CATALOG_EVENTS.toolCreated, id, toolEvent(tool));
      this.log.info('tool created', { id, name: tool.name, typeId: type.id, version, by: p.username });
      return tool;
    });
  }

  private async visibleTool(db: Queryable, p: Principal, id: string): Promise<ToolRecord> {
    const tool = isUuid(id) ? await toolStore.get(db, id) : undefined;
    if (!tool || !visibleTo(p, tool.access)) throw notFound(`Tool ${id}`);
    return tool;
  }

  getTool(p: Principal, id: string) {
    return this.visibleTool(this.db, p, id);
  }

  listTools(p: Principal, q: { page: number; limit: number; version?: string; searchType?: string; searchName?: string; searchUrl?: string; searchVersion?: string }) {
    const { searchType, ...rest } = q;
    const typeIds = searchType ? TOOL_TYPES.filter((t) => t.name.toLowerCase().includes(searchType.toLowerCase())).map((t) => t.id) : undefined;
    return toolStore.list(this.db, { ...rest, typeIds, scope: p.projects });
  }

  async updateTool(p: Principal, id: string, w: { name?: string; description?: string; version?: string; settings?: Record<string, unknown> } & AccessInput) {
    return this.host.transaction(async (trx) => {
      const tool = await this.visibleTool(trx, p, id);
      this.mayChange(p, 'tool', id, tool.access);
      const type = this.toolTypeOrThrow(tool.typeId);
      let settings = tool.settings;
      let apiTokenSealed = tool.apiTokenSealed;
      if (w.settings) {
        const resolved = resolveToolSettings(type, w.settings, tool.apiTokenSealed ? this.secrets.open(tool.apiTokenSealed) : null);
        throwProblems(resolved.problems);
        settings = resolved.settings;
        apiTokenSealed = resolved.apiToken ? this.secrets.seal(resolved.apiToken) : null;
      }
      const access = await this.access(trx, p, 'tool', w, tool.access);
      await toolStore.update(trx, id, {
        name: w.name ?? tool.name, description: w.description ?? tool.description, typeId: tool.typeId, version: w.version ?? tool.version, settings, apiTokenSealed, access,
      });
      const updated = (await toolStore.get(trx, id))!;
      await catalogEvent(trx, CATALOG_EVENTS.toolUpdated, id, { ...toolEvent(updated), fields: Object.keys(w) });
      this.log.info('tool updated', { id, fields: Object.keys(w), by: p.username });
      return updated;
    });
  }

  deleteTools(p: Principal, ids: string[]): Promise<BulkStatus[]> {
    return this.deleteResources(p, 'tool', ids);
  }

  /** Where the catalog keeps a tool's cached data (rule bundles, downloaded databases). */
  toolCacheDir(id: string): string {
    return path.join(this.host.ctx.dataDir, 'tool-cache', id);
  }

  /**
   * Drops the tool's cached workspaces and data held here, and announces it on the catalog topic so
   * the scanning service drops the workspaces it keeps for the tool.
   */
  async cleanupTool(p: Principal, id: string) {
    const tool = await this.visibleTool(this.db, p, id);
    this.mayChange(p, 'tool', id, tool.access);
    const dir = this.toolCacheDir(id);
    const removed = { files: 0, bytes: 0 };
    if (fs.existsSync(dir)) {
      for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
        if (!entry.isFile()) continue;
        removed.files += 1;
        removed.bytes += fs.statSync(path.join(entry.parentPath, entry.name)).size;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    }
    await this.host.transaction((trx) => catalogEvent(trx, CATALOG_EVENTS.toolCleanedUp, id, { id, removed }));
    this.log.info('tool cleaned up', { id, ...removed, by: p.username });
    return { id, removed, message: `Removed ${removed.files} cached file(s), ${removed.bytes} bytes; scanners were asked to drop the tool's workspaces` };
  }

  // ---- both

  private async deleteResources(p: Principal, kind: Kind, ids: string[]): Promise<BulkStatus[]> {
    const known = ids.filter(isUuid);
    const inUse = known.length ? await this.checks.using(kind === 'source' ? { sourceIds: known } : { toolIds: known }) : [];
    return this.host.transaction(async (trx) => {
      const results: BulkStatus[] = [];
      for (const id of ids) {
        const record = isUuid(id) ? await (kind === 'source' ? sourceStore.get(trx, id) : toolStore.get(trx, id)) : undefined;
        const users = inUse.filter((c) => (kind === 'source' ? c.scanSourceId : c.securityToolId) === id);
        if (!record || !visibleTo(p, record.access)) results.push({ id, status: 'not_found' });
        else if (!changeableBy(p, record.access)) results.push({ id, status: 'conflict', message: 'shared with projects outside your scope' });
        else if (users.length > 0) results.push({ id, status: 'conflict', message: usedByMessage(users) });
        else if (kind === 'source') {
          await sourceStore.delete(trx, id);
          await catalogEvent(trx, CATALOG_EVENTS.sourceDeleted, id, sourceEvent(record as SourceRecord));
          results.push({ id, status: 'deleted' });
        } else {
          await toolStore.delete(trx, id);
          await catalogEvent(trx, CATALOG_EVENTS.toolDeleted, id, toolEvent(record as ToolRecord));
          results.push({ id, status: 'deleted' });
        }
      }
      return results;
    });
  }

  /** Sources and tools usable in a project (or all the caller sees), each part only with its read right. */
  async usable(p: Principal, projectCode: string | undefined) {
    if (projectCode) await this.projects.visible(this.db, p, projectCode);
    const all = { page: 1, limit: 1000, scope: p.projects, usableIn: projectCode };
    const [sources, tools] = await Promise.all([
      hasPermission(p, 'catalog.sources', 'r') ? sourceStore.list(this.db, all) : { items: [] },
      hasPermission(p, 'catalog.tools', 'r') ? toolStore.list(this.db, all) : { items: [] },
    ]);
    return { sources: sources.items, tools: tools.items };
  }

  // ---- internal callers (gRPC)

  async sourceForService(id: string, withSecrets: boolean): Promise<{ source: SourceRecord; connection?: SourceConnection }> {
    const source = isUuid(id) ? await sourceStore.get(this.db, id) : undefined;
    if (!source) throw notFound(`Source ${id}`);
    return { source, connection: withSecrets ? this.connectionOf(source) : undefined };
  }

  async toolForService(id: string, withSecrets: boolean): Promise<{ tool: ToolRecord; apiToken?: string }> {
    const tool = isUuid(id) ? await toolStore.get(this.db, id) : undefined;
    if (!tool) throw notFound(`Tool ${id}`);
    return { tool, apiToken: withSecrets && tool.apiTokenSealed ? this.secrets.open(tool.apiTokenSealed) : undefined };
  }

  /** Whether a project's checks may use a source and a tool: the project live and not archived, both available to it. */
  async checkUsable(projectCode: string, sourceId: string, toolId: string): Promise<FieldProblem[]> {
    const problems: FieldProblem[] = [];
    const project = projectCode ? await projectStore.get(this.db, projectCode) : undefined;
    if (!project || project.deletedAt) problems.push({ field: 'layer_id', problem: `project ${projectCode} does not exist` });
    else if (project.archivedAt) problems.push({ field: 'layer_id', problem: `project ${projectCode} is archived and read-only` });
    if (sourceId) {
      const source = isUuid(sourceId) ? await sourceStore.get(this.db, sourceId) : undefined;
      if (!source) problems.push({ field: 'scan_source_id', problem: `unknown source ${sourceId}` });
      else if (!usableIn(source.access, projectCode)) problems.push({ field: 'scan_source_id', problem: `source ${sourceId} is not available in project ${projectCode}` });
    }
    if (toolId) {
      const tool = isUuid(toolId) ? await toolStore.get(this.db, toolId) : undefined;
      if (!tool) problems.push({ field: 'security_tool_id', problem: `unknown tool ${toolId}` });
      else if (!usableIn(tool.access, projectCode)) problems.push({ field: 'security_tool_id', problem: `tool ${toolId} is not available in project ${projectCode}` });
    }
    return problems;
  }

  /** Seals secrets stored under an earlier master key again under the current one; answers how many. */
  async resealStaleSecrets(): Promise<number> {
    return this.host.transaction(async (trx) => {
      const stale = (await sealedStore.all(trx)).filter((s) => this.secrets.isStale(s.sealed));
      for (const s of stale) await sealedStore.replace(trx, s, this.secrets.seal(this.secrets.open(s.sealed)));
      return stale.length;
    });
  }
}

