/**
 * The top issues as RFC 4180 CSV, one row per issue, for spreadsheets and scripts. Values stay
 * machine-readable (ISO timestamps, bare numbers) rather than formatted for reading.
 */
import { ReportIssue, ReportSnapshot } from '../domain/snapshot';

type CsvValue = string | number | null;

const COLUMNS: { header: string; value: (issue: ReportIssue) => CsvValue }[] = [
  { header: 'id', value: (issue) => issue.id },
  { header: 'project_code', value: (issue) => issue.project_code },
  { header: 'tool_name', value: (issue) => issue.tool_name },
  { header: 'category', value: (issue) => issue.category },
  { header: 'severity', value: (issue) => issue.severity },
  { header: 'status', value: (issue) => issue.status },
  { header: 'title', value: (issue) => issue.title },
  { header: 'cve', value: (issue) => issue.cve },
  { header: 'cwes', value: (issue) => issue.cwes.map((cwe) => `CWE-${cwe}`).join(';') },
  { header: 'file_path', value: (issue) => issue.file_path },
  { header: 'start_line', value: (issue) => issue.start_line },
  { header: 'lib_name', value: (issue) => issue.lib_name },
  { header: 'lib_version', value: (issue) => issue.lib_version },
  { header: 'cvss', value: (issue) => issue.cvss },
  { header: 'first_detected_at', value: (issue) => issue.first_detected_at },
  { header: 'last_detected_at', value: (issue) => issue.last_detected_at },
];

/** Spreadsheets run a cell starting with one of these as a formula; scanner output is attacker-controlled. */
const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

function csvField(value: CsvValue): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

function csvRecord(values: CsvValue[]): string {
  return `${values.map(csvField).join(',')}\r\n`;
}

export function renderCsv(snapshot: ReportSnapshot): Buffer {
  const header = csvRecord(COLUMNS.map((column) => column.header));
  const rows = snapshot.top_issues.map((issue) => csvRecord(COLUMNS.map((column) => column.value(issue))));
  return Buffer.from(header + rows.join(''), 'utf8');
}
