/**
 * The top issues as RFC 4180 CSV, one row per issue, for spreadsheets and scripts. Values stay
 * machine-readable (ISO timestamps, bare numbers) rather than formatted for reading.
 */
import { CsvValue, csvRecord } from '@bulwark/platform';
import { ReportIssue, ReportSnapshot } from '../domain/snapshot';

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

export function renderCsv(snapshot: ReportSnapshot): Buffer {
  const header = csvRecord(COLUMNS.map((column) => column.header));
  const rows = snapshot.top_issues.map((issue) => csvRecord(COLUMNS.map((column) => column.value(issue))));
  return Buffer.from(header + rows.join(''), 'utf8');
}
