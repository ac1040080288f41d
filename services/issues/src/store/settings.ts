import { randomUUID } from 'node:crypto';
import { containing, iso, isUuid, pgArray, Queryable } from '@bulwark/platform';
import type { DedupRule } from '../domain/match-key';

export interface StatusRow {
  id: number;
  name_en: string;
  name_ru: string;
  builtin: boolean;
}
export interface TransitionRow {
  id: string;
  from_status: number;
  to_status: number;
}

export const statusStore = {
  async list(db: Queryable, q: { ids?: number[]; name?: string; invert?: boolean } = {}): Promise<StatusRow[]> {
    const query = db<StatusRow>('statuses').orderBy('id');
    if (q.ids?.length) {
      if (q.invert) query.whereNotIn('id', q.ids);
      else query.whereIn('id', q.ids);
    }
    if (q.name) {
      const name = containing(q.name);
      query.where((w) => {
        w.whereILike('name_en', name).orWhereILike('name_ru', name);
      });
    }
    return query;
  },

  async transitions(db: Queryable, from?: number[]): Promise<TransitionRow[]> {
    const q = db<TransitionRow>('status_transitions').orderBy(['from_status', 'to_status']);
    if (from?.length) q.whereIn('from_status', from);
    return q;
  },

  async addTransition(db: Queryable, from: number, to: number): Promise<TransitionRow | undefined> {
    const rows = await db<TransitionRow>('status_transitions')
      .insert({ id: randomUUID(), from_status: from, to_status: to })
      .onConflict(['from_status', 'to_status'])
      .ignore()
      .returning('*');
    return rows[0];
  },

  async deleteTransitions(db: Queryable, ids: string[]): Promise<string[]> {
    const uuids = ids.filter(isUuid);
    if (uuids.length === 0) return [];
    return (await db('status_transitions').whereIn('id', uuids).delete().returning('id')).map(
      (r: { id: string }) => r.id,
    );
  },
};

export interface DedupRuleRow {
  id: string;
  name: string;
  tool_name: string | null;
  fields: string[];
  scope: 'project' | 'layer';
  created_at: Date;
  updated_at: Date;
}

export const dedupRuleStore = {
  async all(db: Queryable): Promise<DedupRule[]> {
    const rows = await db<DedupRuleRow>('dedup_rules');
    return rows.map((r) => ({ toolName: r.tool_name, fields: r.fields as DedupRule['fields'], scope: r.scope }));
  },

  async list(db: Queryable, q: { page: number; limit: number; name?: string }) {
    const base = db<DedupRuleRow>('dedup_rules');
    if (q.name) base.whereILike('name', containing(q.name));
    const [{ n }] = await base.clone().count({ n: '*' });
    const items = await base
      .orderBy('name')
      .offset((q.page - 1) * q.limit)
      .limit(q.limit);
    return { items, total: Number(n) };
  },

  async get(db: Queryable, id: string): Promise<DedupRuleRow | undefined> {
    return db<DedupRuleRow>('dedup_rules').where({ id }).first();
  },

  async insert(
    db: Queryable,
    r: { name: string; tool_name: string | null; fields: string[]; scope: string },
  ): Promise<DedupRuleRow> {
    const [row] = await db('dedup_rules')
      .insert({ id: randomUUID(), ...r, fields: db.raw('?::text[]', [pgArray(r.fields)]) })
      .returning<DedupRuleRow[]>('*');
    return row;
  },

  async update(
    db: Queryable,
    id: string,
    r: { name: string; tool_name: string | null; fields: string[]; scope: string },
  ): Promise<DedupRuleRow | undefined> {
    const [row] = await db('dedup_rules')
      .where({ id })
      .update({ ...r, fields: db.raw('?::text[]', [pgArray(r.fields)]), updated_at: db.fn.now() })
      .returning<DedupRuleRow[]>('*');
    return row;
  },

  async delete(db: Queryable, ids: string[]): Promise<string[]> {
    const uuids = ids.filter(isUuid);
    if (uuids.length === 0) return [];
    return (await db('dedup_rules').whereIn('id', uuids).delete().returning('id')).map((r: { id: string }) => r.id);
  },
};

export const dedupRuleView = (r: DedupRuleRow) => ({
  id: r.id,
  name: r.name,
  tool_name: r.tool_name,
  fields: r.fields,
  scope: r.scope,
  created_at: iso(r.created_at)!,
  updated_at: iso(r.updated_at)!,
});

/** What makes a later scan of the check an unchanged re-import of this one (null: never). */
export interface UnchangedBasis {
  findings_digest: string | null;
  keying: string;
  issues: number;
}

export const ingestedStore = {
  /** Claims a scan for ingestion; false when it was ingested already. */
  async claim(
    db: Queryable,
    scan: { scan_id: string; check_id: string; layer_id: string; project_code: string },
  ): Promise<boolean> {
    const rows = await db('ingested_scans')
      .insert({ ...scan, findings: 0, summary: '{}' })
      .onConflict('scan_id')
      .ignore()
      .returning('scan_id');
    return rows.length === 1;
  },

  async finish(
    db: Queryable,
    scanId: string,
    findings: number,
    summary: unknown,
    qualityGate: unknown,
    unchanged: UnchangedBasis,
  ): Promise<void> {
    await db('ingested_scans')
      .where({ scan_id: scanId })
      .update({
        findings,
        summary: JSON.stringify(summary),
        quality_gate: qualityGate === null ? null : JSON.stringify(qualityGate),
        ...unchanged,
      });
  },

  /** The check's latest ingestion before `scanId`, with what a re-import is compared with. */
  async previous(
    db: Queryable,
    checkId: string,
    scanId: string,
  ): Promise<(UnchangedBasis & { scan_id: string; summary: { created: number; updated: number } }) | undefined> {
    return db('ingested_scans')
      .where('check_id', checkId)
      .whereNot('scan_id', scanId)
      .orderBy('ingested_at', 'desc')
      .first('scan_id', 'summary', 'findings_digest', 'keying', 'issues');
  },
};
