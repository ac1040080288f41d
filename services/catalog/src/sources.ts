import { randomUUID } from 'node:crypto';
import {
  assertCredentialStaysWith,
  EgressProxy,
  invalidField,
  isUuid,
  Logger,
  notFound,
  Principal,
  SecretBox,
  ServiceData,
  present,
} from '@bulwark/platform';
import { CATALOG_EVENTS, newEvent, sourceType, SourceType } from '@bulwark/contracts';
import { BulkStatus, catalogEvent } from './catalog-writes';
import type { CatalogConfig } from './config';
import { seenBy } from './domain/access';
import { probeGit, ProbeResult } from './domain/git-probe';
import { resolveConnection, SourceConnection, SourceSettingsInput } from './domain/source-connection';
import { AccessInput, ResourceAccess, ResourceWrites, throwProblems } from './resource-access';
import { SourceRecord, sourceStore } from './store/sources';

const sourceEvent = (s: SourceRecord) => ({
  id: s.id,
  name: s.name,
  source_type_id: s.sourceTypeId,
  url: s.url,
  access_type: s.access.accessType,
  project_codes: s.access.projectCodes,
});

/** Whether the connection after an update still holds a secret the update did not give anew. */
const keepsStoredSecret = (given: Partial<SourceSettingsInput>, source: SourceRecord, after: SourceConnection) =>
  (after.password !== null && given.password === undefined && source.passwordSealed !== null) ||
  (after.sshPrivateKey !== null && given.ssh_private_key === undefined && source.sshKeySealed !== null);

const SOURCES: ResourceWrites<SourceRecord> = {
  kind: 'source',
  get: (db, id) => sourceStore.get(db, id),
  remove: (db, id) => sourceStore.delete(db, id),
  updated: (r, fields) => newEvent(CATALOG_EVENTS.sourceUpdated, r.id, { ...sourceEvent(r), fields }),
  deleted: (r, id) => newEvent(CATALOG_EVENTS.sourceDeleted, id, sourceEvent(r)),
};

/**
 * Git sources checks scan. Their secrets are sealed with the master key before they are stored and
 * opened only for the connection test and internal callers; the test reaches out through the egress
 * proxy, which applies the outbound address policy.
 */
export class Sources {
  constructor(
    private readonly deps: {
      data: ServiceData;
      access: ResourceAccess;
      secrets: SecretBox;
      egress: EgressProxy;
      config: CatalogConfig;
      log: Logger;
    },
  ) {}

  private sourceTypeOrThrow(id: number, field: string): SourceType {
    const type = sourceType(id);
    if (!type) throw invalidField(field, `unknown source type ${id} (see GET /api/v1/source-types)`);
    return type;
  }

  private connectionOf(s: SourceRecord): SourceConnection {
    return {
      url: s.url,
      branchName: s.branchName,
      authMethod: s.authMethod,
      login: s.login,
      password: s.passwordSealed ? this.deps.secrets.open(s.passwordSealed) : null,
      sshPrivateKey: s.sshKeySealed ? this.deps.secrets.open(s.sshKeySealed) : null,
    };
  }

  private sealed(c: SourceConnection) {
    return {
      url: c.url,
      branchName: c.branchName,
      authMethod: c.authMethod,
      login: c.login,
      passwordSealed: c.password ? this.deps.secrets.seal(c.password) : null,
      sshKeySealed: c.sshPrivateKey ? this.deps.secrets.seal(c.sshPrivateKey) : null,
    };
  }

  async createSource(
    p: Principal,
    w: { name: string; description?: string; source_type_id: number; settings: SourceSettingsInput } & AccessInput,
  ) {
    const type = this.sourceTypeOrThrow(w.source_type_id, 'source_type_id');
    const { connection, problems } = resolveConnection(type, w.settings);
    throwProblems(problems);
    return this.deps.data.transaction(async (trx) => {
      const access = await this.deps.access.resolve(trx, p, 'source', w);
      const id = randomUUID();
      await sourceStore.insert(trx, id, {
        name: w.name,
        description: w.description ?? '',
        sourceTypeId: type.id,
        ...this.sealed(connection),
        access,
      });
      const source = present(await sourceStore.get(trx, id), `source ${id}`);
      await catalogEvent(trx, CATALOG_EVENTS.sourceCreated, id, sourceEvent(source));
      this.deps.log.info('source created', {
        id,
        name: source.name,
        sourceTypeId: type.id,
        authMethod: source.authMethod,
        by: p.username,
      });
      return source;
    });
  }

  async getSource(p: Principal, id: string) {
    return seenBy(p, await this.deps.access.visible(this.deps.data.db, p, id, SOURCES));
  }

  async listSources(p: Principal, q: { page: number; limit: number; searchName?: string; searchSource?: string }) {
    const page = await sourceStore.list(this.deps.data.db, { ...q, scope: p.projects });
    return { ...page, items: page.items.map((s) => seenBy(p, s)) };
  }

  async updateSource(
    p: Principal,
    id: string,
    w: {
      name?: string;
      description?: string;
      source_type_id?: number;
      settings?: Partial<SourceSettingsInput>;
    } & AccessInput,
  ) {
    return this.deps.data.transaction(async (trx) => {
      const source = await this.deps.access.changeable(trx, p, id, SOURCES);
      const type = this.sourceTypeOrThrow(w.source_type_id ?? source.sourceTypeId, 'source_type_id');
      const { connection, problems } = resolveConnection(type, w.settings ?? {}, this.connectionOf(source));
      throwProblems(problems);
      if (keepsStoredSecret(w.settings ?? {}, source, connection))
        assertCredentialStaysWith(source.url, connection.url, 'settings.url');
      const access = await this.deps.access.resolve(trx, p, 'source', w, source.access);
      await sourceStore.update(trx, id, {
        name: w.name ?? source.name,
        description: w.description ?? source.description,
        sourceTypeId: type.id,
        ...this.sealed(connection),
        access,
      });
      const updated = await this.deps.access.announceUpdate(trx, id, Object.keys(w), SOURCES);
      this.deps.log.info('source updated', { id, fields: Object.keys(w), by: p.username });
      return updated;
    });
  }

  deleteSources(p: Principal, ids: string[]): Promise<BulkStatus[]> {
    return this.deps.access.deleteUnused(p, ids, SOURCES);
  }

  /**
   * Contacts the repository with the given settings; secrets left out come from `source_id` when
   * given, a source the caller may change (running a stored source is x on it, like tool cleanup).
   */
  async testSource(
    p: Principal,
    typeId: number,
    w: { settings: SourceSettingsInput & { url: string }; source_id?: string },
  ): Promise<ProbeResult> {
    const type = sourceType(typeId);
    if (!type) throw notFound(`Source type ${typeId}`);
    const stored = w.source_id
      ? this.connectionOf(await this.deps.access.changeable(this.deps.data.db, p, w.source_id, SOURCES))
      : undefined;
    // Stored secrets go only where they already went: never to another scheme, host or port named in the request.
    if (stored) assertCredentialStaysWith(stored.url, w.settings.url, 'settings.url');
    const secretsOnly = stored
      ? { ...stored, url: w.settings.url, branchName: w.settings.branch_name ?? null }
      : undefined;
    const { connection, problems } = resolveConnection(type, w.settings, secretsOnly);
    throwProblems(problems);
    const result = await probeGit(
      type.transport,
      connection,
      this.deps.config.CATALOG_GIT_TEST_TIMEOUT_SECONDS * 1000,
      this.deps.egress,
    );
    this.deps.log.info('source connection tested', {
      sourceTypeId: typeId,
      ok: result.ok,
      message: result.message,
      by: p.username,
    });
    return result;
  }

  // ---- internal callers (gRPC)

  async sourceForService(
    id: string,
    withSecrets: boolean,
  ): Promise<{ source: SourceRecord; connection?: SourceConnection }> {
    const source = isUuid(id) ? await sourceStore.get(this.deps.data.db, id) : undefined;
    if (!source) throw notFound(`Source ${id}`);
    return { source, connection: withSecrets ? this.connectionOf(source) : undefined };
  }
}
