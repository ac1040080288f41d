import { iso, json, Queryable } from '@bulwark/platform';
import { newestFirstPage } from './paging';
import type { TagInfo } from '../domain/check-plan';

export interface CheckSettings {
  layerId: string;
  projectCode: string;
  securityToolId: string;
  scanSourceId: string;
  toolSettings: Record<string, unknown>;
  /** Sealed check-level api_token; `undefined` keeps the stored one. */
  toolTokenSealed?: string | null;
  sourceAuth: Record<string, unknown>;
  runScanTask: Record<string, unknown>;
}

export interface CheckRecord extends Required<Omit<CheckSettings, 'toolTokenSealed'>> {
  id: string;
  groupId: string | null;
  toolTokenSealed: string | null;
  tag: TagInfo | null;
  comparison: Comparison;
  createdAt: string;
  updatedAt: string;
}

export type Comparison =
  | { mode: 'previous' }
  | { mode: 'baseline'; baseline_scan_result_id: string }
  | { mode: 'pair'; scan_result_ids: [string, string] };

interface CheckRow {
  id: string;
  group_id: string | null;
  layer_id: string;
  project_code: string;
  security_tool_id: string;
  scan_source_id: string;
  tool_settings: unknown;
  tool_token_sealed: string | null;
  source_auth: unknown;
  run_scan_task: unknown;
  tag_name: string | null;
  commit: string | null;
  comparison: unknown;
  created_at: Date;
  updated_at: Date;
}

function toRecord(r: CheckRow): CheckRecord {
  return {
    id: r.id,
    groupId: r.group_id,
    layerId: r.layer_id,
    projectCode: r.project_code,
    securityToolId: r.security_tool_id,
    scanSourceId: r.scan_source_id,
    toolSettings: json(r.tool_settings),
    toolTokenSealed: r.tool_token_sealed,
    sourceAuth: json(r.source_auth),
    runScanTask: json(r.run_scan_task),
    tag: r.tag_name === null ? null : { tag_name: r.tag_name, ...(r.commit ? { commit: r.commit } : {}) },
    comparison: json(r.comparison),
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  };
}

function settingsColumns(s: CheckSettings): Record<string, unknown> {
  const cols: Record<string, unknown> = {
    layer_id: s.layerId,
    project_code: s.projectCode,
    security_tool_id: s.securityToolId,
    scan_source_id: s.scanSourceId,
    tool_settings: JSON.stringify(s.toolSettings),
    source_auth: JSON.stringify(s.sourceAuth),
    run_scan_task: JSON.stringify(s.runScanTask),
  };
  if (s.toolTokenSealed !== undefined) cols.tool_token_sealed = s.toolTokenSealed;
  return cols;
}

const tagColumns = (tag: TagInfo | null | undefined) =>
  tag === undefined ? {} : { tag_name: tag?.tag_name ?? null, commit: tag?.commit ?? null };

export const checkStore = {
  async get(db: Queryable, id: string): Promise<CheckRecord | undefined> {
    const row = await db<CheckRow>('checks').where({ id }).first();
    return row ? toRecord(row) : undefined;
  },

  async getForUpdate(db: Queryable, id: string): Promise<CheckRecord | undefined> {
    const row = await db<CheckRow>('checks').where({ id }).forUpdate().first();
    return row ? toRecord(row) : undefined;
  },

  async groupMembers(db: Queryable, groupId: string): Promise<CheckRecord[]> {
    const rows = await db('checks').where({ group_id: groupId }).orderBy('created_at').orderBy('id');
    return rows.map(toRecord);
  },

  async byLayer(db: Queryable, layerId: string): Promise<CheckRecord[]> {
    const rows = await db('checks').where({ layer_id: layerId }).orderBy('created_at').orderBy('id');
    return rows.map(toRecord);
  },

  async insert(
    db: Queryable,
    id: string,
    groupId: string | null,
    s: CheckSettings,
    tag: TagInfo | null | undefined,
  ): Promise<void> {
    await db('checks').insert({ id, group_id: groupId, ...settingsColumns(s), ...tagColumns(tag ?? null) });
  },

  async update(db: Queryable, id: string, s: CheckSettings, tag: TagInfo | null | undefined): Promise<void> {
    await db('checks')
      .where({ id })
      .update({ ...settingsColumns(s), ...tagColumns(tag), updated_at: db.fn.now() });
  },

  async setGroup(db: Queryable, ids: string[], groupId: string | null): Promise<void> {
    if (ids.length > 0) await db('checks').whereIn('id', ids).update({ group_id: groupId, updated_at: db.fn.now() });
  },

  async setComparison(db: Queryable, id: string, comparison: Comparison): Promise<void> {
    await db('checks')
      .where({ id })
      .update({ comparison: JSON.stringify(comparison), updated_at: db.fn.now() });
  },

  async createGroup(db: Queryable, id: string): Promise<void> {
    await db('check_groups').insert({ id });
  },

  async deleteGroup(db: Queryable, id: string): Promise<string[]> {
    const rows: { id: string }[] = await db('checks').where({ group_id: id }).select('id');
    await db('checks').where({ group_id: id }).delete();
    await db('check_groups').where({ id }).delete();
    return rows.map((r) => r.id);
  },

  /** Deletes a group whose members have been detached from it. */
  async deleteEmptyGroup(db: Queryable, id: string): Promise<void> {
    await db('check_groups').where({ id }).delete();
  },

  async delete(db: Queryable, id: string): Promise<void> {
    await db('checks').where({ id }).delete();
  },

  async groupExists(db: Queryable, id: string): Promise<boolean> {
    return Boolean(await db('check_groups').where({ id }).first());
  },

  async list(
    db: Queryable,
    q: {
      page: number;
      limit: number;
      layerId?: string;
      projectCode?: string;
      groupId?: string;
      projects: string[] | null;
    },
  ): Promise<{ items: CheckRecord[]; total: number }> {
    const base = db('checks').where((w) => {
      if (q.layerId) w.where('layer_id', q.layerId);
      if (q.projectCode) w.where('project_code', q.projectCode);
      if (q.groupId) w.where('group_id', q.groupId);
      if (q.projects) w.whereIn('project_code', q.projects);
    });
    return newestFirstPage(base, q, toRecord);
  },

  async using(
    db: Queryable,
    q: { sourceIds: string[]; toolIds: string[]; layerIds: string[] },
  ): Promise<CheckRecord[]> {
    if (q.sourceIds.length + q.toolIds.length + q.layerIds.length === 0) return [];
    const rows = await db('checks')
      .where((w) => {
        if (q.sourceIds.length) w.orWhereIn('scan_source_id', q.sourceIds);
        if (q.toolIds.length) w.orWhereIn('security_tool_id', q.toolIds);
        if (q.layerIds.length) w.orWhereIn('layer_id', q.layerIds);
      })
      .orderBy('id');
    return rows.map(toRecord);
  },
};
