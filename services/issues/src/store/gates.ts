import { randomUUID } from 'node:crypto';
import { containing, iso, isUuid, json, pgArray, Queryable } from '@bulwark/platform';
import type { GateCondition, LinkedGate } from '../domain/gates';

export interface GateRow {
  id: string;
  name: string;
  author: string;
  created_at: Date;
  updated_at: Date;
}
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
export interface PolicyRow {
  id: string;
  name: string;
  description: string;
  author: string;
  project_tags: string[];
  quality_gates: { quality_gate_id: string; action: 'lock' | 'inform' }[];
  created_at: Date;
  updated_at: Date;
}

const toCondition = (r: ConditionRow): GateCondition => ({
  id: r.id,
  qualityGateId: r.quality_gate_id,
  conditionType: r.condition_type as GateCondition['conditionType'],
  conditionValue: r.condition_value,
  operator: r.operator as GateCondition['operator'],
  value: r.value,
});
export const conditionView = (c: GateCondition) => ({
  id: c.id,
  quality_gate_id: c.qualityGateId,
  condition_type: c.conditionType,
  condition_value: c.conditionValue,
  operator: c.operator,
  value: String(c.value),
});

export const gateStore = {
  async insert(db: Queryable, name: string, author: string): Promise<GateRow> {
    const [row] = await db<GateRow>('quality_gates').insert({ id: randomUUID(), name, author }).returning('*');
    return row;
  },

  async get(db: Queryable, id: string): Promise<GateRow | undefined> {
    return db<GateRow>('quality_gates').where({ id }).first();
  },

  async rename(db: Queryable, id: string, name: string): Promise<GateRow | undefined> {
    const [row] = await db<GateRow>('quality_gates')
      .where({ id })
      .update({ name, updated_at: db.fn.now() })
      .returning('*');
    return row;
  },

  async list(db: Queryable, q: { page: number; limit: number; author?: string; name?: string; project?: string }) {
    const base = db<GateRow>('quality_gates');
    if (q.author) base.whereILike('author', containing(q.author));
    if (q.name) base.whereILike('name', containing(q.name));
    if (q.project)
      base.whereExists((e) => {
        e.select(db.raw('1'))
          .from('gate_links')
          .whereRaw('gate_links.quality_gate_id = quality_gates.id')
          .andWhereILike('gate_links.project_code', containing(q.project!));
      });
    const [{ n }] = await base.clone().count({ n: '*' });
    const items = await base
      .orderBy('name')
      .orderBy('id')
      .offset((q.page - 1) * q.limit)
      .limit(q.limit);
    return { items, total: Number(n) };
  },

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

  async linksOf(
    db: Queryable,
    gateIds: string[],
  ): Promise<{ quality_gate_id: string; layer_id: string; action: string }[]> {
    if (gateIds.length === 0) return [];
    return db('gate_links').whereIn('quality_gate_id', gateIds).orderBy('layer_id');
  },

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
    links: { quality_gate_id: string; action: string }[],
    replace: boolean,
  ): Promise<void> {
    if (replace) await db('gate_links').where({ layer_id: layerId }).delete();
    if (links.length) {
      await db('gate_links')
        .insert(
          links.map((l) => ({
            layer_id: layerId,
            project_code: projectCode,
            quality_gate_id: l.quality_gate_id,
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
    return gateStore.withConditions(db, links);
  },

  async withConditions(
    db: Queryable,
    links: { quality_gate_id: string; action: 'lock' | 'inform'; name?: string }[],
  ): Promise<LinkedGate[]> {
    const ids = [...new Set(links.map((l) => l.quality_gate_id))];
    const conditions = await gateStore.conditionsOf(db, ids);
    const names = new Map(
      (ids.length ? await db('quality_gates').whereIn('id', ids).select('id', 'name') : []).map(
        (g: { id: string; name: string }) => [g.id, g.name],
      ),
    );
    return links
      .filter((l) => names.has(l.quality_gate_id))
      .map((l) => ({
        id: l.quality_gate_id,
        name: names.get(l.quality_gate_id)!,
        action: l.action,
        conditions: conditions.filter((c) => c.qualityGateId === l.quality_gate_id),
      }));
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

  async layerState(
    db: Queryable,
    layerId: string,
  ): Promise<{ locked: boolean; scan_id: string; verdict: unknown; updated_at: string } | undefined> {
    const row = await db<LayerGateStateRow>('layer_gate_state').where({ layer_id: layerId }).first();
    return row
      ? { locked: row.locked, scan_id: row.scan_id, verdict: json(row.verdict), updated_at: iso(row.updated_at)! }
      : undefined;
  },
};

const fromPolicy = (r: PolicyRow): PolicyRow => ({ ...r, quality_gates: json(r.quality_gates) });

export const policyStore = {
  async insert(
    db: Queryable,
    p: Pick<PolicyRow, 'name' | 'description' | 'author' | 'project_tags' | 'quality_gates'>,
  ): Promise<PolicyRow> {
    const [row] = await db('policies')
      .insert({
        id: randomUUID(),
        ...p,
        project_tags: db.raw('?::text[]', [pgArray(p.project_tags)]),
        quality_gates: JSON.stringify(p.quality_gates),
      })
      .returning<PolicyRow[]>('*');
    return fromPolicy(row);
  },

  async update(
    db: Queryable,
    id: string,
    p: Pick<PolicyRow, 'name' | 'description' | 'project_tags' | 'quality_gates'>,
  ): Promise<PolicyRow | undefined> {
    const [row] = await db('policies')
      .where({ id })
      .update({
        ...p,
        project_tags: db.raw('?::text[]', [pgArray(p.project_tags)]),
        quality_gates: JSON.stringify(p.quality_gates),
        updated_at: db.fn.now(),
      })
      .returning<PolicyRow[]>('*');
    return row ? fromPolicy(row) : undefined;
  },

  async list(db: Queryable, q: { page: number; limit: number; author?: string; name?: string; project?: string }) {
    const base = db<PolicyRow>('policies');
    if (q.author) base.whereILike('author', containing(q.author));
    if (q.name) base.whereILike('name', containing(q.name));
    if (q.project)
      base.whereRaw("exists (select 1 from unnest(project_tags) t where t ilike ? escape '\\')", [
        containing(q.project),
      ]);
    const [{ n }] = await base.clone().count({ n: '*' });
    const items = (
      await base
        .orderBy('name')
        .orderBy('id')
        .offset((q.page - 1) * q.limit)
        .limit(q.limit)
    ).map(fromPolicy);
    return { items, total: Number(n) };
  },

  /** Policies that apply to a project with these tags. */
  async forTags(db: Queryable, tags: string[]): Promise<PolicyRow[]> {
    if (tags.length === 0) return [];
    return (await db<PolicyRow>('policies').whereRaw('project_tags && ?::text[]', [pgArray(tags)])).map(fromPolicy);
  },

  async delete(db: Queryable, ids: string[]): Promise<string[]> {
    const uuids = ids.filter(isUuid);
    if (uuids.length === 0) return [];
    return (await db('policies').whereIn('id', uuids).delete().returning('id')).map((r: { id: string }) => r.id);
  },
};

export const policyView = (p: PolicyRow) => ({
  id: p.id,
  name: p.name,
  description: p.description,
  author: p.author,
  project_tags: p.project_tags,
  quality_gates: p.quality_gates,
  created_at: iso(p.created_at)!,
  updated_at: iso(p.updated_at)!,
});
