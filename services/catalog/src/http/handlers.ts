import { HandlersOf, listPage, requirePrincipal } from '@bulwark/platform';
import { catalogRoutes, SOURCE_TYPES, TOOL_TYPES, toolSettingSpecs } from '@bulwark/contracts';
import { LAYER_TYPES } from '../domain/layer-types';
import type { CustomFields } from '../custom-fields';
import type { Layers } from '../layers';
import type { Projects } from '../projects';
import type { ResourceAccess } from '../resource-access';
import type { SourceDecorations } from '../source-decorations';
import type { Sources } from '../sources';
import type { Tools } from '../tools';
import { fieldView, layerView, projectView, sourceDecorationView, sourceTypeView, sourceView, toolView } from './views';

/** A fixed registry as one list page. */
const registryPage = <T, V>(q: { page: number; limit: number }, all: T[], view: (t: T) => V) =>
  listPage(q, { items: all.slice((q.page - 1) * q.limit, q.page * q.limit), total: all.length }, view);

/** The catalog's use cases, as the composition root wires them. */
export interface CatalogUseCases {
  fields: CustomFields;
  projects: Projects;
  layers: Layers;
  sources: Sources;
  decorations: SourceDecorations;
  tools: Tools;
  access: ResourceAccess;
}

/** HTTP handlers, keyed by the route table's operation ids: they translate, the use cases decide. */
export function catalogHandlers({
  fields,
  projects,
  layers,
  sources,
  decorations,
  tools,
  access,
}: CatalogUseCases): HandlersOf<typeof catalogRoutes> {
  return {
    // sources
    listSourceTypes: async ({ query: q }) => registryPage(q, SOURCE_TYPES, sourceTypeView),
    createSource: async (input) => sourceView(await sources.createSource(requirePrincipal(input), input.body)),
    listSources: async (input) => {
      const q = input.query;
      return listPage(
        q,
        await sources.listSources(requirePrincipal(input), {
          page: q.page,
          limit: q.limit,
          searchName: q.search.name,
          searchSource: q.search.source,
        }),
        sourceView,
      );
    },
    getSource: async (input) => sourceView(await sources.getSource(requirePrincipal(input), input.params.source_id)),
    updateSource: async (input) =>
      sourceView(await sources.updateSource(requirePrincipal(input), input.params.source_id, input.body)),
    deleteSources: async (input) => ({ results: await sources.deleteSources(requirePrincipal(input), input.body.ids) }),
    getSourceDecoration: async (input) =>
      sourceDecorationView(await decorations.get(requirePrincipal(input), input.params.source_id)),
    setSourceDecoration: async (input) =>
      sourceDecorationView(await decorations.set(requirePrincipal(input), input.params.source_id, input.body)),
    testSourceConnection: async (input) =>
      sources.testSource(requirePrincipal(input), input.params.type_id, input.body),

    // tools
    listToolTypes: async ({ query: q }) =>
      registryPage(q, TOOL_TYPES, (t) => ({
        id: t.id,
        name: t.name,
        version: t.version,
        kind: t.kind,
        category: t.category,
        result_format: t.resultFormat,
        description: t.description,
        settings: toolSettingSpecs(t),
      })),
    createTool: async (input) => toolView(await tools.createTool(requirePrincipal(input), input.body)),
    listTools: async (input) => {
      const q = input.query;
      return listPage(
        q,
        await tools.listTools(requirePrincipal(input), {
          page: q.page,
          limit: q.limit,
          version: q.filter.version,
          searchName: q.search.name,
          searchType: q.search.type,
          searchUrl: q.search.url,
          searchVersion: q.search.version,
        }),
        toolView,
      );
    },
    getTool: async (input) => toolView(await tools.getTool(requirePrincipal(input), input.params.tool_id)),
    updateTool: async (input) =>
      toolView(await tools.updateTool(requirePrincipal(input), input.params.tool_id, input.body)),
    deleteTools: async (input) => ({ results: await tools.deleteTools(requirePrincipal(input), input.body.ids) }),
    cleanupTool: async (input) => tools.cleanupTool(requirePrincipal(input), input.params.tool_id),

    // custom fields
    listFields: async ({ query: q }) => listPage(q, await fields.listFields(q), fieldView),
    createField: async ({ body }) => fieldView(await fields.createField(body)),
    getField: async ({ params }) => fieldView(await fields.getField(params.field_id)),
    updateField: async ({ params, body }) => fieldView(await fields.updateField(params.field_id, body)),
    deleteFields: async ({ body }) => ({ results: await fields.deleteFields(body.ids) }),

    // projects
    createProject: async (input) => projectView(await projects.createProject(requirePrincipal(input), input.body)),
    listProjects: async (input) => {
      const q = input.query;
      return listPage(
        q,
        await projects.listProjects(requirePrincipal(input), {
          page: q.page,
          limit: q.limit,
          deletedOnly: q.filter.deleted_only,
          withDeleted: q.filter.with_deleted,
          archived: q.filter.archived,
          searchCode: q.search.code,
          searchName: q.search.name,
          searchTag: q.search.tag,
        }),
        projectView,
      );
    },
    projectFilters: async (input) => projects.filterValues(requirePrincipal(input)),
    getProject: async (input) =>
      projectView(await projects.getProject(requirePrincipal(input), input.params.project_code)),
    updateProject: async (input) =>
      projectView(await projects.updateProject(requirePrincipal(input), input.params.project_code, input.body)),
    deleteProjects: async (input) => ({
      results: await projects.setDeleted(requirePrincipal(input), input.body.codes, true),
    }),
    restoreProjects: async (input) => ({
      results: await projects.setDeleted(requirePrincipal(input), input.body.codes, false),
    }),
    archiveProjects: async (input) => ({
      results: await projects.setArchived(requirePrincipal(input), input.body.codes, true),
    }),
    unarchiveProjects: async (input) => ({
      results: await projects.setArchived(requirePrincipal(input), input.body.codes, false),
    }),
    listResources: async (input) => {
      const r = await access.usable(requirePrincipal(input), input.query.filter.project_access);
      return { sources: r.sources.map(sourceView), tools: r.tools.map(toolView) };
    },

    // layers
    listLayerTypes: async ({ query: q }) => registryPage(q, LAYER_TYPES, (t) => t),
    createLayer: async (input) => layerView(await layers.createLayer(requirePrincipal(input), input.body)),
    listLayers: async (input) => {
      const q = input.query;
      return listPage(
        q,
        await layers.listLayers(requirePrincipal(input), {
          page: q.page,
          limit: q.limit,
          projectCode: q.filter.project_code,
          isTemplate: q.filter.is_template,
          searchName: q.search.name,
        }),
        layerView,
      );
    },
    getLayer: async (input) => layerView(await layers.getLayer(requirePrincipal(input), input.params.layer_id)),
    updateLayer: async (input) =>
      layerView(await layers.updateLayer(requirePrincipal(input), input.params.layer_id, input.body)),
    deleteLayers: async (input) => ({ results: await layers.deleteLayers(requirePrincipal(input), input.body.ids) }),
    instantiateLayer: async (input) =>
      layerView(await layers.instantiateLayer(requirePrincipal(input), input.params.layer_id, input.body)),
  };
}
