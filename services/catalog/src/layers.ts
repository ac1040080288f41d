import { randomUUID } from 'node:crypto';
import {
  canSeeProject,
  conflict,
  invalidField,
  isUuid,
  notFound,
  Principal,
  Queryable,
  ServiceData,
  present,
} from '@bulwark/platform';
import { CATALOG_EVENTS } from '@bulwark/contracts';
import { BulkStatus, catalogEvent } from './catalog-writes';
import { ChecksLookup, usedByMessage } from './checks-lookup';
import { layerType } from './domain/layer-types';
import type { Projects } from './projects';
import { LayerRecord, layerStore } from './store/layers';
import { ProjectRecord, projectStore } from './store/projects';

const layerEvent = (l: LayerRecord) => ({
  id: l.id,
  project_code: l.projectCode,
  name: l.name,
  layer_type_id: l.layerTypeId,
  is_template: l.isTemplate,
  template_id: l.templateId,
});

/**
 * Layers of a project, and templates instantiated into other projects. A layer is visible with its
 * project and changes only while its project is writable; one that checks use cannot be deleted.
 */
export class Layers {
  constructor(
    private readonly data: ServiceData,
    private readonly projects: Projects,
    private readonly checks: ChecksLookup,
  ) {}

  private checkLayerType(id: number): void {
    if (!layerType(id)) throw invalidField('layer_type_id', `unknown layer type ${id} (see GET /api/v1/layer-types)`);
  }

  async createLayer(
    p: Principal,
    w: { name: string; description?: string; project_code: string; layer_type_id: number; is_template?: boolean },
  ) {
    this.checkLayerType(w.layer_type_id);
    return this.insertLayer(p, {
      projectCode: w.project_code,
      name: w.name,
      description: w.description ?? '',
      layerTypeId: w.layer_type_id,
      isTemplate: w.is_template ?? false,
      templateId: null,
    });
  }

  private async insertLayer(p: Principal, w: Omit<LayerRecord, 'id' | 'createdAt' | 'updatedAt'>) {
    return this.data.transaction(async (trx) => {
      await this.projects.writable(trx, p, w.projectCode);
      const id = randomUUID();
      await layerStore.insert(trx, id, w);
      const layer = present(await layerStore.get(trx, id), `layer ${id}`);
      await catalogEvent(trx, CATALOG_EVENTS.layerCreated, id, layerEvent(layer));
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
    return this.visibleLayer(this.data.db, p, id);
  }

  listLayers(
    p: Principal,
    q: { page: number; limit: number; projectCode?: string; isTemplate?: boolean; searchName?: string },
  ) {
    return layerStore.list(this.data.db, { ...q, scope: p.projects });
  }

  async updateLayer(
    p: Principal,
    id: string,
    w: { name?: string; description?: string; layer_type_id?: number; is_template?: boolean },
  ) {
    if (w.layer_type_id !== undefined) this.checkLayerType(w.layer_type_id);
    return this.data.transaction(async (trx) => {
      const layer = await this.visibleLayer(trx, p, id);
      await this.projects.writable(trx, p, layer.projectCode);
      await layerStore.update(trx, id, {
        name: w.name ?? layer.name,
        description: w.description ?? layer.description,
        layerTypeId: w.layer_type_id ?? layer.layerTypeId,
        isTemplate: w.is_template ?? layer.isTemplate,
      });
      const updated = present(await layerStore.get(trx, id), `layer ${id}`);
      await catalogEvent(trx, CATALOG_EVENTS.layerUpdated, id, layerEvent(updated));
      return updated;
    });
  }

  async instantiateLayer(p: Principal, templateId: string, w: { project_code: string; name?: string }) {
    const template = await this.visibleLayer(this.data.db, p, templateId);
    if (!template.isTemplate) throw conflict(`Layer ${templateId} is not a template (is_template is false)`);
    return this.insertLayer(p, {
      projectCode: w.project_code,
      name: w.name ?? template.name,
      description: template.description,
      layerTypeId: template.layerTypeId,
      isTemplate: false,
      templateId,
    });
  }

  async deleteLayers(p: Principal, ids: string[]): Promise<BulkStatus[]> {
    const known = ids.filter(isUuid);
    const inUse = known.length ? await this.checks.using({ layerIds: known }) : [];
    return this.data.transaction(async (trx) => {
      const results: BulkStatus[] = [];
      for (const id of ids) {
        const layer = isUuid(id) ? await layerStore.get(trx, id) : undefined;
        const project =
          layer && canSeeProject(p, layer.projectCode) ? await projectStore.get(trx, layer.projectCode) : undefined;
        const users = inUse.filter((c) => c.layerId === id);
        if (!layer || !project) results.push({ id, status: 'not_found' });
        else if (project.archivedAt)
          results.push({ id, status: 'conflict', message: `project ${project.code} is archived and read-only` });
        else if (users.length > 0) results.push({ id, status: 'conflict', message: usedByMessage(users) });
        else {
          await layerStore.delete(trx, id);
          await catalogEvent(trx, CATALOG_EVENTS.layerDeleted, id, layerEvent(layer));
          results.push({ id, status: 'deleted' });
        }
      }
      return results;
    });
  }

  // ---- internal callers (gRPC): services, no project scope

  async layerForService(id: string): Promise<{ layer: LayerRecord; project: ProjectRecord }> {
    const layer = isUuid(id) ? await layerStore.get(this.data.db, id) : undefined;
    const project = layer ? await projectStore.get(this.data.db, layer.projectCode) : undefined;
    if (!layer || !project || project.deletedAt) throw notFound(`Layer ${id}`);
    return { layer, project };
  }
}
