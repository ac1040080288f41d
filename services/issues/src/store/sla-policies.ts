import { randomUUID } from 'node:crypto';
import { containing, iso, isUuid, pgArray, Queryable, recordsById } from '@bulwark/platform';
import type { SlaDays } from '../domain/sla';
import { pageByName } from './name-pages';

/** The day columns of a policy, and of a project's resolved days (sla_project_days). */
export interface SlaDaysRow {
  days_critical: number | null;
  days_high: number | null;
  days_medium: number | null;
  days_low: number | null;
  days_info: number | null;
  known_exploited_days: number | null;
}

export const slaDaysOf = (r: SlaDaysRow): SlaDays => ({
  critical: r.days_critical,
  high: r.days_high,
  medium: r.days_medium,
  low: r.days_low,
  info: r.days_info,
});

interface SlaPolicyRow extends SlaDaysRow {
  id: string;
  name: string;
  author: string;
  project_tags: string[];
  project_codes: string[];
  created_at: Date;
  updated_at: Date;
}

export interface SlaPolicyRecord {
  id: string;
  name: string;
  author: string;
  projectTags: string[];
  projectCodes: string[];
  days: SlaDays;
  knownExploitedDays: number | null;
  createdAt: string;
  updatedAt: string;
}
export type SlaPolicyWrite = Pick<
  SlaPolicyRecord,
  'name' | 'projectTags' | 'projectCodes' | 'days' | 'knownExploitedDays'
>;

const toRecord = (r: SlaPolicyRow): SlaPolicyRecord => ({
  id: r.id,
  name: r.name,
  author: r.author,
  projectTags: r.project_tags,
  projectCodes: r.project_codes,
  days: slaDaysOf(r),
  knownExploitedDays: r.known_exploited_days,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

const columns = (db: Queryable, p: SlaPolicyWrite) => ({
  name: p.name,
  project_tags: db.raw('?::text[]', [pgArray(p.projectTags)]),
  project_codes: db.raw('?::text[]', [pgArray(p.projectCodes)]),
  days_critical: p.days.critical,
  days_high: p.days.high,
  days_medium: p.days.medium,
  days_low: p.days.low,
  days_info: p.days.info,
  known_exploited_days: p.knownExploitedDays,
});

const named = (db: Queryable, name?: string) => {
  const q = db<SlaPolicyRow>('sla_policies');
  if (name) q.whereILike('name', containing(name));
  return q;
};

export const slaPolicyStore = {
  async insert(db: Queryable, p: SlaPolicyWrite & { author: string }): Promise<SlaPolicyRecord> {
    const [row] = await db('sla_policies')
      .insert({ id: randomUUID(), author: p.author, ...columns(db, p) })
      .returning<SlaPolicyRow[]>('*');
    return toRecord(row);
  },

  async update(db: Queryable, id: string, p: SlaPolicyWrite): Promise<SlaPolicyRecord | undefined> {
    const [row] = await db('sla_policies')
      .where({ id })
      .update({ ...columns(db, p), updated_at: db.fn.now() })
      .returning<SlaPolicyRow[]>('*');
    return row ? toRecord(row) : undefined;
  },

  list: (db: Queryable, q: { name?: string; page: number; limit: number }) =>
    pageByName(named(db, q.name), q, toRecord),

  /** Every policy the name matches, in the list's order (at most `limit`). */
  async matching(db: Queryable, q: { name?: string }, limit: number): Promise<SlaPolicyRecord[]> {
    return (await named(db, q.name).orderBy('name').orderBy('id').limit(limit)).map(toRecord);
  },

  getMany: (db: Queryable, ids: string[]) => recordsById(db, 'sla_policies', ids, toRecord),

  async delete(db: Queryable, ids: string[]): Promise<string[]> {
    const uuids = ids.filter(isUuid);
    if (uuids.length === 0) return [];
    return (await db('sla_policies').whereIn('id', uuids).delete().returning('id')).map((r: { id: string }) => r.id);
  },
};
