import { randomUUID } from 'node:crypto';
import { conflict, invalid, Principal, ServiceData, UploadedFile, present } from '@bulwark/platform';
import { parseReport, ReportParseError } from '@bulwark/findings';
import type { CatalogGate } from './catalog-client';
import { sbomStore } from './store/sboms';

const SBOM_FORMATS = ['cyclonedx-json', 'cyclonedx-xml'];

/** SBOMs of layers: the latest one of a layer is its dependency list. */
export class Sboms {
  constructor(
    private readonly data: ServiceData,
    private readonly catalog: CatalogGate,
  ) {}

  async upload(principal: Principal, layerId: string, body: UploadedFile, fileName: string | undefined) {
    const layer = await this.catalog.layerAt(principal, layerId);
    if (layer.projectArchived) throw conflict(`Project ${layer.projectCode} is archived`);
    if (body.size === 0)
      throw invalid('The request body is empty: send the CycloneDX SBOM as the body', [
        { field: 'body', problem: 'is empty' },
      ]);
    let parsed;
    try {
      parsed = parseReport(body.path, { name: fileName ?? 'sbom' });
    } catch (err) {
      if (err instanceof ReportParseError) throw invalid(err.message, [{ field: 'body', problem: err.reason }]);
      throw err;
    }
    if (!SBOM_FORMATS.includes(parsed.format)) {
      throw invalid(`Not a CycloneDX SBOM: the file reads as ${parsed.format}`, [
        { field: 'body', problem: `is a ${parsed.format} report, not a CycloneDX SBOM` },
      ]);
    }
    const project = await this.catalog.project(layer.projectCode);
    const id = randomUUID();
    await this.data.transaction((trx) =>
      sbomStore.replaceForLayer(
        trx,
        {
          id,
          layerId,
          projectCode: layer.projectCode,
          projectName: project.name,
          format: parsed.format,
          fileName: fileName ?? 'sbom',
          componentsCount: parsed.components.length,
          vulnerabilitiesCount: parsed.findings.length,
          uploadedBy: principal.username,
        },
        parsed.components,
      ),
    );
    return present(await sbomStore.get(this.data.db, id), `sbom ${id}`);
  }

  list(principal: Principal, q: Omit<Parameters<typeof sbomStore.list>[1], 'projects'>) {
    return sbomStore.list(this.data.db, { ...q, projects: principal.projects });
  }

  /** The dependency lists of the layers' latest SBOMs in the caller's projects. */
  dependencies(principal: Principal, q: Omit<Parameters<typeof sbomStore.dependencies>[1], 'projects'>) {
    return sbomStore.dependencies(this.data.db, { ...q, projects: principal.projects });
  }

  dependencyFilters(principal: Principal, layerIds: string[] | undefined) {
    return sbomStore.filterValues(this.data.db, { layerIds, projects: principal.projects });
  }
}
