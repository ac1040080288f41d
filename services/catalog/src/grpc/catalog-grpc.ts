import type { ServiceImpl } from '@bulwark/platform';
import { toolType, ToolSettingsJson } from '@bulwark/contracts';
import { catalogV1 } from '@bulwark/proto';
import type { Layers } from '../layers';
import type { Projects } from '../projects';
import type { ResourceAccess } from '../resource-access';
import type { SourceDecorations } from '../source-decorations';
import type { Sources } from '../sources';
import type { Tools } from '../tools';

/**
 * The catalog for other services. Callers are services (internal token), not users: no project scope
 * applies here, and secrets are opened only when asked for.
 */
export function catalogGrpc(
  projects: Projects,
  layers: Layers,
  sources: Sources,
  decorations: SourceDecorations,
  tools: Tools,
  access: ResourceAccess,
): ServiceImpl<typeof catalogV1.CatalogServiceService> {
  return {
    async countProjects() {
      return { count: await projects.countLive() };
    },
    async getProject(req) {
      const p = await projects.projectForService(req.code);
      return { code: p.code, name: p.name, archived: p.archivedAt !== null, tags: p.tags, criticality: p.criticality };
    },
    async getLayer(req) {
      const { layer, project } = await layers.layerForService(req.id);
      return {
        id: layer.id,
        name: layer.name,
        projectCode: layer.projectCode,
        layerTypeId: layer.layerTypeId,
        isTemplate: layer.isTemplate,
        projectArchived: project.archivedAt !== null,
      };
    },
    async getSource(req) {
      const { source, connection } = await sources.sourceForService(req.id, req.withSecrets);
      return {
        id: source.id,
        name: source.name,
        sourceTypeId: source.sourceTypeId,
        url: source.url,
        branchName: source.branchName ?? '',
        authMethod: source.authMethod,
        login: source.login ?? '',
        password: connection?.password ?? '',
        sshPrivateKey: connection?.sshPrivateKey ?? '',
        accessType: source.access.accessType,
        projectCodes: source.access.projectCodes,
      };
    },
    async getSourceDecoration(req) {
      return decorations.forService(req.sourceId);
    },
    async getTool(req) {
      const { tool, apiToken } = await tools.toolForService(req.id, req.withSecrets);
      const type = toolType(tool.typeId);
      return {
        id: tool.id,
        name: tool.name,
        typeId: tool.typeId,
        typeName: type?.name ?? '',
        kind: type?.kind ?? '',
        version: tool.version,
        settingsJson: JSON.stringify(tool.settings satisfies ToolSettingsJson),
        apiToken: apiToken ?? '',
        accessType: tool.access.accessType,
        projectCodes: tool.access.projectCodes,
      };
    },
    async listProjectTags(req) {
      return { projects: await projects.projectTagsForService(req.afterCode, req.limit) };
    },
    async checkUsable(req) {
      const problems = await access.checkUsable(req.projectCode, req.sourceId, req.toolId);
      return { usable: problems.length === 0, problems };
    },
  };
}
