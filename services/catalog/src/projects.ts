import { randomUUID } from 'node:crypto';
import {
  canSeeProject, conflict, enqueueEvents, forbidden, invalid, invalidField, isUuid, LicenseGate, LicenseLimitReached, Logger, notFound, Principal, Queryable,
  serializeAcrossReplicas, ServiceHost, Trx,
} from '@bulwark/platform';
import { CATALOG_EVENTS, TOPICS } from '@bulwark/contracts';
import { ChecksLookup, usedByMessage } from './checks-lookup';
import { fieldValueProblems, FieldType } from './domain/field-values';
import { layerType } from './domain/layer-types';
import { fieldStore } from './store/fields';
import { LayerRecord, layerStore } from './store/layers';
import { ProjectQuery, ProjectRecord, projectStore } from './store/projects';

export type BulkStatus = {
  id: string;
  status: 'deleted' | 'restored' | 'archived' | 'unarchived' | 'not_found' | 'conflict' | 'unchanged';
  message?: string;
};


/** A concurrent insert of the same unique key loses at the database: it answers the same 409 as the check before it. */
async function uniquely<T>(work: Promise<T>, onTaken: () => Error): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if ((err as { code?: string }).code === '23505') throw onTaken();
    throw err;
  }
}

const projectEvent = (p: ProjectRecord) => ({ code: p.code, name: p.name, tags: p.tags, archived: p.archivedAt !== null });
const layerEvent = (l: LayerRecord) => ({
  id: l.id, project_code: l.projectCode, name: l.name, layer_type_id: l.layerTypeId, is_template: l.isTemplate, template_id: l.templateId,
});

/**
 * Projects, their custom fields and their layers. A project outside the caller's scope does not
 * exist for it (404). An archived project is read-only (409), a deleted one is out of use until restored.
 */
export class Projects {
  constructor(private readonly host: ServiceHost, private readonly checks: ChecksLookup, private readonly license: LicenseGate, private readonly log: Logger) {}

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

  private get db() {
    return this.host.db;
  }

  private event(trx: Trx, type: string, key: string, payload: Record<string, unknown>) {
    return enqueueEvents(trx, [{ topic: TOPICS.catalog, type, key, payload }]);
  }

  /** The project as the caller may see it; 404 when it does not exist or lies outside the caller's scope. */
  async visible(db: Queryable, p: Principal, code: string): Promise<ProjectRecord> {
    const project = canSeeProject(p, code) ? await projectStore.get(db, code) : undefined;
    if (!project) throw notFound(`Project ${code}`);
    return project;
  }

  /** A project that can take changes: visible, live and not archived. */
  private async writable(db: Queryable, p: Principal, code: string): Promise<ProjectRecord> {
    const project = await this.visible(db, p, code);
    if (project.deletedAt) throw conflict(`Project ${code} is deleted; restore it first`);
    if (project.archivedAt) throw conflict(`Project ${code} is archived and read-only; unarchive it first`);
    return project;
  }

  // ---- custom fields

  listFields(q: { page: number; limit: number }) {
    return fieldStore.list(this.db, q);
  }

  async getField(id: number) {
    const field = await fieldStore.get(this.db, id);
    if (!field) throw notFound(`Field ${id}`);
    return field;
  }

  async createField(w: { name: string; type: FieldType; required?: boolean; description?: string }) {
    return this.host.transaction(async (trx) => {
      const taken = () => conflict(`Field ${w.name} already exists`, [{ field: 'name', problem: 'already exists' }]);
      if (await fieldStore.nameTaken(trx, w.name)) throw taken();
      const id = await uniquely(fieldStore.insert(trx, { name: w.name, type: w.type, required: w.required ?? false, description: w.description ?? '' }), taken);
      return (await fieldStore.get(trx, id))!;
    });
  }

  async updateField(id: number, w: { name?: string; required?: boolean; description?: string }) {
    return this.host.transaction(async (trx) => {
      const field = await fieldStore.get(trx, id);
      if (!field) throw notFound(`Field ${id}`);
      if (w.name && (await fieldStore.nameTaken(trx, w.name, id))) throw conflict(`Field ${w.name} already exists`, [{ field: 'name', problem: 'already exists' }]);
      await fieldStore.update(trx, id, { name: w.name ?? field.name, required: w.required ?? field.required, description: w.description ?? field.description });
      return (await fieldStore.get(trx, id))!;
    });
  }

  async deleteFields(ids: number[]): Promise<BulkStatus[]> {
    return this.host.transaction(async (trx) => {
      const results: BulkStatus[] = [];
      for (const id of ids) {
        if (!(await fieldStore.get(trx, id))) results.push({ id: String(id), status: 'not_found' });
        else {
          const holders = await fieldStore.delete(trx, id);
          results.push({ id: String(id), status: 'deleted', ...(holders > 0 ? { message: `removed its value from ${holders} project(s)` } : {}) });
        }
      }
      return results;
    });
  }

  private async checkFieldValues(db: Queryable, values: { field_id: number; value: string }[]): Promise<void> {
    const problems = fieldValueProblems(await fieldStore.all(db), values);
    if (problems.length > 0) throw invalid(`Invalid field_values: ${problems.map((p) => `${p.field} ${p.problem}`).join('; ')}`, problems);
  }

  // ---- projects

  async createProject(p: Principal, w: { code: string; name: string; description?: string; tags?: string[]; field_values?: { field_id: number; value: string }[] }) {
    if (p.projects !== null) throw forbidden('A user limited to some projects cannot create projects');
    const values = w.field_values ?? [];
    const max = await this.license.limit('projects');
    return this.host.transaction(async (trx) => {
      await this.checkFieldValues(trx, values);
      const taken = () => conflict(`Project ${w.code} already exists`, [{ field: 'code', problem: 'already exists (codes are never reused)' }]);
      if (await projectStore.codeTaken(trx, w.code)) throw taken();
      const full = await this.projectLimitReached(trx, max);
      if (full) throw full;
      await uniquely(projectStore.insert(trx, w.code, { name: w.name, description: w.description ?? '', tags: [...new Set(w.tags ?? [])] }), taken);
      await projectStore.setFieldValues(trx, w.code, values);
      const project = (await projectStore.get(trx, w.code))!;
      await this.event(trx, CATALOG_EVENTS.projectCreated, w.code, projectEvent(project));
      this.log.info('project created', { code: w.code, by: p.username });
      return project;
    });
  }

  countLive() {
    return projectStore.countLive(this.db);
  }

  getProject(p: Principal, code: string) {
    return this.visible(this.db, p, code);
  }

  listProjects(p: Principal, q: Omit<ProjectQuery, 'scope'>) {
    return projectStore.list(this.db, { ...q, scope: p.projects });
  }

  filterValues(p: Principal) {
    return projectStore.filterValues(this.db, p.projects);
  }

  async updateProject(p: Principal, code: string, w: { code?: string; name?: string; description?: string; tags?: string[]; field_values?: { field_id: number; value: string }[] }) {
    return this.host.transaction(async (trx) => {
      const project = await this.writable(trx, p, code);
      if (w.code !== undefined && w.code !== code) throw invalidField('code', 'is immutable');
      if (w.field_values) await this.checkFieldValues(trx, w.field_values);
      await projectStore.update(trx, code, {
        name: w.name ?? project.name,
        description: w.description ?? project.description,
        tags: w.tags ? [...new Set(w.tags)] : project.tags,
      });
      if (w.field_values) await projectStore.setFieldValues(trx, code, w.field_values);
      const updated = (await projectStore.get(trx, code))!;
      await this.event(trx, CATALOG_EVENTS.projectUpdated, code, { ...projectEvent(updated), fields: Object.keys(w) });
      return updated;
    });
  }

  async setDeleted(p: Principal, codes: string[], deleted: boolean): Promise<BulkStatus[]> {
    // A restored project counts again towards the license's limit.
    const max = deleted ? null : await this.license.limit('projects');
    return this.host.transaction(async (trx) => {
      const results: BulkStatus[] = [];
      for (const code of codes) {
        const project = canSeeProject(p, code) ? await projectStore.get(trx, code) : undefined;
        const full = project && !deleted && project.deletedAt ? await this.projectLimitReached(trx, max) : undefined;
        if (!project) results.push({ id: code, status: 'not_found' });
        else if (Boolean(project.deletedAt) === deleted) results.push({ id: code, status: 'unchanged' });
        else if (full) results.push({ id: code, status: 'conflict', message: full.message });
        else {
          await projectStore.setDeleted(trx, code, deleted);
          await this.event(trx, deleted ? CATALOG_EVENTS.projectDeleted : CATALOG_EVENTS.projectRestored, code, projectEvent(project));
          results.push({ id: code, status: deleted ? 'deleted' : 'restored' });
        }
      }
      return results;
    });
  }

  async setArchived(p: Principal, codes: string[], archived: boolean): Promise<BulkStatus[]> {
    return this.host.transaction(async (trx) => {
      const results: BulkStatus[] = [];
      for (const code of codes) {
        const project = canSeeProject(p, code) ? await projectStore.get(trx, code) : undefined;
        if (!project) results.push({ id: code, status: 'not_found' });
        else if (project.deletedAt) results.push({ id: code, status: 'conflict', message: 'the project is deleted; restore it first' });
        else if (Boolean(project.archivedAt) === archived) results.push({ id: code, status: 'unchanged' });
        else {
          await projectStore.setArchived(trx, code, archived);
          await this.event(trx, archived ? CATALOG_EVENTS.projectArchived : CATALOG_EVENTS.projectUnarchived, code, { ...projectEvent(project), archived });
          results.push({ id: code, status: archived ? 'archived' : 'unarchived' });
        }
      }
      return results;
    });
  }

  // ---- layers

  private checkLayerType(id: number): void {
    if (!layerType(id)) throw invalidField('layer_type_id', `unknown layer type ${id} (see GET /api/v1/layer-types)`);
  }

  async createLayer(p: Principal, w: { name: string; description?: string; project_code: string; layer_type_id: number; is_template?: boolean }) {
    this.checkLayerType(w.layer_type_id);
    return this.insertLayer(p, {
      projectCode: w.project_code, name: w.name, description: w.description ?? '', layerTypeId: w.layer_type_id, isTemplate: w.is_template ?? false, templateId: null,
    });
  }

  private async insertLayer(p: Principal, w: Omit<LayerRecord, 'id' | 'createdAt' | 'updatedAt'>) {
    return this.host.transaction(async (trx) => {
      await this.writable(trx, p, w.projectCode);
      const id = randomUUID();
      await layerStore.insert(trx, id, w);
      const layer = (await layerStore.get(trx, id))!;
      await this.event(trx, CATALOG_EVENTS.layerCreated, id, layerEvent(layer));
      return layer;
    });
  }

  /** The layer as the caller may see it: its project must be visible. */
  async visibleLayer(db: Queryable, p: Principal, id: string): Promise<LayerRecord> {
    const layer = isUuid(id) ? await layerStore.get(db, id) : undefined;
    if (!layer || !canSeeProject(p, layer.projectCode)) throw notFound(`Layer ${id}`);
    return layer;
  }

  getLayer(p: Principal, id: string) {
    return this.visibleLayer(this.db, p, id);
  }

  listLayers(p: Principal, q: { page: number; limit: number; projectCode?: string; isTemplate?: boolean; searchName?: string }) {
    return layerStore.list(this.db, { ...q, scope: p.projects });
  }

  async updateLayer(p: Principal, id: string, w: { name?: string; description?: string; layer_type_id?: number; is_template?: boolean }) {
    if (w.layer_type_id !== undefined) this.checkLayerType(w.layer_type_id);
    return this.host.transaction(async (trx) => {
      const layer = await this.visibleLayer(trx, p, id);
      await this.writable(trx, p, layer.projectCode);
      await layerStore.update(trx, id, {
        name: w.name ?? layer.name,
        description: w.description ?? layer.description,
        layerTypeId: w.layer_type_id ?? layer.layerTypeId,
        isTemplate: w.is_template ?? layer.isTemplate,
      });
      const updated = (await layerStore.get(trx, id))!;
      await this.event(trx, CATALOG_EVENTS.layerUpdated, id, layerEvent(updated));
      return updated;
    });
  }

  async instantiateLayer(p: Principal, templateId: string, w: { project_code: string; name?: string }) {
    const template = await this.visibleLayer(this.db, p, templateId);
    if (!template.isTemplate) throw conflict(`Layer ${templateId} is not a template (is_template is false)`);
    return this.insertLayer(p, {
      projectCode: w.project_code, name: w.name ?? template.name, description: template.description, layerTypeId: template.layerTypeId, isTemplate: false, templateId,
    });
  }

  async deleteLayers(p: Principal, ids: string[]): Promise<BulkStatus[]> {
    const known = ids.filter(isUuid);
    const inUse = known.length ? await this.checks.using({ layerIds: known }) : [];
    return this.host.transaction(async (trx) => {
      const results: BulkStatus[] = [];
      for (const id of ids) {
        const layer = isUuid(id) ? await layerStore.get(trx, id) : undefined;
        const project = layer && canSeeProject(p, layer.projectCode) ? await projectStore.get(trx, layer.projectCode) : undefined;
        const users = inUse.filter((c) => c.layerId === id);
        if (!layer || !project) results.push({ id, status: 'not_found' });
        else if (project.archivedAt) results.push({ id, status: 'conflict', message: `project ${project.code} is archived and read-only` });
        else if (users.length > 0) results.push({ id, status: 'conflict', message: usedByMessage(users) });
        else {
          await layerStore.delete(trx, id);
          await this.event(trx, CATALOG_EVENTS.layerDeleted, id, layerEvent(layer));
          results.push({ id, status: 'deleted' });
        }
      }
      return results;
    });
  }

  // ---- internal callers (gRPC): services, no project scope

  projectTagsForService(afterCode: string, limit: number): Promise<{ code: string; tags: string[] }[]> {
    return projectStore.tagsAfter(this.db, afterCode, Math.min(Math.max(limit, 1), 1000));
  }

  async projectForService(code: string): Promise<ProjectRecord> {
    const project = await projectStore.get(this.db, code);
    if (!project || project.deletedAt) throw notFound(`Project ${code}`);
    return project;
  }

  async layerForService(id: string): Promise<{ layer: LayerRecord; project: ProjectRecord }> {
    const layer = isUuid(id) ? await layerStore.get(this.db, id) : undefined;
    const project = layer ? await projectStore.get(this.db, layer.projectCode) : undefined;
    if (!layer || !project || project.deletedAt) throw notFound(`Layer ${id}`);
    return { layer, project };
  }
}
