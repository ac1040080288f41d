/** RFC 4180 CSV for downloads that spreadsheets open. */
export type CsvValue = string | number | null;

/** Spreadsheets run a cell starting with one of these as a formula; scanner output and names are attacker-controlled. */
const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/** One cell: null empty, numbers bare, text quoted when needed and defused when it would read as a formula. */
export function csvField(value: CsvValue): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One record, CRLF-terminated. */
export function csvRecord(values: CsvValue[]): string {
  return `${values.map(csvField).join(',')}\r\n`;
}
