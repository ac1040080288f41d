import { randomUUID } from 'node:crypto';
import { containing, iso, isUuid, pgArray, Queryable, queryPage } from '@bulwark/platform';
import type { DedupRule } from '../domain/match-key';

interface StatusRow {
  id: number;
  name_en: string;
  name_ru: string;
  builtin: boolean;
}
export interface StatusRecord {
  id: number;
  nameEn: string;
  nameRu: string;
  builtin: boolean;
}
const toStatusRecord = (r: StatusRow): StatusRecord => ({
  id: r.id,
  nameEn: r.name_en,
  nameRu: r.name_ru,
  builtin: r.builtin,
});

interface TransitionRow {
  id: string;
  from_status: number;
  to_status: number;
}
export interface TransitionRecord {
  id: string;
  fromStatus: number;
  toStatus: number;
}
const toTransitionRecord = (r: TransitionRow): TransitionRecord => ({
  id: r.id,
  fromStatus: r.from_status,
  toStatus: r.to_status,
});

export const statusStore = {
  async list(db: Queryable, q: { ids?: number[]; name?: string; invert?: boolean } = {}): Promise<StatusRecord[]> {
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
    return (await query).map(toStatusRecord);
  },

  async transitions(db: Queryable, from?: number[]): Promise<TransitionRecord[]> {
    const q = db<TransitionRow>('status_transitions').orderBy(['from_status', 'to_status']);
    if (from?.length) q.whereIn('from_status', from);
    return (await q).map(toTransitionRecord);
  },

  async addTransition(db: Queryable, from: number, to: number): Promise<TransitionRecord | undefined> {
    const rows = await db<TransitionRow>('status_transitions')
      .insert({ id: randomUUID(), from_status: from, to_status: to })
      .onConflict(['from_status', 'to_status'])
      .ignore()
      .returning('*');
    return rows[0] && toTransitionRecord(rows[0]);
  },

  async deleteTransitions(db: Queryable, ids: string[]): Promise<string[]> {
    const uuids = ids.filter(isUuid);
    if (uuids.length === 0) return [];
    return (await db('status_transitions').whereIn('id', uuids).delete().returning('id')).map(
      (r: { id: string }) => r.id,
    );
  },
};

interface DedupRuleRow {
  id: string;
  name: string;
  tool_name: string | null;
  fields: string[];
  scope: 'project' | 'layer';
  created_at: Date;
  updated_at: Date;
}
export interface DedupRuleRecord {
  id: string;
  name: string;
  toolName: string | null;
  fields: string[];
  scope: 'project' | 'layer';
  createdAt: string;
  updatedAt: string;
}
const toDedupRuleRecord = (r: DedupRuleRow): DedupRuleRecord => ({
  id: r.id,
  name: r.name,
  toolName: r.tool_name,
  fields: r.fields,
  scope: r.scope,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

export type DedupRuleWrite = Pick<DedupRuleRecord, 'name' | 'toolName' | 'fields'> & { scope: string };

export const dedupRuleStore = {
  async all(db: Queryable): Promise<DedupRule[]> {
    const rows = await db<DedupRuleRow>('dedup_rules');
    return rows.map((r) => ({ toolName: r.tool_name, fields: r.fields as DedupRule['fields'], scope: r.scope }));
  },

  async list(db: Queryable, q: { page: number; limit: number; name?: string }) {
    const base = db<DedupRuleRow>('dedup_rules');
    if (q.name) base.whereILike('name', containing(q.name));
    const { rows, total } = await queryPage<DedupRuleRow>(base, q, [{ column: 'name' }, { column: 'id' }]);
    return { items: rows.map(toDedupRuleRecord), total };
  },

  async get(db: Queryable, id: string): Promise<DedupRuleRecord | undefined> {
    const row = await db<DedupRuleRow>('dedup_rules').where({ id }).first();
    return row && toDedupRuleRecord(row);
  },

  /** The rule of this tool (null: the default rule) other than `exceptId`, as the unique index keys it. */
  async ofTool(db: Queryable, toolName: string | null, exceptId?: string): Promise<DedupRuleRecord | undefined> {
    const q = db<DedupRuleRow>('dedup_rules').whereRaw("coalesce(lower(tool_name), '') = ?", [
      (toolName ?? '').toLowerCase(),
    ]);
    if (exceptId) q.whereNot('id', exceptId);
    const row = await q.first();
    return row && toDedupRuleRecord(row);
  },

  async insert(db: Queryable, r: DedupRuleWrite): Promise<DedupRuleRecord> {
    const [row] = await db('dedup_rules')
      .insert({
        id: randomUUID(),
        name: r.name,
        tool_name: r.toolName,
        fields: db.raw('?::text[]', [pgArray(r.fields)]),
        scope: r.scope,
      })
      .returning<DedupRuleRow[]>('*');
    return toDedupRuleRecord(row);
  },

  async update(db: Queryable, id: string, r: DedupRuleWrite): Promise<DedupRuleRecord | undefined> {
    const [row] = await db('dedup_rules')
      .where({ id })
      .update({
        name: r.name,
        tool_name: r.toolName,
        fields: db.raw('?::text[]', [pgArray(r.fields)]),
        scope: r.scope,
        updated_at: db.fn.now(),
      })
      .returning<DedupRuleRow[]>('*');
    return row && toDedupRuleRecord(row);
  },

  async delete(db: Queryable, ids: string[]): Promise<string[]> {
    const uuids = ids.filter(isUuid);
    if (uuids.length === 0) return [];
    return (await db('dedup_rules').whereIn('id', uuids).delete().returning('id')).map((r: { id: string }) => r.id);
  },
};

/** What makes a later scan of the check an unchanged re-import of this one (null: never). */
export interface UnchangedBasis {
  findingsDigest: string | null;
  keying: string;
  issues: number;
}

interface PreviousIngestionRow {
  scan_id: string;
  summary: { created: number; updated: number };
  findings_digest: string | null;
  keying: string;
  issues: number;
}

/** A check's earlier ingestion, with what a re-import is compared with. */
export interface PreviousIngestion extends UnchangedBasis {
  scanId: string;
  summary: { created: number; updated: number };
}

export const ingestedStore = {
  /** Claims a scan for ingestion; false when it was ingested already. */
  async claim(
    db: Queryable,
    scan: { scanId: string; checkId: string; layerId: string; projectCode: string },
  ): Promise<boolean> {
    const rows = await db('ingested_scans')
      .insert({
        scan_id: scan.scanId,
        check_id: scan.checkId,
        layer_id: scan.layerId,
        project_code: scan.projectCode,
        findings: 0,
        summary: '{}',
      })
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
        findings_digest: unchanged.findingsDigest,
        keying: unchanged.keying,
        issues: unchanged.issues,
      });
  },

  /** The check's latest ingestion before `scanId`, with what a re-import is compared with. */
  async previous(db: Queryable, checkId: string, scanId: string): Promise<PreviousIngestion | undefined> {
    const row = await db('ingested_scans')
      .where('check_id', checkId)
      .whereNot('scan_id', scanId)
      .orderBy('ingested_at', 'desc')
      .first<PreviousIngestionRow | undefined>('scan_id', 'summary', 'findings_digest', 'keying', 'issues');
    return (
      row && {
        scanId: row.scan_id,
        summary: row.summary,
        findingsDigest: row.findings_digest,
        keying: row.keying,
        issues: row.issues,
      }
    );
  },
};
