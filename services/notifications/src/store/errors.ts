import type { Knex } from 'knex';
import { ErrorLevel, ErrorRecordedPayload, containing, iso, json, pgArray, Queryable } from '@bulwark/platform';

/** A stored record: the event's payload under the bus event's id. */
export type ErrorLogRow = ErrorRecordedPayload & { id: string };

export interface ErrorQuery {
  services?: string[];
  codes?: string[];
  levels?: ErrorLevel[];
  from?: string;
  to?: string;
  message?: string;
  messageRu?: string;
}

/** Where a page of the newest-first order ends: the next page starts after it. */
export interface ErrorCursor {
  occurredAt: string;
  id: string;
}

/** A record as the driver returns it: the time as Date, details as jsonb. */
type ErrorLogRecord = Omit<ErrorLogRow, 'occurred_at' | 'details'> & { occurred_at: Date; details: unknown };

const fromRow = (r: ErrorLogRecord): ErrorLogRow => ({
  ...r,
  details: json(r.details),
  occurred_at: iso(r.occurred_at)!,
});

function filtered(db: Queryable, q: ErrorQuery): Knex.QueryBuilder {
  const base = db('error_log');
  if (q.services?.length) base.whereRaw('service = any(?::text[])', [pgArray(q.services)]);
  if (q.codes?.length) base.whereRaw('code = any(?::text[])', [pgArray(q.codes)]);
  if (q.levels?.length) base.whereRaw('level = any(?::text[])', [pgArray(q.levels)]);
  if (q.from) base.where('occurred_at', '>=', q.from);
  if (q.to) base.where('occurred_at', '<=', q.to);
  if (q.message) base.whereRaw("message ilike ? escape '\\'", [containing(q.message)]);
  if (q.messageRu) base.whereRaw("message_ru ilike ? escape '\\'", [containing(q.messageRu)]);
  return base;
}

export const errorStore = {
  /** Records an error once: the id is the bus event's, so a redelivered event changes nothing. */
  async record(db: Queryable, e: ErrorLogRow): Promise<void> {
    await db('error_log')
      .insert({ ...e, details: JSON.stringify(e.details) })
      .onConflict('id')
      .ignore();
  },

  /** Drops errors older than `days`; answers how many. */
  async purge(db: Queryable, days: number): Promise<number> {
    const { rows } = await db.raw<{ rows: { n: number }[] }>(
      `with gone as (delete from error_log where occurred_at < now() - make_interval(days => ?) returning 1) select count(*)::int as n from gone`,
      [days],
    );
    return rows[0].n;
  },

  async list(db: Queryable, q: ErrorQuery & { page: number; limit: number }) {
    const base = filtered(db, q);
    const [{ n }] = await base.clone().count<{ n: string | number }[]>({ n: '*' });
    const rows = await base
      .select<ErrorLogRecord[]>('*')
      .orderBy('occurred_at', 'desc')
      .orderBy('id', 'desc')
      .offset((q.page - 1) * q.limit)
      .limit(q.limit);
    return { items: rows.map(fromRow), total: Number(n) };
  },

  /** One page of the newest-first order after `after` (keyset: as fast deep in the log as at its start). */
  async pageAfter(db: Queryable, q: ErrorQuery, after: ErrorCursor | undefined, limit: number): Promise<ErrorLogRow[]> {
    const base = filtered(db, q);
    if (after) base.whereRaw('(occurred_at, id) < (?::timestamptz, ?::uuid)', [after.occurredAt, after.id]);
    return (
      await base.select<ErrorLogRecord[]>('*').orderBy('occurred_at', 'desc').orderBy('id', 'desc').limit(limit)
    ).map(fromRow);
  },

  /** The services, codes and levels present, and the first and last time, within a date range. */
  async filterValues(db: Queryable, q: Pick<ErrorQuery, 'from' | 'to'>) {
    const distinct = async (column: 'service' | 'code' | 'level') =>
      (await filtered(db, q).distinct(column).orderBy(column)).map((r: Record<string, string>) => r[column]);
    const services = await distinct('service');
    const codes = await distinct('code');
    const levels = (await distinct('level')) as ErrorLevel[];
    const range = (await filtered(db, q).min({ first: 'occurred_at' }).max({ last: 'occurred_at' }).first()) as
      { first: Date | null; last: Date | null } | undefined;
    return { services, codes, levels, occurred_at: { first: iso(range?.first), last: iso(range?.last) } };
  },
};
