import { randomUUID } from 'node:crypto';
import { containing, iso, isUuid, json, pgArray, Queryable, queryPage, recordsById } from '@bulwark/platform';

/** A quality gate a policy applies, as the policy's JSON document (and the API) holds it. */
export interface PolicyGate {
  quality_gate_id: string;
  action: 'lock' | 'inform';
}
interface PolicyRow {
  id: string;
  name: string;
  description: string;
  author: string;
  project_tags: string[];
  quality_gates: unknown;
  created_at: Date;
  updated_at: Date;
}
export interface PolicyRecord {
  id: string;
  name: string;
  description: string;
  author: string;
  projectTags: string[];
  qualityGates: PolicyGate[];
  createdAt: string;
  updatedAt: string;
}
export type PolicyWrite = Pick<PolicyRecord, 'name' | 'description' | 'projectTags' | 'qualityGates'>;

const toPolicyRecord = (r: PolicyRow): PolicyRecord => ({
  id: r.id,
  name: r.name,
  description: r.description,
  author: r.author,
  projectTags: r.project_tags,
  qualityGates: json<PolicyGate[]>(r.quality_gates),
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

interface PolicyQuery {
  author?: string;
  name?: string;
  /** Matches a project tag of the policy. */
  project?: string;
  /** Only these tags count for `project` (null: every tag). */
  tags?: readonly string[] | null;
}

function policiesMatching(db: Queryable, q: PolicyQuery) {
  const base = db<PolicyRow>('policies');
  if (q.author) base.whereILike('author', containing(q.author));
  if (q.name) base.whereILike('name', containing(q.name));
  if (q.project)
    base.whereRaw(
      `exists (select 1 from unnest(project_tags) t where t ilike ? escape '\\'${q.tags ? ' and t = any(?::text[])' : ''})`,
      [containing(q.project), ...(q.tags ? [pgArray([...q.tags])] : [])],
    );
  return base;
}

export const policyStore = {
  async insert(db: Queryable, p: PolicyWrite & { author: string }): Promise<PolicyRecord> {
    const [row] = await db('policies')
      .insert({
        id: randomUUID(),
        name: p.name,
        description: p.description,
        author: p.author,
        project_tags: db.raw('?::text[]', [pgArray(p.projectTags)]),
        quality_gates: JSON.stringify(p.qualityGates),
      })
      .returning<PolicyRow[]>('*');
    return toPolicyRecord(row);
  },

  async update(db: Queryable, id: string, p: PolicyWrite): Promise<PolicyRecord | undefined> {
    const [row] = await db('policies')
      .where({ id })
      .update({
        name: p.name,
        description: p.description,
        project_tags: db.raw('?::text[]', [pgArray(p.projectTags)]),
        quality_gates: JSON.stringify(p.qualityGates),
        updated_at: db.fn.now(),
      })
      .returning<PolicyRow[]>('*');
    return row ? toPolicyRecord(row) : undefined;
  },

  async list(db: Queryable, q: PolicyQuery & { page: number; limit: number }) {
    const base = policiesMatching(db, q);
    const { rows, total } = await queryPage<PolicyRow>(base, q, [{ column: 'name' }, { column: 'id' }]);
    return { items: rows.map(toPolicyRecord), total };
  },

  /** Every policy the query matches, in the list's order (at most `limit`). */
  async matching(db: Queryable, q: PolicyQuery, limit: number): Promise<PolicyRecord[]> {
    return (await policiesMatching(db, q).orderBy('name').orderBy('id').limit(limit)).map(toPolicyRecord);
  },

  getMany: (db: Queryable, ids: string[]) => recordsById(db, 'policies', ids, toPolicyRecord),

  /** The policies that apply any of these gates. */
  async including(db: Queryable, gateIds: string[]): Promise<PolicyRecord[]> {
    if (gateIds.length === 0) return [];
    return (
      await db<PolicyRow>('policies').whereRaw(
        "exists (select 1 from jsonb_array_elements(quality_gates) g where g->>'quality_gate_id' = any(?::text[]))",
        [pgArray(gateIds)],
      )
    ).map(toPolicyRecord);
  },

  /** Policies that apply to a project with these tags. */
  async forTags(db: Queryable, tags: string[]): Promise<PolicyRecord[]> {
    if (tags.length === 0) return [];
    return (await db<PolicyRow>('policies').whereRaw('project_tags && ?::text[]', [pgArray(tags)])).map(toPolicyRecord);
  },

  async delete(db: Queryable, ids: string[]): Promise<string[]> {
    const uuids = ids.filter(isUuid);
    if (uuids.length === 0) return [];
    return (await db('policies').whereIn('id', uuids).delete().returning('id')).map((r: { id: string }) => r.id);
  },
};
