import { layerType } from '../domain/layer-types';
import { SOURCE_TYPES, sourceType, toolType } from '@bulwark/contracts';
import type { DecorationRecord } from '../store/decorations';
import type { FieldRecord } from '../store/fields';
import type { LayerRecord } from '../store/layers';
import type { ProjectRecord } from '../store/projects';
import type { SourceRecord } from '../store/sources';
import type { ToolRecord } from '../store/tools';

// Views never carry a secret: they say whether one is stored.

export const sourceView = (s: SourceRecord) => ({
  id: s.id,
  name: s.name,
  description: s.description,
  source_type_id: s.sourceTypeId,
  source_type_name: sourceType(s.sourceTypeId)?.name ?? 'unknown',
  settings: {
    url: s.url,
    branch_name: s.branchName,
    auth_method: s.authMethod,
    login: s.login,
    password_set: s.passwordSealed !== null,
    ssh_private_key_set: s.sshKeySealed !== null,
  },
  access_type: s.access.accessType,
  project_codes: s.access.projectCodes,
  created_at: s.createdAt,
  updated_at: s.updatedAt,
});

/** Never the token: only whether one is stored. */
export const sourceDecorationView = (d: DecorationRecord) => ({
  source_id: d.sourceId,
  enabled: d.enabled,
  platform: d.platform,
  api_url: d.apiUrl,
  token_set: d.tokenSealed.length > 0,
  review_min_severity: d.reviewMinSeverity,
  updated_at: d.updatedAt,
});

export const sourceTypeView = (t: (typeof SOURCE_TYPES)[number]) => ({
  id: t.id,
  name: t.name,
  description: t.description,
  auth_methods: t.authMethods,
  settings: t.settings,
});

export const toolView = (t: ToolRecord) => {
  const type = toolType(t.typeId);
  return {
    id: t.id,
    name: t.name,
    description: t.description,
    type_id: t.typeId,
    type_name: type?.name ?? 'unknown',
    kind: type?.kind ?? 'manual',
    version: t.version,
    result_format: type?.resultFormat ?? 'auto',
    settings: { ...t.settings, ...(type?.kind === 'server' ? { api_token_set: t.apiTokenSealed !== null } : {}) },
    access_type: t.access.accessType,
    project_codes: t.access.projectCodes,
    created_at: t.createdAt,
    updated_at: t.updatedAt,
  };
};

export const fieldView = (f: FieldRecord) => ({
  id: f.id,
  name: f.name,
  type: f.type,
  required: f.required,
  description: f.description,
  created_at: f.createdAt,
  updated_at: f.updatedAt,
});

export const projectView = (p: ProjectRecord) => ({
  id: p.code,
  code: p.code,
  name: p.name,
  description: p.description,
  tags: p.tags,
  criticality: p.criticality,
  field_values: p.fieldValues.map((v) => ({ field_id: v.fieldId, value: v.value })),
  archived: p.archivedAt !== null,
  archived_at: p.archivedAt,
  created_at: p.createdAt,
  updated_at: p.updatedAt,
  deleted_at: p.deletedAt,
});

export const layerView = (l: LayerRecord) => ({
  id: l.id,
  name: l.name,
  description: l.description,
  project_code: l.projectCode,
  layer_type_id: l.layerTypeId,
  layer_type_name: layerType(l.layerTypeId)?.name ?? 'unknown',
  is_template: l.isTemplate,
  template_id: l.templateId,
  created_at: l.createdAt,
  updated_at: l.updatedAt,
});
