import {
  canSeeProject,
  CatalogClient,
  FieldProblem,
  invalid,
  notFound,
  Principal,
  unlessNotFound,
} from '@bulwark/platform';
import type { catalogV1 } from '@bulwark/proto';

/**
 * What scanning asks the catalog, with its answers mapped to this API's errors: a layer the caller
 * may not see is reported as unknown, like a missing one (no leaking of other projects).
 */
export class CatalogGate {
  constructor(private readonly catalog: CatalogClient) {}

  /** The layer a body names: one missing or that the caller may not see is a 400 naming the field. */
  async layerFor(principal: Principal, layerId: string, field = 'layer_id'): Promise<catalogV1.Layer> {
    const layer = await this.catalog.getLayer({ id: layerId }).catch(unlessNotFound);
    if (!layer || !canSeeProject(principal, layer.projectCode))
      throw invalid(`Unknown ${field}`, [{ field, problem: 'is not a known layer' }]);
    return layer;
  }

  /** The layer a path addresses: one missing or that the caller may not see answers 404 alike. */
  async layerAt(principal: Principal, layerId: string): Promise<catalogV1.Layer> {
    const layer = await this.catalog.getLayer({ id: layerId }).catch(unlessNotFound);
    if (!layer || !canSeeProject(principal, layer.projectCode)) throw notFound(`Layer ${layerId}`);
    return layer;
  }

  /** Refuses checks whose tool or source may not be used in the project, naming the fields. */
  async assertUsable(projectCode: string, sourceId: string, toolId: string): Promise<void> {
    const res = await this.catalog.checkUsable({ projectCode, sourceId, toolId });
    if (!res.usable) {
      const details: FieldProblem[] = res.problems.map((p) => ({ field: p.field, problem: p.problem }));
      throw invalid(`The check cannot use these: ${details.map((d) => `${d.field} ${d.problem}`).join('; ')}`, details);
    }
  }

  project(code: string): Promise<catalogV1.Project> {
    return this.catalog.getProject({ code });
  }

  tool(id: string, withSecrets = false): Promise<catalogV1.Tool> {
    return this.catalog.getTool({ id, withSecrets });
  }

  source(id: string, withSecrets = false): Promise<catalogV1.Source> {
    return this.catalog.getSource({ id, withSecrets });
  }
}
