import type { Knex } from 'knex';
import type { Queryable } from './database';

/** The text `Date.toISOString()` writes. */
const ISO_TEXT = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/**
 * Timestamps come back as Date from pg (or as this text already, from a statement read with
 * `ISO_TIMESTAMPS`); the API speaks ISO 8601 UTC. A NOT NULL column gives a string.
 */
export function iso(value: Date | string): string;
export function iso(value: Date | string | null | undefined): string | null;
export function iso(value: Date | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  return ISO_TEXT.test(value) ? value : new Date(value).toISOString();
}

/** jsonb comes back parsed from both drivers, but stays tolerant of text. */
export function json<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** The LIKE/ILIKE pattern of a search: values containing the text, its wildcards taken literally. */
export const containing = (text: string): string => `%${escapeLike(text)}%`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether a text is a UUID. Checked before an id reaches a uuid column: PostgreSQL refuses the cast,
 * and a refused statement inside a transaction aborts the whole transaction.
 */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** The records of `table` with these ids, by id; an id that is no UUID names none. */
export async function recordsById<R extends { id: string }, T>(
  db: Queryable,
  table: string,
  ids: readonly string[],
  toRecord: (row: R) => T,
): Promise<Map<string, T>> {
  const uuids = ids.filter(isUuid);
  if (uuids.length === 0) return new Map();
  const rows = (await db(table).whereIn('id', uuids)) as R[];
  return new Map(rows.map((r) => [r.id, toRecord(r)]));
}

/**
 * A PostgreSQL array literal (`{"a","b",NULL}`) of the values, for a `?::text[]`-style parameter:
 * one text parameter carries a whole column. Nested arrays become nested
 * literals (pass them as `text[]` and cast each element), objects become JSON text.
 */
export function pgArray(values: readonly unknown[]): string {
  let out = '{';
  for (let i = 0; i < values.length; i++) out += (i ? ',' : '') + arrayElement(values[i]);
  return `${out}}`;
}

const NEEDS_ESCAPE = /[\\"]/;

function arrayElement(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  // Numbers and booleans need no quotes; everything else is quoted, so no text can read as NULL or a delimiter.
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  const text =
    typeof value === 'string'
      ? value
      : Array.isArray(value)
        ? pgArray(value)
        : value instanceof Date
          ? value.toISOString()
          : typeof value === 'object'
            ? JSON.stringify(value)
            : // eslint-disable-next-line @typescript-eslint/no-base-to-string -- objects are handled before: what is left is a bigint
              String(value);
  return NEEDS_ESCAPE.test(text) ? `"${text.replace(/[\\"]/g, '\\$&')}"` : `"${text}"`;
}

/** A column of {@link unnestRows}: its name and SQL type (`uuid`, `text`, `int[]`, `jsonb`...). */
export type ColumnTypes<T> = { [K in keyof T]?: string };

type Scalar = string | number | boolean | null;
const isScalar = (v: unknown): v is Scalar | undefined =>
  v === null || v === undefined || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/**
 * Rows as a derived table `(...) as <alias>` with typed columns, sent as one array parameter per
 * column and read back with `unnest`. PostgreSQL parses typed arrays several times faster than it
 * decodes the same rows from JSON, which is what bulk ingestion spends its time on. A column with
 * one value in every row (the scan, the time of a batch) travels once, as a scalar.
 */
export function unnestRows<T extends object>(
  rows: readonly T[],
  columns: ColumnTypes<T>,
  alias = 'v',
): { sql: string; bindings: Scalar[] } {
  const cols = Object.entries(columns as Record<string, string>);
  const value = (r: T, name: string) => (r as Record<string, unknown>)[name];
  const constant = cols.map(([name]) => {
    if (rows.length < 2) return false;
    const first = value(rows[0], name);
    return isScalar(first) && rows.every((r) => value(r, name) === first);
  });
  // unnest needs one array to count the rows by.
  if (constant.every(Boolean)) constant[0] = false;
  const arrays: string[] = [];
  const scalars: Scalar[] = [];
  const params: string[] = [];
  const select = cols.map(([name, type], i) => {
    const first = constant[i] ? value(rows[0], name) : undefined;
    if (constant[i] && isScalar(first)) {
      scalars.push(first ?? null);
      return `?::${type} as ${name}`;
    }
    arrays.push(pgArray(rows.map((r) => value(r, name))));
    // Array-typed columns travel as text[] of literals (PostgreSQL arrays cannot be ragged) and are cast per row.
    params.push(type.endsWith('[]') ? '?::text[]' : `?::${type}[]`);
    const c = `u.c${params.length - 1}`;
    return type.endsWith('[]') ? `${c}::${type} as ${name}` : `${c} as ${name}`;
  });
  const names = params.map((_, i) => `c${i}`).join(', ');
  return {
    sql: `(select ${select.join(', ')} from unnest(${params.join(', ')}) as u(${names})) as ${alias}`,
    bindings: [...scalars, ...arrays],
  };
}

/**
 * Narrows a query to the records wholly within a caller's projects among those that cover several
 * (columns `project_codes` and `all_projects`): every one of their projects must be the caller's, and
 * one of all projects only a caller of every project gets. `null`: every project. The SQL form of
 * `mayChangeProjectSet` (project-scope.ts); reports are read under it too, since their content is
 * their projects' issues, which showing a caller only its own codes would not hide.
 */
export function withinProjects(q: Knex.QueryBuilder, projects: string[] | null): Knex.QueryBuilder {
  if (projects === null) return q;
  return q.where('all_projects', false).whereRaw('project_codes <@ ?::text[]', [pgArray(projects)]);
}

/**
 * Narrows a query to the records touching a caller's projects among those that cover several
 * (columns `project_codes` and `all_projects`): those of every project, and those naming one of the
 * caller's. `null`: every project. The SQL form of `touchesProjectSet` (project-scope.ts), for lists
 * that page; their views show only the caller's codes (`visibleProjectSet`).
 */
export function touchingProjects(q: Knex.QueryBuilder, projects: string[] | null): Knex.QueryBuilder {
  if (projects === null) return q;
  return q.where((w) => {
    w.where('all_projects', true).orWhereRaw('project_codes && ?::text[]', [pgArray(projects)]);
  });
}
