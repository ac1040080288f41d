/**
 * The snapshot laid out as the sections a reader sees, in display text. HTML, PDF and DOCX all
 * draw this one view, so they show the same values in the same order and differ only in styling.
 */
import { ReportIssue, ReportSnapshot, SEVERITIES, Severity } from '../domain/snapshot';

export interface ReportColumn {
  label: string;
  /**
   * Relative width, for the formats that size columns themselves (PDF, DOCX): a unit is about
   * ten characters, and a table wider than the page shrinks its columns in proportion.
   */
  weight: number;
  align: 'left' | 'right';
  /** The cells are severity labels, which the formats colour. */
  severity: boolean;
  /** Where text that does not fit is cut, in formats that cut it: a path's end names the file and line. */
  cut: 'start' | 'end';
}

export interface ReportTable {
  title: string;
  columns: ReportColumn[];
  rows: string[][];
  /** Shown instead of the table when it has no rows. */
  emptyText: string;
  /** A line under the table, or null. */
  note: string | null;
}

export interface ReportField {
  label: string;
  value: string;
}

export interface ReportView {
  title: string;
  details: ReportField[];
  totals: ReportField[];
  tables: ReportTable[];
}

const SEVERITY_LABELS: Record<Severity, string> = {
  critical: 'Critical',
  high: 'High',
  medium: 'Medium',
  low: 'Low',
  info: 'Info',
};

/** Text colours (hex RGB) that stay readable on white paper and screens alike. */
export const SEVERITY_COLORS: Record<Severity, string> = {
  critical: '#b91c1c',
  high: '#c2410c',
  medium: '#a16207',
  low: '#1d4ed8',
  info: '#4b5563',
};

export function severityOfLabel(label: string): Severity | undefined {
  return SEVERITIES.find((severity) => SEVERITY_LABELS[severity] === label);
}

/** Timestamps as a reader wants them (UTC to the minute); text that is not a date is shown as it is. */
function formatTimestamp(value: string): string {
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

function formatDate(value: string): string {
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : date.toISOString().slice(0, 10);
}

function formatCount(count: number): string {
  return count.toLocaleString('en-US');
}

function issueLocation(issue: ReportIssue): string {
  if (issue.file_path !== null) return issue.start_line === null ? issue.file_path : `${issue.file_path}:${issue.start_line}`;
  if (issue.lib_name !== null) return issue.lib_version === null ? issue.lib_name : `${issue.lib_name}@${issue.lib_version}`;
  return '';
}

function describePeriod(report: ReportSnapshot['report']): string {
  const range = report.from === null ? `until ${formatTimestamp(report.to)}` : `${formatTimestamp(report.from)} – ${formatTimestamp(report.to)}`;
  return `${report.period} (${range})`;
}

const column = (label: string, weight: number, options: Partial<Pick<ReportColumn, 'align' | 'severity' | 'cut'>> = {}): ReportColumn => ({
  label, weight, align: options.align ?? 'left', severity: options.severity ?? false, cut: options.cut ?? 'end',
});
const countColumn = (label: string): ReportColumn => column(label, 1.2, { align: 'right' });

export function buildReportView(snapshot: ReportSnapshot): ReportView {
  const { report, totals } = snapshot;
  const listed = snapshot.top_issues.length;
  return {
    title: report.name,
    details: [
      { label: 'Type', value: report.type },
      { label: 'Period', value: describePeriod(report) },
      { label: 'Projects', value: report.project_codes.length > 0 ? report.project_codes.join(', ') : 'All projects visible to the author' },
      { label: 'Author', value: report.author },
      { label: 'Generated', value: formatTimestamp(report.generated_at) },
    ],
    totals: [
      { label: 'Issues', value: formatCount(totals.issues) },
      { label: 'Open', value: formatCount(totals.open) },
    ],
    tables: [
      {
        title: 'Issues by severity',
        columns: [column('Severity', 2, { severity: true }), countColumn('Issues')],
        rows: SEVERITIES.map((severity) => [SEVERITY_LABELS[severity], formatCount(totals.by_severity[severity])]),
        emptyText: 'No issues.',
        note: null,
      },
      {
        title: 'Issues by status',
        columns: [column('Status', 2), countColumn('Issues')],
        rows: totals.by_status.map((status) => [status.name, formatCount(status.count)]),
        emptyText: 'No issues.',
        note: null,
      },
      {
        title: 'Issues by project',
        columns: [
          column('Project', 3), countColumn('Total'), countColumn('Open'),
          ...SEVERITIES.map((severity) => countColumn(`Open ${SEVERITY_LABELS[severity].toLowerCase()}`)),
        ],
        rows: snapshot.projects.map((project) => [
          project.project_code, formatCount(project.total), formatCount(project.open),
          ...SEVERITIES.map((severity) => formatCount(project.open_by_severity[severity])),
        ]),
        emptyText: 'No projects.',
        note: null,
      },
      {
        title: 'Issues by tool',
        columns: [column('Tool', 3), column('Category', 2), countColumn('Total'), countColumn('Open')],
        rows: snapshot.tools.map((tool) => [tool.tool_name, tool.category, formatCount(tool.total), formatCount(tool.open)]),
        emptyText: 'No tools.',
        note: null,
      },
      {
        title: 'Top open issues',
        columns: [
          column('Severity', 1.2, { severity: true }), column('Project', 1.6), column('Tool', 1.3), column('Title', 4.4),
          column('CVE', 2), column('CWE', 1.8), column('Location', 3.2, { cut: 'start' }), column('CVSS', 0.9, { align: 'right' }),
          column('Status', 1.6), column('First detected', 1.9),
        ],
        rows: snapshot.top_issues.map((issue) => [
          SEVERITY_LABELS[issue.severity], issue.project_code, issue.tool_name, issue.title, issue.cve ?? '',
          issue.cwes.map((cwe) => `CWE-${cwe}`).join(', '), issueLocation(issue), issue.cvss === null ? '' : issue.cvss.toFixed(1),
          issue.status, formatDate(issue.first_detected_at),
        ]),
        emptyText: 'No open issues.',
        note: totals.open > listed ? `${formatCount(listed)} of ${formatCount(totals.open)} open issues listed` : null,
      },
    ],
  };
}
