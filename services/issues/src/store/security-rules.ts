import { randomUUID } from 'node:crypto';
import { containing, iso, isUuid, json, Queryable, queryPage, recordsById } from '@bulwark/platform';
import type { RuleParams } from '../domain/rules';

interface SecurityRuleRow {
  id: string;
  name: string;
  rule_params: unknown;
  suppressing_status: number;
  expiry_status: number;
  expires_at: Date | null;
  expired: boolean;
  author: string;
  created_at: Date;
  updated_at: Date;
}

/** A security rule; its parameters are the JSON document the API reads and writes. */
export interface SecurityRuleRecord {
  id: string;
  name: string;
  ruleParams: RuleParams;
  suppressingStatus: number;
  expiryStatus: number;
  expiresAt: string | null;
  expired: boolean;
  author: string;
  createdAt: string;
  updatedAt: string;
}

export type SecurityRuleWrite = Pick<
  SecurityRuleRecord,
  'name' | 'ruleParams' | 'suppressingStatus' | 'expiryStatus' | 'expiresAt'
>;

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

const toSecurityRuleRecord = (r: SecurityRuleRow): SecurityRuleRecord => ({
  id: r.id,
  name: r.name,
  ruleParams: json<RuleParams>(r.rule_params),
  suppressingStatus: r.suppressing_status,
  expiryStatus: r.expiry_status,
  expiresAt: iso(r.expires_at),
  expired: r.expired,
  author: r.author,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

const columns = (r: SecurityRuleWrite) => ({
  name: r.name,
  rule_params: JSON.stringify(r.ruleParams),
  suppressing_status: r.suppressingStatus,
  expiry_status: r.expiryStatus,
  expires_at: r.expiresAt,
});

function filtered(db: Queryable, q: SecurityRuleQuery) {
  const base = db<SecurityRuleRow>('security_rules');
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
  async active(db: Queryable): Promise<SecurityRuleRecord[]> {
    return (await db<SecurityRuleRow>('security_rules').where('expired', false).orderBy('created_at')).map(
      toSecurityRuleRecord,
    );
  },

  async list(db: Queryable, q: SecurityRuleQuery & { page: number; limit: number }) {
    const base = filtered(db, q);
    const { rows, total } = await queryPage<SecurityRuleRow>(base, q, [
      { column: 'created_at', order: 'desc' },
      { column: 'id' },
    ]);
    return { items: rows.map(toSecurityRuleRecord), total };
  },

  /** Every rule the query matches, in the list's order (at most `limit`). */
  async matching(db: Queryable, q: SecurityRuleQuery, limit: number): Promise<SecurityRuleRecord[]> {
    return (await filtered(db, q).orderBy('created_at', 'desc').orderBy('id').limit(limit)).map(toSecurityRuleRecord);
  },

  getMany: (db: Queryable, ids: string[]) => recordsById(db, 'security_rules', ids, toSecurityRuleRecord),

  async get(db: Queryable, id: string): Promise<SecurityRuleRecord | undefined> {
    const row = await db<SecurityRuleRow>('security_rules').where({ id }).first();
    return row ? toSecurityRuleRecord(row) : undefined;
  },

  async insert(db: Queryable, r: SecurityRuleWrite & { author: string }): Promise<SecurityRuleRecord> {
    const [row] = await db('security_rules')
      .insert({ id: randomUUID(), ...columns(r), author: r.author })
      .returning<SecurityRuleRow[]>('*');
    return toSecurityRuleRecord(row);
  },

  async update(db: Queryable, id: string, r: SecurityRuleWrite): Promise<SecurityRuleRecord | undefined> {
    const [row] = await db('security_rules')
      .where({ id })
      .update({ ...columns(r), expired: false, updated_at: db.fn.now() })
      .returning<SecurityRuleRow[]>('*');
    return row ? toSecurityRuleRecord(row) : undefined;
  },

  async delete(db: Queryable, ids: string[]): Promise<string[]> {
    const uuids = ids.filter(isUuid);
    if (uuids.length === 0) return [];
    return (await db('security_rules').whereIn('id', uuids).delete().returning('id')).map((r: { id: string }) => r.id);
  },

  /** Rules whose expiry has come, locked so that one replica expires each. */
  async due(db: Queryable, now: string, limit: number): Promise<SecurityRuleRecord[]> {
    return (
      await db<SecurityRuleRow>('security_rules')
        .where('expired', false)
        .whereNotNull('expires_at')
        .where('expires_at', '<=', now)
        .orderBy('expires_at')
        .limit(limit)
        .forUpdate()
        .skipLocked()
    ).map(toSecurityRuleRecord);
  },

  async markExpired(db: Queryable, id: string): Promise<void> {
    await db('security_rules').where({ id }).update({ expired: true, updated_at: db.fn.now() });
  },
};
