/** Timestamps come back as Date from pg and PGlite alike; the API speaks ISO 8601 UTC. */
export function iso(value: Date | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return new Date(value).toISOString();
}

/** jsonb comes back parsed from both drivers, but stays tolerant of text. */
export function json<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether a text is a UUID. Checked before an id reaches a uuid column: PostgreSQL refuses the cast,
 * and a refused statement inside a transaction aborts the whole transaction.
 */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}
