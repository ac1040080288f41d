import { randomUUID } from 'node:crypto';
import { containing, iso, json, Queryable, isUuid } from '@bulwark/platform';
import type { RuleParams } from '../domain/rules';

export interface SecurityRuleRow {
  id: string;
  name: string;
  rule_params: RuleParams;
  suppressing_status: number;
  expiry_status: number;
  expires_at: Date | null;
  expired: boolean;
  author: string;
  created_at: Date;
  updated_at: Date;
}

export interface SecurityRuleQuery {
  suppressingStatus?: number[];
  expiryStatus?: number[];
  expired?: boolean;
  instrumentType?: string[];
  toolTypeName?: string[];
  cve?: string[];
  cwe?: string[];
  name?: string;
  author?: string;
}

const fromRow = (r: SecurityRuleRow): SecurityRuleRow => ({ ...r, rule_params: json(r.rule_params) });

function filtered(db: Queryable, q: SecurityRuleQuery) {
  const base = db('security_rules');
  if (q.suppressingStatus?.length) base.whereIn('suppressing_status', q.suppressingStatus);
  if (q.expiryStatus?.length) base.whereIn('expiry_status', q.expiryStatus);
  if (q.expired !== undefined) base.where('expired', q.expired);
  const param = (key: string, values?: string[]) => {
    if (values?.length)
      base.whereRaw(
        `lower(rule_params->>'${key}') in (${values.map(() => '?').join(', ')})`,
        values.map((v) => v.toLowerCase()),
      );
  };
  param('instrument_type', q.instrumentType);
  param('tool_type_name', q.toolTypeName);
  param('cve', q.cve);
  param('cwe', q.cwe);
  if (q.name) base.whereILike('name', containing(q.name));
  if (q.author) base.whereILike('author', containing(q.author));
  return base;
}

export const securityRuleStore = {
  /** Active rules (not expired), for ingestion. */
  async active(db: Queryable): Promise<SecurityRuleRow[]> {
    return (await db('security_rules').where('expired', false).orderBy('created_at')).map(fromRow);
  },

  async list(db: Queryable, q: SecurityRuleQuery & { page: number; limit: number }) {
    const base = filtered(db, q);
    const [{ n }] = await base.clone().count({ n: '*' });
    const items = (
      await base
        .orderBy('created_at', 'desc')
        .orderBy('id')
        .offset((q.page - 1) * q.limit)
        .limit(q.limit)
    ).map(fromRow);
    return { items, total: Number(n) };
  },

  async filterValues(db: Queryable, q: SecurityRuleQuery) {
    const rows = (await filtered(db, q).select('*').limit(10000)).map(fromRow);
    const uniq = <T>(v: (T | undefined)[]) => [...new Set(v.filter((x): x is T => x !== undefined && x !== ''))].sort();
    return {
      suppressing_status: uniq(rows.map((r) => r.suppressing_status)),
      expiry_status: uniq(rows.map((r) => r.expiry_status)),
      instrument_type: uniq(rows.map((r) => r.rule_params.instrument_type)),
      tool_type_name: uniq(rows.map((r) => r.rule_params.tool_type_name)),
      category: uniq(rows.map((r) => r.rule_params.category)),
      cve: uniq(rows.map((r) => r.rule_params.cve)),
      cwe: uniq(rows.map((r) => (r.rule_params.cwe === undefined ? undefined : String(r.rule_params.cwe)))),
      author: uniq(rows.map((r) => r.author)),
    };
  },

  async get(db: Queryable, id: string): Promise<SecurityRuleRow | undefined> {
    const row = await db<SecurityRuleRow>('security_rules').where({ id }).first();
    return row ? fromRow(row) : undefined;
  },

  async insert(
    db: Queryable,
    r: Omit<SecurityRuleRow, 'id' | 'created_at' | 'updated_at' | 'expired' | 'expires_at'> & {
      expires_at: string | null;
    },
  ): Promise<SecurityRuleRow> {
    const [row] = await db('security_rules')
      .insert({ id: randomUUID(), ...r, rule_params: JSON.stringify(r.rule_params) })
      .returning<SecurityRuleRow[]>('*');
    return fromRow(row);
  },

  async update(
    db: Queryable,
    id: string,
    r: Pick<SecurityRuleRow, 'name' | 'rule_params' | 'suppressing_status' | 'expiry_status'> & {
      expires_at: string | null;
    },
  ): Promise<SecurityRuleRow | undefined> {
    const [row] = await db('security_rules')
      .where({ id })
      .update({ ...r, rule_params: JSON.stringify(r.rule_params), expired: false, updated_at: db.fn.now() })
      .returning<SecurityRuleRow[]>('*');
    return row ? fromRow(row) : undefined;
  },

  async delete(db: Queryable, ids: string[]): Promise<string[]> {
    const uuids = ids.filter(isUuid);
    if (uuids.length === 0) return [];
    return (await db('security_rules').whereIn('id', uuids).delete().returning('id')).map((r: { id: string }) => r.id);
  },

  /** Rules whose expiry has come, locked so that one replica expires each. */
  async due(db: Queryable, now: string, limit: number): Promise<SecurityRuleRow[]> {
    return (
      await db('security_rules')
        .where('expired', false)
        .whereNotNull('expires_at')
        .where('expires_at', '<=', now)
        .orderBy('expires_at')
        .limit(limit)
        .forUpdate()
        .skipLocked()
    ).map(fromRow);
  },

  async markExpired(db: Queryable, id: string): Promise<void> {
    await db('security_rules').where({ id }).update({ expired: true, updated_at: db.fn.now() });
  },
};

export const securityRuleView = (r: SecurityRuleRow) => ({
  id: r.id,
  name: r.name,
  rule_params: r.rule_params as Record<string, unknown>,
  suppressing_status: r.suppressing_status,
  expiry_status: r.expiry_status,
  expires_at: iso(r.expires_at),
  expired: r.expired,
  author: r.author,
  created_at: iso(r.created_at)!,
  updated_at: iso(r.updated_at)!,
});
