import { randomUUID } from 'node:crypto';
import { containing, iso, isUuid, json, Queryable, recordsById } from '@bulwark/platform';
import type { GateCondition, LinkedGate } from '../domain/gates';
import { pageByName } from './name-pages';

interface GateRow {
  id: string;
  name: string;
  author: string;
  created_at: Date;
  updated_at: Date;
}
export interface GateRecord {
  id: string;
  name: string;
  author: string;
  createdAt: string;
  updatedAt: string;
}
const toGateRecord = (r: GateRow): GateRecord => ({
  id: r.id,
  name: r.name,
  author: r.author,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});
interface ConditionRow {
  id: string;
  quality_gate_id: string;
  condition_type: string;
  condition_value: string;
  operator: string;
  value: number;
}
interface LayerGateStateRow {
  layer_id: string;
  scan_id: string;
  locked: boolean;
  verdict: unknown;
  updated_at: Date;
}

/** A gate's link to a layer, with the layer's project as the catalog named it when the link was made. */
export interface GateLinkRecord {
  qualityGateId: string;
  layerId: string;
  projectCode: string;
  action: string;
}
interface GateLinkRow {
  quality_gate_id: string;
  layer_id: string;
  project_code: string;
  action: string;
}
const toLink = (r: GateLinkRow): GateLinkRecord => ({
  qualityGateId: r.quality_gate_id,
  layerId: r.layer_id,
  projectCode: r.project_code,
  action: r.action,
});

interface GateQuery {
  author?: string;
  name?: string;
  project?: string;
  /** Only links to these projects count for `project` (null: every project). */
  projects?: readonly string[] | null;
}

/** The verdict of a layer's gates after its last evaluated scan. */
export interface LayerGateStateRecord {
  locked: boolean;
  scanId: string;
  verdict: unknown;
  updatedAt: string;
}

const toCondition = (r: ConditionRow): GateCondition => ({
  id: r.id,
  qualityGateId: r.quality_gate_id,
  conditionType: r.condition_type as GateCondition['conditionType'],
  conditionValue: r.condition_value,
  operator: r.operator as GateCondition['operator'],
  value: r.value,
});

function gatesMatching(db: Queryable, q: GateQuery) {
  const base = db<GateRow>('quality_gates');
  if (q.author) base.whereILike('author', containing(q.author));
  if (q.name) base.whereILike('name', containing(q.name));
  const { project, projects } = q;
  if (project)
    base.whereExists((e) => {
      e.select(db.raw('1'))
        .from('gate_links')
        .whereRaw('gate_links.quality_gate_id = quality_gates.id')
        .andWhereILike('gate_links.project_code', containing(project));
      if (projects) e.whereIn('gate_links.project_code', projects);
    });
  return base;
}

export const gateStore = {
  async insert(db: Queryable, name: string, author: string): Promise<GateRecord> {
    const [row] = await db<GateRow>('quality_gates').insert({ id: randomUUID(), name, author }).returning('*');
    return toGateRecord(row);
  },

  async get(db: Queryable, id: string): Promise<GateRecord | undefined> {
    const row = await db<GateRow>('quality_gates').where({ id }).first();
    return row && toGateRecord(row);
  },

  async rename(db: Queryable, id: string, name: string): Promise<GateRecord | undefined> {
    const [row] = await db<GateRow>('quality_gates')
      .where({ id })
      .update({ name, updated_at: db.fn.now() })
      .returning('*');
    return row && toGateRecord(row);
  },

  list: (db: Queryable, q: GateQuery & { page: number; limit: number }) =>
    pageByName(gatesMatching(db, q), q, toGateRecord),

  /** Every gate the query matches, in the list's order (at most `limit`). */
  async matching(db: Queryable, q: GateQuery, limit: number): Promise<GateRecord[]> {
    return (await gatesMatching(db, q).orderBy('name').orderBy('id').limit(limit)).map(toGateRecord);
  },

  getMany: (db: Queryable, ids: string[]) => recordsById(db, 'quality_gates', ids, toGateRecord),

  async delete(db: Queryable, ids: string[]): Promise<string[]> {
    const uuids = ids.filter(isUuid);
    if (uuids.length === 0) return [];
    return (await db('quality_gates').whereIn('id', uuids).delete().returning('id')).map((r: { id: string }) => r.id);
  },

  async conditionsOf(db: Queryable, gateIds: string[]): Promise<GateCondition[]> {
    if (gateIds.length === 0) return [];
    return (
      await db<ConditionRow>('gate_conditions').whereIn('quality_gate_id', gateIds).orderBy('created_at').orderBy('id')
    ).map(toCondition);
  },

  async linksOf(db: Queryable, gateIds: string[]): Promise<GateLinkRecord[]> {
    if (gateIds.length === 0) return [];
    return (await db<GateLinkRow>('gate_links').whereIn('quality_gate_id', gateIds).orderBy('layer_id')).map(toLink);
  },

  /** A layer's own links (not those of policies). */
  async linksOfLayer(db: Queryable, layerId: string): Promise<GateLinkRecord[]> {
    return (await db<GateLinkRow>('gate_links').where({ layer_id: layerId })).map(toLink);
  },

  conditionsById: (db: Queryable, ids: string[]) => recordsById(db, 'gate_conditions', ids, toCondition),

  async addCondition(db: Queryable, c: Omit<GateCondition, 'id'>): Promise<GateCondition> {
    const [row] = await db<ConditionRow>('gate_conditions')
      .insert({
        id: randomUUID(),
        quality_gate_id: c.qualityGateId,
        condition_type: c.conditionType,
        condition_value: c.conditionValue,
        operator: c.operator,
        value: c.value,
      })
      .returning('*');
    return toCondition(row);
  },

  async updateCondition(db: Queryable, id: string, c: Omit<GateCondition, 'id'>): Promise<GateCondition | undefined> {
    const [row] = await db<ConditionRow>('gate_conditions')
      .where({ id })
      .update({
        quality_gate_id: c.qualityGateId,
        condition_type: c.conditionType,
        condition_value: c.conditionValue,
        operator: c.operator,
        value: c.value,
      })
      .returning('*');
    return row ? toCondition(row) : undefined;
  },

  async deleteConditions(db: Queryable, ids: string[]): Promise<string[]> {
    const uuids = ids.filter(isUuid);
    if (uuids.length === 0) return [];
    return (await db('gate_conditions').whereIn('id', uuids).delete().returning('id')).map((r: { id: string }) => r.id);
  },

  async setLinks(
    db: Queryable,
    layerId: string,
    projectCode: string,
    links: { qualityGateId: string; action: string }[],
    replace: boolean,
  ): Promise<void> {
    if (replace) await db('gate_links').where({ layer_id: layerId }).delete();
    if (links.length) {
      await db('gate_links')
        .insert(
          links.map((l) => ({
            layer_id: layerId,
            project_code: projectCode,
            quality_gate_id: l.qualityGateId,
            action: l.action,
          })),
        )
        .onConflict(['layer_id', 'quality_gate_id'])
        .merge(['action', 'project_code']);
    }
  },

  /** The gates linked to a layer directly, with their conditions. */
  async linkedTo(db: Queryable, layerId: string): Promise<LinkedGate[]> {
    const links = await db('gate_links')
      .join('quality_gates', 'quality_gates.id', 'gate_links.quality_gate_id')
      .where('gate_links.layer_id', layerId)
      .select<{ quality_gate_id: string; action: 'lock' | 'inform'; name: string }[]>(
        'gate_links.quality_gate_id',
        'gate_links.action',
        'quality_gates.name',
      )
      .orderBy('quality_gates.name');
    return gateStore.withConditions(
      db,
      links.map((l) => ({ qualityGateId: l.quality_gate_id, action: l.action })),
    );
  },

  /** The gates of these links that exist, with their names and conditions. */
  async withConditions(
    db: Queryable,
    links: { qualityGateId: string; action: 'lock' | 'inform' }[],
  ): Promise<LinkedGate[]> {
    const ids = [...new Set(links.map((l) => l.qualityGateId))];
    const conditions = await gateStore.conditionsOf(db, ids);
    const names = new Map(
      (ids.length ? await db('quality_gates').whereIn('id', ids).select('id', 'name') : []).map(
        (g: { id: string; name: string }) => [g.id, g.name],
      ),
    );
    return links.flatMap((l) => {
      const name = names.get(l.qualityGateId);
      if (name === undefined) return [];
      const gateConditions = conditions.filter((c) => c.qualityGateId === l.qualityGateId);
      return [{ id: l.qualityGateId, name, action: l.action, conditions: gateConditions }];
    });
  },

  async setLayerState(
    db: Queryable,
    layerId: string,
    scanId: string,
    locked: boolean,
    verdict: unknown,
  ): Promise<void> {
    await db('layer_gate_state')
      .insert({ layer_id: layerId, scan_id: scanId, locked, verdict: JSON.stringify(verdict), updated_at: db.fn.now() })
      .onConflict('layer_id')
      .merge();
  },

  async layerState(db: Queryable, layerId: string): Promise<LayerGateStateRecord | undefined> {
    const row = await db<LayerGateStateRow>('layer_gate_state').where({ layer_id: layerId }).first();
    return row
      ? { locked: row.locked, scanId: row.scan_id, verdict: json(row.verdict), updatedAt: iso(row.updated_at) }
      : undefined;
  },
};
