import {
  canSeeProject,
  conflict,
  forbidden,
  invalidField,
  LicenseGate,
  LicenseLimitReached,
  Logger,
  notFound,
  Principal,
  Queryable,
  serializeAcrossReplicas,
  ServiceData,
  Trx,
  present,
} from '@bulwark/platform';
import { CATALOG_EVENTS, type ProjectCriticality } from '@bulwark/contracts';
import { BulkStatus, catalogEvent } from './catalog-writes';
import type { CustomFields } from './custom-fields';
import { ProjectQuery, ProjectRecord, projectStore } from './store/projects';

const projectEvent = (p: ProjectRecord) => ({
  code: p.code,
  name: p.name,
  tags: p.tags,
  archived: p.archivedAt !== null,
  criticality: p.criticality,
});

/**
 * Projects. A project outside the caller's scope does not exist for it (404). An archived project
 * is read-only (409), a deleted one is out of use until restored.
 */
export class Projects {
  constructor(private readonly deps: { data: ServiceData; fields: CustomFields; license: LicenseGate; log: Logger }) {}

  /**
   * Refuses one more project over the license's limit (read before the transaction: it asks
   * identity), counting under a lock so two creations cannot both take the last place.
   */
  private async projectLimitReached(trx: Trx, max: number | null): Promise<LicenseLimitReached | undefined> {
    if (max === null) return undefined;
    await serializeAcrossReplicas(trx, 'license:projects');
    try {
      LicenseGate.ensureRoom('projects', max, await projectStore.countLive(trx));
      return undefined;
    } catch (err) {
      if (err instanceof LicenseLimitReached) return err;
      throw err;
    }
  }

  /** The project as the caller may see it; 404 when it does not exist or lies outside the caller's scope. */
  async visible(db: Queryable, p: Principal, code: string): Promise<ProjectRecord> {
    const project = canSeeProject(p, code) ? await projectStore.get(db, code) : undefined;
    if (!project) throw notFound(`Project ${code}`);
    return project;
  }

  /** A project that can take changes: visible, live and not archived. */
  async writable(db: Queryable, p: Principal, code: string): Promise<ProjectRecord> {
    const project = await this.visible(db, p, code);
    if (project.deletedAt) throw conflict(`Project ${code} is deleted; restore it first`);
    if (project.archivedAt) throw conflict(`Project ${code} is archived and read-only; unarchive it first`);
    return project;
  }

  async createProject(
    p: Principal,
    w: {
      code: string;
      name: string;
      description?: string;
      tags?: string[];
      criticality?: ProjectCriticality;
      field_values?: { field_id: number; value: string }[];
    },
  ) {
    if (p.projects !== null) throw forbidden('A user limited to some projects cannot create projects');
    const values = w.field_values ?? [];
    const max = await this.deps.license.limit('projects');
    return this.deps.data.transaction(async (trx) => {
      await this.deps.fields.checkFieldValues(trx, values);
      // A concurrent create that passes this check meets the unique index: the platform answers 409 too.
      if (await projectStore.codeTaken(trx, w.code)) {
        throw conflict(`Project ${w.code} already exists`, [
          { field: 'code', problem: 'already exists (codes are never reused)' },
        ]);
      }
      const full = await this.projectLimitReached(trx, max);
      if (full) throw full;
      await projectStore.insert(trx, w.code, {
        name: w.name,
        description: w.description ?? '',
        tags: [...new Set(w.tags ?? [])],
        criticality: w.criticality ?? 'medium',
      });
      await projectStore.setFieldValues(trx, w.code, values);
      const project = present(await projectStore.get(trx, w.code), `project ${w.code}`);
      await catalogEvent(trx, CATALOG_EVENTS.projectCreated, w.code, projectEvent(project));
      this.deps.log.info('project created', { code: w.code, by: p.username });
      return project;
    });
  }

  countLive() {
    return projectStore.countLive(this.deps.data.db);
  }

  getProject(p: Principal, code: string) {
    return this.visible(this.deps.data.db, p, code);
  }

  listProjects(p: Principal, q: Omit<ProjectQuery, 'scope'>) {
    return projectStore.list(this.deps.data.db, { ...q, scope: p.projects });
  }

  filterValues(p: Principal) {
    return projectStore.filterValues(this.deps.data.db, p.projects);
  }

  async updateProject(
    p: Principal,
    code: string,
    w: {
      code?: string;
      name?: string;
      description?: string;
      tags?: string[];
      criticality?: ProjectCriticality;
      field_values?: { field_id: number; value: string }[];
    },
  ) {
    return this.deps.data.transaction(async (trx) => {
      const project = await this.writable(trx, p, code);
      if (w.code !== undefined && w.code !== code) throw invalidField('code', 'is immutable');
      if (w.field_values) await this.deps.fields.checkFieldValues(trx, w.field_values);
      await projectStore.update(trx, code, {
        name: w.name ?? project.name,
        description: w.description ?? project.description,
        tags: w.tags ? [...new Set(w.tags)] : project.tags,
        criticality: w.criticality ?? project.criticality,
      });
      if (w.field_values) await projectStore.setFieldValues(trx, code, w.field_values);
      const updated = present(await projectStore.get(trx, code), `project ${code}`);
      await catalogEvent(trx, CATALOG_EVENTS.projectUpdated, code, {
        ...projectEvent(updated),
        fields: Object.keys(w),
      });
      return updated;
    });
  }

  async setDeleted(p: Principal, codes: string[], deleted: boolean): Promise<BulkStatus[]> {
    // A restored project counts again towards the license's limit.
    const max = deleted ? null : await this.deps.license.limit('projects');
    return this.deps.data.transaction(async (trx) => {
      const results: BulkStatus[] = [];
      for (const code of codes) {
        const project = canSeeProject(p, code) ? await projectStore.get(trx, code) : undefined;
        const full = project && !deleted && project.deletedAt ? await this.projectLimitReached(trx, max) : undefined;
        if (!project) results.push({ id: code, status: 'not_found' });
        else if (Boolean(project.deletedAt) === deleted) results.push({ id: code, status: 'unchanged' });
        else if (full) results.push({ id: code, status: 'conflict', message: full.message });
        else {
          await projectStore.setDeleted(trx, code, deleted);
          await catalogEvent(
            trx,
            deleted ? CATALOG_EVENTS.projectDeleted : CATALOG_EVENTS.projectRestored,
            code,
            projectEvent(project),
          );
          results.push({ id: code, status: deleted ? 'deleted' : 'restored' });
        }
      }
      return results;
    });
  }

  async setArchived(p: Principal, codes: string[], archived: boolean): Promise<BulkStatus[]> {
    return this.deps.data.transaction(async (trx) => {
      const results: BulkStatus[] = [];
      for (const code of codes) {
        const project = canSeeProject(p, code) ? await projectStore.get(trx, code) : undefined;
        if (!project) results.push({ id: code, status: 'not_found' });
        else if (project.deletedAt)
          results.push({ id: code, status: 'conflict', message: 'the project is deleted; restore it first' });
        else if (Boolean(project.archivedAt) === archived) results.push({ id: code, status: 'unchanged' });
        else {
          await projectStore.setArchived(trx, code, archived);
          await catalogEvent(trx, archived ? CATALOG_EVENTS.projectArchived : CATALOG_EVENTS.projectUnarchived, code, {
            ...projectEvent(project),
            archived,
          });
          results.push({ id: code, status: archived ? 'archived' : 'unarchived' });
        }
      }
      return results;
    });
  }

  // ---- internal callers (gRPC): services, no project scope

  projectTagsForService(afterCode: string, limit: number): Promise<{ code: string; tags: string[] }[]> {
    return projectStore.tagsAfter(this.deps.data.db, afterCode, Math.min(Math.max(limit, 1), 1000));
  }

  async projectForService(code: string): Promise<ProjectRecord> {
    const project = await projectStore.get(this.deps.data.db, code);
    if (!project || project.deletedAt) throw notFound(`Project ${code}`);
    return project;
  }
}
