import { getRefId } from '@asteasolutions/zod-to-openapi';
import { z } from '../zod';
import { int4, isoDateTime, nonBlank } from '../common';
import { FieldRule, schemaPerType, withFieldRules } from '../field-rules';
import { branchSetting, GIT_URL_PATTERN, SOURCE_AUTH_METHODS, SOURCE_TYPES } from '../source-types';
import { TOOL_TYPES } from '../tool-types';
import { ISSUE_SEVERITIES } from './issues';

export const SCOPE_NOTE =
  'A caller whose roles are limited to some projects gets 404 for anything outside them, as if it did not exist.';

/** Project scope of sources and tools, which apply to every project (global) or to a set of projects. */
export const SHARED_SCOPE_NOTE =
  'A caller limited to some projects sees global ones and those shared with one of its projects, with only its own project codes (others: 404), and changes, runs or deletes only those whose projects are all its own (403).';

// ---- shared fields

export const PROJECT_CODE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export const projectCode = z
  .string()
  .regex(PROJECT_CODE, 'must be 1-64 letters, digits, "_", "." or "-", starting with a letter or digit')
  .openapi({ description: 'Unique, stable, URL-safe project code', example: 'web-shop' });

export const name = nonBlank(255);

export const description = z.string().max(4000);

export const ACCESS_TYPES = ['global', 'project'] as const;

export const accessFields = {
  access_type: z.enum(ACCESS_TYPES).optional().openapi({
    description:
      'Release 1.5 access type: "global" (every project, the default) or "project" (only the projects in project_codes)',
  }),
  project_codes: z.array(projectCode).max(1000).optional().openapi({
    description: 'Required and non-empty when access_type is "project"; must be empty or absent when it is "global"',
  }),
};

/**
 * A new source's or tool's access: "project" lists at least one project, "global" (the default) none.
 * An update merges with the stored access, which the catalog checks.
 */
export const accessOnCreation: FieldRule = {
  problem: (v) => {
    const codes = Array.isArray(v.project_codes) ? v.project_codes : [];
    if (v.access_type === 'project')
      return codes.length === 0
        ? { field: 'project_codes', message: 'must list at least one project when access_type is "project"' }
        : undefined;
    return codes.length > 0
      ? { field: 'project_codes', message: 'must be empty when access_type is "global"' }
      : undefined;
  },
  schema: {
    if: { properties: { access_type: { const: 'project' } }, required: ['access_type'] },
    then: { properties: { project_codes: { minItems: 1 } }, required: ['project_codes'] },
    else: { properties: { project_codes: { maxItems: 0 } } },
  },
};

export const accessView = { access_type: z.enum(ACCESS_TYPES), project_codes: z.array(z.string()) };

export const codesBody = z
  .object({ codes: z.array(z.string().min(1).max(64)).min(1).max(1000) })
  .strict()
  .openapi('CodesBody', { description: 'Bulk operation on projects: their codes' });

export const idParam = (key: string) => z.object({ [key]: z.string().min(1).max(128) });

// ---- sources

/**
 * A source type's id: the document lists the registry's (the catalog refuses another, naming it, with
 * the same registry).
 */
const sourceTypeId = int4(1).openapi({
  enum: SOURCE_TYPES.map((t) => t.id),
  description: 'GET /api/v1/source-types',
});

/** Each source type's settings schema by name, with its type id. */
const sourceSettingsNames = (which: 'schema' | 'changes') =>
  SOURCE_TYPES.map((t) => `${getRefId(t[which]) ?? ''} (${t.id})`).join(', ');

export const sourceSettings = z
  .object({
    url: nonBlank(2048).openapi({
      pattern: GIT_URL_PATTERN,
      description: 'http(s):// for Git over HTTP(S); ssh://… or user@host:path for Git over SSH',
    }),
    branch_name: branchSetting,
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

export const sourceCreateBody = withFieldRules(
  z
    .object({
      name,
      description: description.optional(),
      source_type_id: sourceTypeId,
      settings: sourceSettings,
      ...accessFields,
    })
    .strict(),
  [accessOnCreation],
)
  .openapi(schemaPerType('source_type_id', 'settings', SOURCE_TYPES))
  .openapi('SourceCreate', { description: `settings as the source type takes them: ${sourceSettingsNames('schema')}` });

export const sourceUpdateBody = z
  .object({
    name: name.optional(),
    description: description.optional(),
    source_type_id: sourceTypeId.optional(),
    settings: sourceSettings.partial().optional().openapi({
      description:
        'Changed settings only; a secret left out keeps the stored one. Each as the source type takes it (source_type_id, else the stored type); with the stored ones they make the settings of the type',
    }),
    ...accessFields,
  })
  .strict()
  .openapi(
    schemaPerType(
      'source_type_id',
      'settings',
      SOURCE_TYPES.map((t) => ({ id: t.id, schema: t.changes })),
    ),
  )
  .openapi('SourceUpdate', {
    description: `settings as the source type takes them: ${sourceSettingsNames('changes')}`,
  });

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
  .openapi('SourceTest', {
    description: `settings as the source type of the path takes them: ${sourceSettingsNames('schema')}; secrets left out come from source_id`,
  });

export const sourceTestResult = z
  .object({
    ok: z.boolean(),
    message: z.string(),
    default_branch: z.string().optional(),
    branches: z.array(z.string()).optional(),
  })
  .openapi('SourceTestResult');

/** Where pull request decoration of a source's repository goes: GitHub or GitLab (REST). */
export const DECORATION_PLATFORMS = ['github', 'gitlab'] as const;
export type DecorationPlatformName = (typeof DECORATION_PLATFORMS)[number];
/** The least severity of a new issue that gets a review comment; none: no review comments. */
export const REVIEW_MIN_SEVERITIES = [...ISSUE_SEVERITIES, 'none'] as const;
export type ReviewMinSeverity = (typeof REVIEW_MIN_SEVERITIES)[number];

export const sourceDecorationBody = z
  .object({
    enabled: z.boolean().openapi({ description: 'false stops decoration and keeps the settings and token' }),
    platform: z.enum(DECORATION_PLATFORMS),
    api_url: z
      .url({ protocol: /^https?$/ })
      .max(2048)
      .refine((u) => !/^[a-z]+:\/\/[^/]*@/i.test(u), 'must not carry credentials (give the token in token)')
      .openapi({
        description:
          'The platform\u2019s REST API address (https://api.github.com, or https://host/api/v3 for GitHub Enterprise Server; https://gitlab.com/api/v4 or https://host/api/v4 for GitLab); it must be one the outbound address policy lets Bulwark reach',
      }),
    token: z.string().min(1).max(4096).optional().openapi({
      description:
        'A token that may comment on pull (merge) requests and set commit statuses (on GitLab, a token with the api scope); stored encrypted, never returned. Required the first time; absent later keeps the stored one',
    }),
    review_min_severity: z
      .enum([...ISSUE_SEVERITIES, 'none'])
      .optional()
      .openapi({
        description:
          'New issues at or above this severity also get a review comment on their changed line; none (the default): no review comments',
      }),
  })
  .strict()
  .openapi('SourceDecorationUpdate');

export type SourceDecorationBody = z.infer<typeof sourceDecorationBody>;

export const sourceDecorationView = z
  .object({
    source_id: z.string(),
    enabled: z.boolean(),
    platform: z.enum(DECORATION_PLATFORMS),
    api_url: z.string(),
    token_set: z.boolean(),
    review_min_severity: z.enum(REVIEW_MIN_SEVERITIES),
    updated_at: isoDateTime,
  })
  .openapi('SourceDecoration');

export const settingDescription = z
  .object({
    name: z.string(),
    required: z.boolean(),
    secret: z.boolean(),
    ignored: z
      .boolean()
      .openapi({ description: 'Accepted, so one settings shape fits every type, and not used by this one' }),
    description: z.string(),
  })
  .openapi('SettingDescription');

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

/** Each tool type's settings schema by name, with the type ids that take it. */
const toolSettingsNames = [...new Set(TOOL_TYPES.map((t) => t.settings))]
  .map((schema) => {
    const ids = TOOL_TYPES.filter((t) => t.settings === schema).map((t) => t.id);
    return `${getRefId(schema) ?? ''} (${ids.join(', ')})`;
  })
  .join(', ');

/** The named settings schemas the create and update bodies refer to per type: components of the document. */
export const SETTINGS_PER_TYPE: z.ZodType[] = [
  ...SOURCE_TYPES.flatMap((t) => [t.schema, t.changes]),
  ...new Set(TOOL_TYPES.map((t) => t.settings)),
];

export const toolCreateBody = withFieldRules(
  z
    .object({
      name: name.optional().openapi({ description: 'Defaults to the tool type\u2019s name and version' }),
      description: description.optional(),
      type_id: int4(1).openapi({ enum: TOOL_TYPES.map((t) => t.id), description: 'GET /api/v1/tool-types' }),
      version: nonBlank(64)
        .optional()
        .openapi({ description: 'Version of this integration; defaults to the type\u2019s version' }),
      settings: z.record(z.string(), z.unknown()).openapi({
        description: `As the tool type takes them (GET /api/v1/tool-types): ${toolSettingsNames}`,
      }),
      ...accessFields,
    })
    .strict(),
  [accessOnCreation],
)
  .openapi(
    schemaPerType(
      'type_id',
      'settings',
      TOOL_TYPES.map((t) => ({ id: t.id, schema: t.settings })),
    ),
  )
  .openapi('ToolCreate');

export const toolUpdateBody = z
  .object({
    name: name.optional(),
    description: description.optional(),
    version: nonBlank(64).optional(),
    settings: z
      .record(z.string(), z.unknown())
      .optional()
      .openapi({
        description: `Replaces the settings; an api_token left out keeps the stored one. As the tool\u2019s type takes them: ${toolSettingsNames}`,
      }),
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
    settings: z.array(settingDescription),
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

export const fieldValue = z.object({ field_id: int4(1), value: z.string().max(4000) }).strict();

export const tags = z.array(nonBlank(64)).max(100);

/** How much a project's issues weigh in their risk score (README "Issues", risk score). */
export const PROJECT_CRITICALITIES = ['low', 'medium', 'high', 'critical'] as const;
export type ProjectCriticality = (typeof PROJECT_CRITICALITIES)[number];
const criticality = z
  .enum(PROJECT_CRITICALITIES)
  .openapi({ description: 'Business criticality, a factor of its issues\u2019 risk score (default medium)' });

export const projectCreateBody = z
  .object({
    code: projectCode,
    name,
    description: description.optional(),
    tags: tags.optional(),
    criticality: criticality.optional(),
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
    criticality: criticality.optional(),
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
    criticality: z.enum(PROJECT_CRITICALITIES),
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

export const catalogSearch = z.string().max(255).optional();
