import type { Knex } from 'knex';
import { containing, iso, json, pgArray, Queryable, queryPage } from '@bulwark/platform';

/** One event of the events log. */
export interface SecurityEventRecord {
  id: string;
  type: string;
  projectCode: string | null;
  message: string;
  messageRu: string;
  data: Record<string, unknown>;
  occurredAt: string;
}

export interface EventQuery {
  message?: string;
  messageRu?: string;
  type?: string;
  projectCode?: string;
}

/** A row as the driver returns it: the time as Date, data as jsonb. */
interface SecurityEventRow {
  id: string;
  type: string;
  project_code: string | null;
  message: string;
  message_ru: string;
  data: unknown;
  occurred_at: Date;
}

const toRecord = (r: SecurityEventRow): SecurityEventRecord => ({
  id: r.id,
  type: r.type,
  projectCode: r.project_code,
  message: r.message,
  messageRu: r.message_ru,
  data: json(r.data),
  occurredAt: iso(r.occurred_at),
});

function filtered(db: Queryable, projects: string[] | null, q: EventQuery): Knex.QueryBuilder {
  const base = db('security_events');
  // Events of no single project (a report over several) are for callers who see every project.
  if (projects !== null) base.whereRaw('project_code = any(?::text[])', [pgArray(projects)]);
  if (q.message) base.whereRaw("message ilike ? escape '\\'", [containing(q.message)]);
  if (q.messageRu) base.whereRaw("message_ru ilike ? escape '\\'", [containing(q.messageRu)]);
  if (q.type) base.where('type', q.type);
  if (q.projectCode) base.where('project_code', q.projectCode);
  return base;
}

export const eventStore = {
  /** Records an event once (a redelivered bus event has the same id); false when it was there already. */
  async record(db: Queryable, e: SecurityEventRecord): Promise<boolean> {
    const rows = await db('security_events')
      .insert({
        id: e.id,
        type: e.type,
        project_code: e.projectCode,
        message: e.message,
        message_ru: e.messageRu,
        data: JSON.stringify(e.data),
        occurred_at: e.occurredAt,
      })
      .onConflict('id')
      .ignore()
      .returning('id');
    return rows.length > 0;
  },

  /** Drops events older than `days`, with their deliveries, except those still being delivered. */
  async purge(db: Queryable, days: number): Promise<number> {
    const { rows } = await db.raw<{ rows: { n: number }[] }>(
      `with gone as (
         delete from security_events e where e.occurred_at < now() - make_interval(days => ?)
         and not exists (select 1 from deliveries d where d.event_id = e.id and d.state = 'pending') returning 1
       ) select count(*)::int as n from gone`,
      [days],
    );
    return rows[0].n;
  },

  async getMany(db: Queryable, ids: string[]): Promise<Map<string, SecurityEventRecord>> {
    const rows = ids.length
      ? await db<SecurityEventRow>('security_events').whereRaw('id = any(?::uuid[])', [pgArray([...new Set(ids)])])
      : [];
    return new Map(rows.map((r) => [r.id, toRecord(r)]));
  },

  async list(db: Queryable, projects: string[] | null, q: EventQuery & { page: number; limit: number }) {
    const base = filtered(db, projects, q);
    const { rows, total } = await queryPage<SecurityEventRow>(base, q, [
      { column: 'occurred_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ]);
    return { items: rows.map(toRecord), total };
  },

  async newest(db: Queryable, projects: string[] | null, q: EventQuery, limit: number): Promise<SecurityEventRecord[]> {
    return (
      await filtered(db, projects, q)
        .select<SecurityEventRow[]>('*')
        .orderBy('occurred_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
    ).map(toRecord);
  },
};
