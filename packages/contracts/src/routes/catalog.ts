import type { RouteSpec } from '@bulwark/platform';
import { z } from '../zod';
import {
  bracketQuery,
  bulkResult,
  idsBody,
  int4,
  isoDateTime,
  listOf,
  pageQuery,
  queryBool,
  queryInt4,
  perm,
} from '../common';

const service = 'catalog';

const SCOPE_NOTE =
  'A caller whose roles are limited to some projects gets 404 for anything outside them, as if it did not exist.';

// ---- shared fields

export const PROJECT_CODE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
export const projectCode = z
  .string()
  .regex(PROJECT_CODE, 'must be 1-64 letters, digits, "_", "." or "-", starting with a letter or digit')
  .openapi({ description: 'Unique, stable, URL-safe project code', example: 'web-shop' });

const name = z.string().trim().min(1).max(255);
const description = z.string().max(4000);

export const ACCESS_TYPES = ['global', 'project'] as const;
const accessFields = {
  access_type: z.enum(ACCESS_TYPES).optional().openapi({
    description:
      'Release 1.5 access type: "global" (every project, the default) or "project" (only the projects in project_codes)',
  }),
  project_codes: z.array(projectCode).max(1000).optional().openapi({
    description: 'Required and non-empty when access_type is "project"; must be empty or absent when it is "global"',
  }),
};
const accessView = { access_type: z.enum(ACCESS_TYPES), project_codes: z.array(z.string()) };

const codesBody = z
  .object({ codes: z.array(z.string().min(1).max(64)).min(1).max(1000) })
  .strict()
  .openapi('CodesBody', { description: 'Bulk operation on projects: their codes' });

const idParam = (key: string) => z.object({ [key]: z.string().min(1).max(128) });

// ---- sources

export const SOURCE_AUTH_METHODS = ['Login/Password', 'Anonymous', 'SSH key'] as const;

const branchName = z
  .string()
  .min(1)
  .max(255)
  .regex(
    /^(?!-)[A-Za-z0-9._\/-]+$/,
    'must be a branch name (letters, digits, "_", ".", "/", "-"; not starting with "-")',
  );

export const sourceSettings = z
  .object({
    url: z
      .string()
      .trim()
      .min(1)
      .max(2048)
      .openapi({ description: 'http(s):// for Git over HTTP(S); ssh://… or user@host:path for Git over SSH' }),
    branch_name: branchName
      .optional()
      .openapi({ description: 'Branch to scan; the repository\u2019s default branch when absent' }),
    auth_method: z
      .enum(SOURCE_AUTH_METHODS)
      .optional()
      .openapi({ description: 'Login/Password or Anonymous (HTTP), SSH key (SSH)' }),
    login: z.string().max(255).optional(),
    password: z
      .string()
      .max(4096)
      .optional()
      .openapi({ description: 'Stored encrypted, never returned (see password_set)' }),
    ssh_private_key: z
      .string()
      .max(16384)
      .optional()
      .openapi({ description: 'OpenSSH private key; stored encrypted, never returned' }),
  })
  .strict()
  .openapi('SourceSettings');

export const sourceCreateBody = z
  .object({
    name,
    description: description.optional(),
    source_type_id: int4(1),
    settings: sourceSettings,
    ...accessFields,
  })
  .strict()
  .openapi('SourceCreate');

export const sourceUpdateBody = z
  .object({
    name: name.optional(),
    description: description.optional(),
    source_type_id: int4(1).optional(),
    settings: sourceSettings
      .partial()
      .optional()
      .openapi({ description: 'Changed settings only; a secret left out keeps the stored one' }),
    ...accessFields,
  })
  .strict()
  .openapi('SourceUpdate');

export const sourceView = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    source_type_id: z.number().int(),
    source_type_name: z.string(),
    settings: z.object({
      url: z.string(),
      branch_name: z.string().nullable(),
      auth_method: z.string(),
      login: z.string().nullable(),
      password_set: z.boolean(),
      ssh_private_key_set: z.boolean(),
    }),
    ...accessView,
    created_at: isoDateTime,
    updated_at: isoDateTime,
  })
  .openapi('Source');

export const sourceTestBody = z
  .object({
    settings: sourceSettings,
    source_id: z
      .string()
      .max(128)
      .optional()
      .openapi({ description: 'A stored source whose secrets fill in those left out of settings' }),
  })
  .strict()
  .openapi('SourceTest');

export const sourceTestResult = z
  .object({
    ok: z.boolean(),
    message: z.string(),
    default_branch: z.string().optional(),
    branches: z.array(z.string()).optional(),
  })
  .openapi('SourceTestResult');

const settingDescription = z.object({
  name: z.string(),
  required: z.boolean(),
  secret: z.boolean(),
  description: z.string(),
});

export const sourceTypeView = z
  .object({
    id: z.number().int(),
    name: z.string(),
    description: z.string(),
    auth_methods: z.array(z.string()),
    settings: z.array(settingDescription),
  })
  .openapi('SourceType');

// ---- tools

export const toolCreateBody = z
  .object({
    name: name.optional().openapi({ description: 'Defaults to the tool type\u2019s name and version' }),
    description: description.optional(),
    type_id: int4(1),
    version: z
      .string()
      .trim()
      .min(1)
      .max(64)
      .optional()
      .openapi({ description: 'Version of this integration; defaults to the type\u2019s version' }),
    settings: z
      .record(z.string(), z.unknown())
      .openapi({ description: 'Validated per tool type (GET /api/v1/tool-types)' }),
    ...accessFields,
  })
  .strict()
  .openapi('ToolCreate');

export const toolUpdateBody = z
  .object({
    name: name.optional(),
    description: description.optional(),
    version: z.string().trim().min(1).max(64).optional(),
    settings: z
      .record(z.string(), z.unknown())
      .optional()
      .openapi({ description: 'Replaces the settings; an api_token left out keeps the stored one' }),
    ...accessFields,
  })
  .strict()
  .openapi('ToolUpdate');

export const toolView = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    type_id: z.number().int(),
    type_name: z.string(),
    kind: z.enum(['cli', 'server', 'manual']),
    version: z.string(),
    result_format: z.string(),
    settings: z
      .record(z.string(), z.unknown())
      .openapi({ description: 'Without secrets; api_token_set says whether a token is stored' }),
    ...accessView,
    created_at: isoDateTime,
    updated_at: isoDateTime,
  })
  .openapi('Tool');

export const toolTypeView = z
  .object({
    id: z.number().int(),
    name: z.string(),
    version: z.string(),
    kind: z.enum(['cli', 'server', 'manual']),
    category: z.string(),
    result_format: z.string(),
    description: z.string(),
    settings: z.array(settingDescription.extend({ ignored: z.boolean() })),
  })
  .openapi('ToolType');

export const toolCleanupResult = z
  .object({
    id: z.string(),
    removed: z.object({ files: z.number().int(), bytes: z.number().int() }),
    message: z.string(),
  })
  .openapi('ToolCleanup');

// ---- custom fields and projects

export const FIELD_TYPES = ['text', 'datetime', 'uuid', 'url'] as const;

export const fieldCreateBody = z
  .object({ name, type: z.enum(FIELD_TYPES), required: z.boolean().optional(), description: description.optional() })
  .strict()
  .openapi('FieldCreate');

export const fieldUpdateBody = z
  .object({ name: name.optional(), required: z.boolean().optional(), description: description.optional() })
  .strict()
  .openapi('FieldUpdate', { description: 'The type of a field cannot change' });

export const fieldView = z
  .object({
    id: z.number().int(),
    name: z.string(),
    type: z.enum(FIELD_TYPES),
    required: z.boolean(),
    description: z.string(),
    created_at: isoDateTime,
    updated_at: isoDateTime,
  })
  .openapi('Field');

const fieldValue = z.object({ field_id: int4(1), value: z.string().max(4000) }).strict();
const tags = z.array(z.string().trim().min(1).max(64)).max(100);

export const projectCreateBody = z
  .object({
    code: projectCode,
    name,
    description: description.optional(),
    tags: tags.optional(),
    field_values: z
      .array(fieldValue)
      .max(200)
      .optional()
      .openapi({ description: 'Values of custom fields (GET /api/v1/fields), checked against each field\u2019s type' }),
  })
  .strict()
  .openapi('ProjectCreate');

export const projectUpdateBody = z
  .object({
    code: projectCode.optional().openapi({ description: 'Immutable: accepted only when equal to the path code' }),
    name: name.optional(),
    description: description.optional(),
    tags: tags.optional(),
    field_values: z.array(fieldValue).max(200).optional().openapi({ description: 'Replaces every field value' }),
  })
  .strict()
  .openapi('ProjectUpdate');

export const projectView = z
  .object({
    id: z.string().openapi({ description: 'The project code' }),
    code: z.string(),
    name: z.string(),
    description: z.string(),
    tags: z.array(z.string()),
    field_values: z.array(z.object({ field_id: z.number().int(), value: z.string() })),
    archived: z.boolean(),
    archived_at: isoDateTime.nullable(),
    created_at: isoDateTime,
    updated_at: isoDateTime,
    deleted_at: isoDateTime.nullable(),
  })
  .openapi('Project');

// ---- layers

export const layerCreateBody = z
  .object({
    name,
    description: description.optional(),
    project_code: projectCode,
    layer_type_id: int4(1),
    is_template: z.boolean().optional(),
  })
  .strict()
  .openapi('LayerCreate');

export const layerUpdateBody = z
  .object({
    name: name.optional(),
    description: description.optional(),
    layer_type_id: int4(1).optional(),
    is_template: z.boolean().optional(),
  })
  .strict()
  .openapi('LayerUpdate', { description: 'A layer stays in its project' });

export const layerInstantiateBody = z
  .object({
    project_code: projectCode,
    name: name.optional().openapi({ description: 'Defaults to the template\u2019s name' }),
  })
  .strict()
  .openapi('LayerInstantiate');

export const layerView = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    project_code: z.string(),
    layer_type_id: z.number().int(),
    layer_type_name: z.string(),
    is_template: z.boolean(),
    template_id: z.string().nullable().openapi({ description: 'The template layer this one was instantiated from' }),
    created_at: isoDateTime,
    updated_at: isoDateTime,
  })
  .openapi('Layer');

const search = z.string().max(255).optional();

export const catalogRoutes = [
  // sources
  {
    operationId: 'listSourceTypes',
    method: 'get',
    path: '/api/v1/source-types',
    service,
    tag: 'Sources',
    access: perm('catalog.sources', 'r'),
    summary: 'Source types: integer id, name, authentication methods and the settings each needs',
    request: { query: z.object(pageQuery).strict() },
    response: listOf(sourceTypeView, 'SourceTypeList'),
  },
  {
    operationId: 'createSource',
    method: 'post',
    path: '/api/v1/source',
    service,
    tag: 'Sources',
    access: perm('catalog.sources', 'w'),
    summary: 'Register a scan source; password and SSH key are stored encrypted and never returned',
    description: `A caller limited to some projects creates only access_type "project" sources within them. ${SCOPE_NOTE}`,
    request: { body: sourceCreateBody },
    response: sourceView,
  },
  {
    operationId: 'listSources',
    method: 'get',
    path: '/api/v1/sources',
    service,
    tag: 'Sources',
    access: perm('catalog.sources', 'r'),
    summary: 'List sources (global ones, and project ones of the caller\u2019s projects)',
    request: {
      query: bracketQuery(
        z
          .object({
            ...pageQuery,
            'search[name]': search,
            'search[source]': search.openapi({ description: 'Part of the URL' }),
          })
          .strict(),
      ),
    },
    response: listOf(sourceView, 'SourceList'),
  },
  {
    operationId: 'getSource',
    method: 'get',
    path: '/api/v1/source/{source_id}',
    service,
    tag: 'Sources',
    access: perm('catalog.sources', 'r'),
    summary: 'Get a source, without secrets',
    description: SCOPE_NOTE,
    request: { params: idParam('source_id') },
    response: sourceView,
  },
  {
    operationId: 'updateSource',
    method: 'put',
    path: '/api/v1/source/{source_id}',
    service,
    tag: 'Sources',
    access: perm('catalog.sources', 'w'),
    summary: 'Update a source; a secret left out keeps the stored one, switching to Anonymous drops login and password',
    description: `Only a caller with every project changes a global source. ${SCOPE_NOTE}`,
    request: { params: idParam('source_id'), body: sourceUpdateBody },
    response: sourceView,
  },
  {
    operationId: 'deleteSources',
    method: 'delete',
    path: '/api/v1/sources',
    service,
    tag: 'Sources',
    access: perm('catalog.sources', 'd'),
    summary: 'Delete sources by id; a source used by a check is refused (conflict naming the checks)',
    request: { body: idsBody },
    response: bulkResult,
  },
  {
    operationId: 'testSourceConnection',
    method: 'post',
    path: '/api/v1/sources-type/{type_id}/test',
    service,
    tag: 'Sources',
    access: perm('catalog.sources', 'x'),
    summary: 'Test a connection: contacts the repository (git ls-remote) with a time limit',
    description:
      'Answers 200 with ok false and a message for a refused authentication, an unknown branch, an unreachable host or a time-out, and a URL that is not a Git repository. A host not reached (an address the outbound policy refuses, an unknown name, a closed or filtered port) always answers "Host unreachable: could not connect to <host>". Only http(s) and ssh URLs are accepted (400 otherwise).',
    request: { params: z.object({ type_id: queryInt4(1) }), body: sourceTestBody },
    response: sourceTestResult,
  },
  {
    operationId: 'deleteSourceRemoved',
    method: 'delete',
    path: '/api/v1/source/{source_id}',
    service,
    tag: 'Sources',
    access: perm('catalog.sources', 'd'),
    summary: 'Removed in release 1.5',
    gone: 'Removed in release 1.5: use DELETE /api/v1/sources with { "ids": [...] }',
  },
  {
    operationId: 'getSourceSecureRemoved',
    method: 'get',
    path: '/api/v1/source/{source_id}/secure',
    service,
    tag: 'Sources',
    access: perm('catalog.sources', 'r'),
    summary: 'Removed in release 1.5',
    gone: 'Removed in release 1.5: secrets are never returned',
  },
  // tools
  {
    operationId: 'listToolTypes',
    method: 'get',
    path: '/api/v1/tool-types',
    service,
    tag: 'Tools',
    access: perm('catalog.tools', 'r'),
    summary: 'Tool types: integer id, name, version, kind (cli, server, manual), settings and result format',
    request: { query: z.object(pageQuery).strict() },
    response: listOf(toolTypeView, 'ToolTypeList'),
  },
  {
    operationId: 'createTool',
    method: 'post',
    path: '/api/v1/tool',
    service,
    tag: 'Tools',
    access: perm('catalog.tools', 'w'),
    summary: 'Register a security tool; settings are checked against its type',
    description: `api_token is required for server tools; url, auth_method and api_token are accepted and dropped for cli and manual tools. The token is stored encrypted and never returned. ${SCOPE_NOTE}`,
    request: { body: toolCreateBody },
    response: toolView,
  },
  {
    operationId: 'listTools',
    method: 'get',
    path: '/api/v1/tools',
    service,
    tag: 'Tools',
    access: perm('catalog.tools', 'r'),
    summary: 'List tools (global ones, and project ones of the caller\u2019s projects)',
    request: {
      query: bracketQuery(
        z
          .object({
            ...pageQuery,
            'filter[version]': z.string().max(64).optional().openapi({ description: 'Exact version' }),
            'search[name]': search,
            'search[type]': search.openapi({ description: 'Part of the tool type name' }),
            'search[url]': search,
            'search[version]': search,
          })
          .strict(),
      ),
    },
    response: listOf(toolView, 'ToolList'),
  },
  {
    operationId: 'getTool',
    method: 'get',
    path: '/api/v1/tool/{tool_id}',
    service,
    tag: 'Tools',
    access: perm('catalog.tools', 'r'),
    summary: 'Get a tool, without secrets',
    description: SCOPE_NOTE,
    request: { params: idParam('tool_id') },
    response: toolView,
  },
  {
    operationId: 'updateTool',
    method: 'put',
    path: '/api/v1/tool/{tool_id}',
    service,
    tag: 'Tools',
    access: perm('catalog.tools', 'w'),
    summary: 'Update a tool; an api_token left out keeps the stored one',
    description: `Only a caller with every project changes a global tool. ${SCOPE_NOTE}`,
    request: { params: idParam('tool_id'), body: toolUpdateBody },
    response: toolView,
  },
  {
    operationId: 'deleteTools',
    method: 'delete',
    path: '/api/v1/tools',
    service,
    tag: 'Tools',
    access: perm('catalog.tools', 'd'),
    summary: 'Delete tools by id; a tool used by a check is refused (conflict naming the checks)',
    request: { body: idsBody },
    response: bulkResult,
  },
  {
    operationId: 'cleanupTool',
    method: 'post',
    path: '/api/v1/tool/{tool_id}/cleanup',
    service,
    tag: 'Tools',
    access: perm('catalog.tools', 'x'),
    summary:
      'Drop the tool\u2019s cached workspaces and data; answers what was removed here and asks the scanners to do the same',
    request: { params: idParam('tool_id') },
    response: toolCleanupResult,
  },
  {
    operationId: 'getToolSecureRemoved',
    method: 'get',
    path: '/api/v1/tool/{tool_id}/secure',
    service,
    tag: 'Tools',
    access: perm('catalog.tools', 'r'),
    summary: 'Removed in release 1.5',
    gone: 'Removed in release 1.5: secrets are never returned',
  },
  // custom fields
  {
    operationId: 'listFields',
    method: 'get',
    path: '/api/v1/fields',
    service,
    tag: 'Projects',
    access: perm('catalog.projects', 'r'),
    summary: 'Custom fields of projects',
    request: { query: z.object(pageQuery).strict() },
    response: listOf(fieldView, 'FieldList'),
  },
  {
    operationId: 'createField',
    method: 'post',
    path: '/api/v1/field',
    service,
    tag: 'Projects',
    access: perm('catalog.projects', 'w'),
    summary: 'Define a custom field: text, datetime (ISO 8601), uuid or url',
    request: { body: fieldCreateBody },
    response: fieldView,
  },
  {
    operationId: 'getField',
    method: 'get',
    path: '/api/v1/field/{field_id}',
    service,
    tag: 'Projects',
    access: perm('catalog.projects', 'r'),
    summary: 'Get a custom field',
    request: { params: z.object({ field_id: queryInt4(1) }) },
    response: fieldView,
  },
  {
    operationId: 'updateField',
    method: 'put',
    path: '/api/v1/field/{field_id}',
    service,
    tag: 'Projects',
    access: perm('catalog.projects', 'w'),
    summary: 'Rename a custom field or change its required flag',
    request: { params: z.object({ field_id: queryInt4(1) }), body: fieldUpdateBody },
    response: fieldView,
  },
  {
    operationId: 'deleteFields',
    method: 'delete',
    path: '/api/v1/fields',
    service,
    tag: 'Projects',
    access: perm('catalog.projects', 'd'),
    summary: 'Delete custom fields by id, with their values in every project',
    request: {
      body: z
        .object({ ids: z.array(int4(1)).min(1).max(1000) })
        .strict()
        .openapi('FieldIdsBody'),
    },
    response: bulkResult,
  },
  // projects
  {
    operationId: 'createProject',
    method: 'post',
    path: '/api/v1/project',
    service,
    tag: 'Projects',
    access: perm('catalog.projects', 'w'),
    summary: 'Create a project; its code is unique (also among deleted projects) and cannot change',
    description:
      'A caller limited to some projects cannot create projects (403): a new project would be outside its scope. One project more than the license allows answers 409 naming the limit (GET /api/v1/license).',
    request: { body: projectCreateBody },
    response: projectView,
    errors: { 503: 'The license limits cannot be read (the identity service does not answer)' },
  },
  {
    operationId: 'listProjects',
    method: 'get',
    path: '/api/v1/projects',
    service,
    tag: 'Projects',
    access: perm('catalog.projects', 'r'),
    summary: 'List the caller\u2019s projects (not deleted ones unless asked)',
    request: {
      query: bracketQuery(
        z
          .object({
            ...pageQuery,
            'filter[deleted_only]': queryBool.optional(),
            'filter[with_deleted]': queryBool.optional(),
            'filter[archived]': queryBool.optional(),
            'search[code]': search,
            'search[name]': search,
            'search[tag]': search,
          })
          .strict(),
      ),
    },
    response: listOf(projectView, 'ProjectList'),
  },
  {
    operationId: 'projectFilters',
    method: 'get',
    path: '/api/v1/projects/filter',
    service,
    tag: 'Projects',
    access: perm('catalog.projects', 'r'),
    summary: 'The values the project filters can take among the caller\u2019s projects',
    response: z
      .object({ tags: z.array(z.string()), archived: z.array(z.boolean()), deleted: z.array(z.boolean()) })
      .openapi('ProjectFilters'),
  },
  {
    operationId: 'getProject',
    method: 'get',
    path: '/api/v1/project/{project_code}',
    service,
    tag: 'Projects',
    access: perm('catalog.projects', 'r'),
    summary: 'Get a project by code (also a deleted one)',
    description: SCOPE_NOTE,
    request: { params: idParam('project_code') },
    response: projectView,
  },
  {
    operationId: 'updateProject',
    method: 'put',
    path: '/api/v1/project/{project_code}',
    service,
    tag: 'Projects',
    access: perm('catalog.projects', 'w'),
    summary: 'Update a project (409 when archived or deleted)',
    description: SCOPE_NOTE,
    request: { params: idParam('project_code'), body: projectUpdateBody },
    response: projectView,
  },
  {
    operationId: 'deleteProjects',
    method: 'delete',
    path: '/api/v1/projects',
    service,
    tag: 'Projects',
    access: perm('catalog.projects', 'd'),
    summary: 'Soft-delete projects by code; PUT /api/v1/restore-projects brings them back',
    request: { body: codesBody },
    response: bulkResult,
  },
  {
    operationId: 'restoreProjects',
    method: 'put',
    path: '/api/v1/restore-projects',
    service,
    tag: 'Projects',
    access: perm('catalog.projects', 'w'),
    summary: 'Restore soft-deleted projects by code',
    description: 'A project the license\u2019s projects limit has no room for is a conflict.',
    request: { body: codesBody },
    response: bulkResult,
    errors: { 503: 'The license limits cannot be read (the identity service does not answer)' },
  },
  {
    operationId: 'archiveProjects',
    method: 'put',
    path: '/api/v1/projects/archive',
    service,
    tag: 'Projects',
    access: perm('catalog.projects', 'w'),
    summary: 'Archive projects by code: they become read-only (no changes, layers, checks or scans: 409)',
    request: { body: codesBody },
    response: bulkResult,
  },
  {
    operationId: 'unarchiveProjects',
    method: 'put',
    path: '/api/v1/projects/unarchive',
    service,
    tag: 'Projects',
    access: perm('catalog.projects', 'w'),
    summary: 'Unarchive projects by code',
    request: { body: codesBody },
    response: bulkResult,
  },
  {
    operationId: 'listResources',
    method: 'get',
    path: '/api/v1/resources',
    service,
    tag: 'Projects',
    access: { kind: 'authenticated' },
    summary: 'Sources and tools usable in a project (filter[project_access]), or every one the caller sees',
    description: `Sources need catalog.sources:r and tools catalog.tools:r; without the letter that part is empty. ${SCOPE_NOTE}`,
    request: {
      query: bracketQuery(z.object({ 'filter[project_access]': z.string().min(1).max(64).optional() }).strict()),
    },
    response: z.object({ sources: z.array(sourceView), tools: z.array(toolView) }).openapi('Resources'),
  },
  // layers
  {
    operationId: 'listLayerTypes',
    method: 'get',
    path: '/api/v1/layer-types',
    service,
    tag: 'Layers',
    access: perm('catalog.layers', 'r'),
    summary: 'Layer types: source code, artifact, running application',
    request: { query: z.object(pageQuery).strict() },
    response: listOf(
      z.object({ id: z.number().int(), name: z.string(), description: z.string() }).openapi('LayerType'),
      'LayerTypeList',
    ),
  },
  {
    operationId: 'createLayer',
    method: 'post',
    path: '/api/v1/layer',
    service,
    tag: 'Layers',
    access: perm('catalog.layers', 'w'),
    summary: 'Create a layer in a project (409 when the project is archived or deleted)',
    description: SCOPE_NOTE,
    request: { body: layerCreateBody },
    response: layerView,
  },
  {
    operationId: 'listLayers',
    method: 'get',
    path: '/api/v1/layers',
    service,
    tag: 'Layers',
    access: perm('catalog.layers', 'r'),
    summary: 'List layers of the caller\u2019s projects',
    request: {
      query: bracketQuery(
        z
          .object({
            ...pageQuery,
            'filter[project_code]': z.string().max(64).optional(),
            'filter[is_template]': queryBool.optional(),
            'search[name]': search,
          })
          .strict(),
      ),
    },
    response: listOf(layerView, 'LayerList'),
  },
  {
    operationId: 'getLayer',
    method: 'get',
    path: '/api/v1/layer/{layer_id}',
    service,
    tag: 'Layers',
    access: perm('catalog.layers', 'r'),
    summary: 'Get a layer',
    description: SCOPE_NOTE,
    request: { params: idParam('layer_id') },
    response: layerView,
  },
  {
    operationId: 'updateLayer',
    method: 'put',
    path: '/api/v1/layer/{layer_id}',
    service,
    tag: 'Layers',
    access: perm('catalog.layers', 'w'),
    summary: 'Update a layer (409 when its project is archived)',
    description: SCOPE_NOTE,
    request: { params: idParam('layer_id'), body: layerUpdateBody },
    response: layerView,
  },
  {
    operationId: 'deleteLayers',
    method: 'delete',
    path: '/api/v1/layers',
    service,
    tag: 'Layers',
    access: perm('catalog.layers', 'd'),
    summary: 'Delete layers by id; a layer with checks, or of an archived project, is refused (conflict)',
    request: { body: idsBody },
    response: bulkResult,
  },
  {
    operationId: 'instantiateLayer',
    method: 'post',
    path: '/api/v1/layer/{layer_id}/instantiate',
    service,
    tag: 'Layers',
    access: perm('catalog.layers', 'w'),
    summary:
      'Create a layer in another project from a template layer (is_template); the scanning service copies its checks',
    description: SCOPE_NOTE,
    request: { params: idParam('layer_id'), body: layerInstantiateBody },
    response: layerView,
  },
  {
    operationId: 'deleteLayerRemoved',
    method: 'delete',
    path: '/api/v1/layer/{layer_id}',
    service,
    tag: 'Layers',
    access: perm('catalog.layers', 'd'),
    summary: 'Removed in release 1.5',
    gone: 'Removed in release 1.5: use DELETE /api/v1/layers with { "ids": [...] }',
  },
] as const satisfies readonly RouteSpec[];
