import pg from 'pg';

const TIMESTAMPTZ = 1184;
/** A type's parser, as the driver's types give it (they declare it `any`). */
type TypeParser = (text: string) => unknown;
const driverParser = (oid: number, format?: 'text' | 'binary'): TypeParser =>
  pg.types.getTypeParser(oid, format) as TypeParser;
/** PostgreSQL's text of a UTC timestamptz with a four-digit year: `2026-11-29 12:00:00.123456+00`. */
const UTC_TEXT = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)(\.\d+)?\+00$/;

/**
 * A timestamptz as the API writes it (`Date.toISOString()`), straight from PostgreSQL's text: what the
 * driver's parse into a Date and `iso()` would give, without the Date. The milliseconds are the
 * fraction's first three digits, which is what the driver's parse keeps of PostgreSQL's six. Any other
 * text (another time zone, years beyond four digits, infinity) takes the driver's parse.
 */
export function isoTimestamp(text: string): string {
  const m = UTC_TEXT.exec(text);
  if (!m) return (driverParser(TIMESTAMPTZ, 'text')(text) as Date).toISOString();
  return `${m[1]}T${m[2]}.${(m[3] ?? '.').slice(1, 4).padEnd(3, '0')}Z`;
}

/**
 * The driver's types for a statement whose rows the API shows as they are: timestamptz columns come
 * back as ISO 8601 text ({@link isoTimestamp}), every other type as usual. Given per statement
 * (`.options({ types: ISO_TIMESTAMPS })`), so no other reader of those columns sees text for a Date.
 */
export const ISO_TIMESTAMPS = {
  getTypeParser: (oid: number, format?: 'text' | 'binary'): TypeParser =>
    oid === TIMESTAMPTZ && format !== 'binary' ? isoTimestamp : driverParser(oid, format),
};
