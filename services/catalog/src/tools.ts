import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {
  assertCredentialStaysWith,
  invalidField,
  isUuid,
  Logger,
  notFound,
  Principal,
  SecretBox,
  ServiceData,
  present,
} from '@bulwark/platform';
import { CATALOG_EVENTS, newEvent, TOOL_TYPES, toolType, ToolType } from '@bulwark/contracts';
import { BulkStatus, catalogEvent } from './catalog-writes';
import { seenBy } from './domain/access';
import { resolveToolSettings } from './domain/tool-settings';
import { AccessInput, ResourceAccess, ResourceWrites, throwProblems } from './resource-access';
import { ToolRecord, toolStore } from './store/tools';

const toolEvent = (t: ToolRecord) => ({
  id: t.id,
  name: t.name,
  type_id: t.typeId,
  version: t.version,
  access_type: t.access.accessType,
  project_codes: t.access.projectCodes,
});

const TOOLS: ResourceWrites<ToolRecord> = {
  kind: 'tool',
  get: (db, id) => toolStore.get(db, id),
  remove: (db, id) => toolStore.delete(db, id),
  updated: (r, fields) => newEvent(CATALOG_EVENTS.toolUpdated, r.id, { ...toolEvent(r), fields }),
  deleted: (r, id) => newEvent(CATALOG_EVENTS.toolDeleted, id, toolEvent(r)),
};

/** Security tools checks run: a tool type, its version and settings; an API token is sealed like a source's secrets. */
export class Tools {
  constructor(
    private readonly deps: {
      data: ServiceData;
      access: ResourceAccess;
      secrets: SecretBox;
      log: Logger;
      /** The catalog's data directory, which holds the tools' caches. */ dataDir: string;
    },
  ) {}

  private toolTypeOrThrow(id: number): ToolType {
    const type = toolType(id);
    if (!type) throw invalidField('type_id', `unknown tool type ${id} (see GET /api/v1/tool-types)`);
    return type;
  }

  async createTool(
    p: Principal,
    w: {
      name?: string;
      description?: string;
      type_id: number;
      version?: string;
      settings: Record<string, unknown>;
    } & AccessInput,
  ) {
    const type = this.toolTypeOrThrow(w.type_id);
    const { settings, apiToken, problems } = resolveToolSettings(type, w.settings, null);
    throwProblems(problems);
    return this.deps.data.transaction(async (trx) => {
      const access = await this.deps.access.resolve(trx, p, 'tool', w);
      const id = randomUUID();
      const version = w.version ?? type.version;
      await toolStore.insert(trx, id, {
        name: w.name ?? `${type.name} ${version}`,
        description: w.description ?? '',
        typeId: type.id,
        version,
        settings,
        apiTokenSealed: apiToken ? this.deps.secrets.seal(apiToken) : null,
        access,
      });
      const tool = present(await toolStore.get(trx, id), `tool ${id}`);
      await catalogEvent(trx, CATALOG_EVENTS.toolCreated, id, toolEvent(tool));
      this.deps.log.info('tool created', { id, name: tool.name, typeId: type.id, version, by: p.username });
      return tool;
    });
  }

  async getTool(p: Principal, id: string) {
    return seenBy(p, await this.deps.access.visible(this.deps.data.db, p, id, TOOLS));
  }

  async listTools(
    p: Principal,
    q: {
      page: number;
      limit: number;
      version?: string;
      searchType?: string;
      searchName?: string;
      searchUrl?: string;
      searchVersion?: string;
    },
  ) {
    const { searchType, ...rest } = q;
    const typeIds = searchType
      ? TOOL_TYPES.filter((t) => t.name.toLowerCase().includes(searchType.toLowerCase())).map((t) => t.id)
      : undefined;
    const page = await toolStore.list(this.deps.data.db, { ...rest, typeIds, scope: p.projects });
    return { ...page, items: page.items.map((t) => seenBy(p, t)) };
  }

  async updateTool(
    p: Principal,
    id: string,
    w: { name?: string; description?: string; version?: string; settings?: Record<string, unknown> } & AccessInput,
  ) {
    return this.deps.data.transaction(async (trx) => {
      const tool = await this.deps.access.changeable(trx, p, id, TOOLS);
      const type = this.toolTypeOrThrow(tool.typeId);
      let settings = tool.settings;
      let apiTokenSealed = tool.apiTokenSealed;
      if (w.settings) {
        const resolved = resolveToolSettings(
          type,
          w.settings,
          tool.apiTokenSealed ? this.deps.secrets.open(tool.apiTokenSealed) : null,
        );
        throwProblems(resolved.problems);
        // A stored token kept by an update goes only to the server it was stored for.
        if (tool.apiTokenSealed && resolved.apiToken !== null && w.settings.api_token === undefined)
          assertCredentialStaysWith(String(tool.settings.url), String(resolved.settings.url), 'settings.url');
        settings = resolved.settings;
        apiTokenSealed = resolved.apiToken ? this.deps.secrets.seal(resolved.apiToken) : null;
      }
      const access = await this.deps.access.resolve(trx, p, 'tool', w, tool.access);
      await toolStore.update(trx, id, {
        name: w.name ?? tool.name,
        description: w.description ?? tool.description,
        typeId: tool.typeId,
        version: w.version ?? tool.version,
        settings,
        apiTokenSealed,
        access,
      });
      const updated = await this.deps.access.announceUpdate(trx, id, Object.keys(w), TOOLS);
      this.deps.log.info('tool updated', { id, fields: Object.keys(w), by: p.username });
      return updated;
    });
  }

  deleteTools(p: Principal, ids: string[]): Promise<BulkStatus[]> {
    return this.deps.access.deleteUnused(p, ids, TOOLS);
  }

  /** Where the catalog keeps a tool's cached data (rule bundles, downloaded databases). */
  toolCacheDir(id: string): string {
    return path.join(this.deps.dataDir, 'tool-cache', id);
  }

  /**
   * Drops the tool's cached workspaces and data held here, and announces it on the catalog topic so
   * the scanning service drops the workspaces it keeps for the tool.
   */
  async cleanupTool(p: Principal, id: string) {
    await this.deps.access.changeable(this.deps.data.db, p, id, TOOLS);
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
    await this.deps.data.transaction((trx) => catalogEvent(trx, CATALOG_EVENTS.toolCleanedUp, id, { id, removed }));
    this.deps.log.info('tool cleaned up', { id, ...removed, by: p.username });
    return {
      id,
      removed,
      message: `Removed ${removed.files} cached file(s), ${removed.bytes} bytes; scanners were asked to drop the tool's workspaces`,
    };
  }

  // ---- internal callers (gRPC)

  async toolForService(id: string, withSecrets: boolean): Promise<{ tool: ToolRecord; apiToken?: string }> {
    const tool = isUuid(id) ? await toolStore.get(this.deps.data.db, id) : undefined;
    if (!tool) throw notFound(`Tool ${id}`);
    return {
      tool,
      apiToken: withSecrets && tool.apiTokenSealed ? this.deps.secrets.open(tool.apiTokenSealed) : undefined,
    };
  }
}
