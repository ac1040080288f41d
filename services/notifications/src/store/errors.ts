import type { Knex } from 'knex';
import { containing, ErrorDetails, ErrorLevel, iso, json, pgArray, Queryable, queryPage } from '@bulwark/platform';

/** One record of the error log, under the id of the bus event that carried it. */
export interface ErrorLogRecord {
  id: string;
  occurredAt: string;
  service: string;
  level: ErrorLevel;
  code: string;
  message: string;
  messageRu: string;
  subject: string | null;
  route: string | null;
  requestId: string | null;
  details: ErrorDetails;
}

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

/** The services, codes and levels present within a date range, and its first and last time. */
export interface ErrorFilterValues {
  services: string[];
  codes: string[];
  levels: ErrorLevel[];
  occurredAt: { first: string | null; last: string | null };
}

/** A row as the driver returns it: the time as Date, details as jsonb. */
interface ErrorLogRow {
  id: string;
  occurred_at: Date;
  service: string;
  level: ErrorLevel;
  code: string;
  message: string;
  message_ru: string;
  subject: string | null;
  route: string | null;
  request_id: string | null;
  details: unknown;
}

const toRecord = (r: ErrorLogRow): ErrorLogRecord => ({
  id: r.id,
  occurredAt: iso(r.occurred_at),
  service: r.service,
  level: r.level,
  code: r.code,
  message: r.message,
  messageRu: r.message_ru,
  subject: r.subject,
  route: r.route,
  requestId: r.request_id,
  details: json(r.details),
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
  async record(db: Queryable, e: ErrorLogRecord): Promise<void> {
    await db('error_log')
      .insert({
        id: e.id,
        occurred_at: e.occurredAt,
        service: e.service,
        level: e.level,
        code: e.code,
        message: e.message,
        message_ru: e.messageRu,
        subject: e.subject,
        route: e.route,
        request_id: e.requestId,
        details: JSON.stringify(e.details),
      })
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
    const { rows, total } = await queryPage<ErrorLogRow>(base, q, [
      { column: 'occurred_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ]);
    return { items: rows.map(toRecord), total };
  },

  /** One page of the newest-first order after `after` (keyset: as fast deep in the log as at its start). */
  async pageAfter(
    db: Queryable,
    q: ErrorQuery,
    after: ErrorCursor | undefined,
    limit: number,
  ): Promise<ErrorLogRecord[]> {
    const base = filtered(db, q);
    if (after) base.whereRaw('(occurred_at, id) < (?::timestamptz, ?::uuid)', [after.occurredAt, after.id]);
    return (
      await base.select<ErrorLogRow[]>('*').orderBy('occurred_at', 'desc').orderBy('id', 'desc').limit(limit)
    ).map(toRecord);
  },

  /** The services, codes and levels present, and the first and last time, within a date range. */
  async filterValues(db: Queryable, q: Pick<ErrorQuery, 'from' | 'to'>): Promise<ErrorFilterValues> {
    const distinct = async (column: 'service' | 'code' | 'level') =>
      (await filtered(db, q).distinct(column).orderBy(column)).map((r: Record<string, string>) => r[column]);
    const services = await distinct('service');
    const codes = await distinct('code');
    const levels = (await distinct('level')) as ErrorLevel[];
    const range = (await filtered(db, q).min({ first: 'occurred_at' }).max({ last: 'occurred_at' }).first()) as
      { first: Date | null; last: Date | null } | undefined;
    return { services, codes, levels, occurredAt: { first: iso(range?.first), last: iso(range?.last) } };
  },
};
