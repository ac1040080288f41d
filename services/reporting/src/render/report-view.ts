/**
 * The snapshot laid out as the sections a reader sees, in display text. HTML, PDF and DOCX all
 * draw this one view, so they show the same values in the same order and differ only in styling.
 */
import { ComplianceCategory, ReportIssue, ReportSnapshot, SEVERITIES, Severity, SlaSection } from '../domain/snapshot';
import { describePeriod, formatCount, formatDate, formatTimestamp, issueLocation } from './display-text';
import type { ReportColumn, ReportTable, ReportChart, ReportEntry, ReportView } from './view-model';

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

const column = (
  label: string,
  weight: number,
  options: Partial<Pick<ReportColumn, 'align' | 'severity' | 'cut'>> = {},
): ReportColumn => ({
  label,
  weight,
  align: options.align ?? 'left',
  severity: options.severity ?? false,
  cut: options.cut ?? 'end',
});
const countColumn = (label: string): ReportColumn => column(label, 1.2, { align: 'right' });

const TOP_CHART_ITEMS = 10;

/** The most frequent values among the listed open issues. */
function top(issues: ReportIssue[], keys: (issue: ReportIssue) => string[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const issue of issues) for (const key of new Set(keys(issue))) counts.set(key, (counts.get(key) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, TOP_CHART_ITEMS);
}

function summaryCharts(snapshot: ReportSnapshot): ReportChart[] {
  const charts: ReportChart[] = [
    {
      title: 'Issues by severity',
      kind: 'pie',
      categories: SEVERITIES.map((s) => SEVERITY_LABELS[s]),
      series: [
        {
          name: 'Issues',
          values: SEVERITIES.map((s) => snapshot.totals.by_severity[s]),
          colors: SEVERITIES.map((s) => SEVERITY_COLORS[s]),
        },
      ],
    },
  ];
  const cwes = top(snapshot.top_issues, (i) => i.cwes.map((cwe) => `CWE-${cwe}`));
  if (cwes.length > 0)
    charts.push({
      title: 'Top CWEs of open issues',
      kind: 'hbar',
      categories: cwes.map(([k]) => k),
      series: [{ name: 'Open issues', values: cwes.map(([, n]) => n), color: '#1d4ed8' }],
    });
  const libraries = top(snapshot.top_issues, (i) => (i.lib_name === null ? [] : [i.lib_name]));
  if (libraries.length > 0)
    charts.push({
      title: 'Top libraries of open issues',
      kind: 'hbar',
      categories: libraries.map(([k]) => k),
      series: [{ name: 'Open issues', values: libraries.map(([, n]) => n), color: '#c2410c' }],
    });
  return charts;
}

function complianceTable(title: string, rows: ComplianceCategory[]): ReportTable {
  return {
    title,
    columns: [
      column('Category', 1.6),
      column('Name', 4),
      column('CWEs found', 3),
      countColumn('Total'),
      countColumn('Open'),
      ...SEVERITIES.map((s) => countColumn(`Open ${SEVERITY_LABELS[s].toLowerCase()}`)),
    ],
    rows: rows.map((r) => [
      r.id,
      r.name,
      r.cwes.map((cwe) => `CWE-${cwe}`).join(', '),
      formatCount(r.total),
      formatCount(r.open),
      ...SEVERITIES.map((s) => formatCount(r.open_by_severity[s])),
    ]),
    emptyText: 'No categories.',
    note: null,
  };
}

function slaTable(sla: SlaSection): ReportTable {
  return {
    title: 'SLA: open issues by due date',
    columns: [
      column('Severity', 2),
      countColumn('On track'),
      countColumn('Due soon'),
      countColumn('Breached'),
      countColumn('Without SLA'),
    ],
    rows: sla.by_severity.map((r) => [
      SEVERITY_LABELS[r.severity],
      formatCount(r.on_track),
      formatCount(r.due_soon),
      formatCount(r.breached),
      formatCount(r.without_sla),
    ]),
    emptyText: '',
    note: `${formatCount(sla.breached)} open issues past their SLA due date.`,
  };
}

function typeSections(snapshot: ReportSnapshot): Pick<ReportView, 'charts' | 'tables' | 'entries'> {
  const charts = summaryCharts(snapshot);
  const tables: ReportTable[] = [];
  const entries: ReportEntry[] = [];
  const { compliance, sla, trend, details } = snapshot;
  if (compliance) {
    charts.push({
      title: 'Open issues by OWASP Top 10 2021 category',
      kind: 'hbar',
      categories: compliance.owasp_top10_2021.map((c) => c.id),
      series: [{ name: 'Open issues', values: compliance.owasp_top10_2021.map((c) => c.open), color: '#b91c1c' }],
    });
    tables.push(
      complianceTable('OWASP Top 10 2021', compliance.owasp_top10_2021),
      complianceTable('CWE Top 25 (2024)', compliance.cwe_top25_2024),
    );
    tables.push({
      title: 'Not mapped',
      columns: [column('Issues', 5), countColumn('Count')],
      emptyText: '',
      note: null,
      rows: [
        ['With CWEs outside the OWASP Top 10 mapping', formatCount(compliance.unmapped)],
        ['Without a CWE', formatCount(compliance.without_cwe)],
      ],
    });
  }
  if (sla) tables.push(slaTable(sla));
  if (trend) {
    const label = (start: string) => (trend.interval === 'month' ? start.slice(0, 7) : start.slice(0, 10));
    charts.push({
      title: `Issues per ${trend.interval}`,
      kind: 'line',
      categories: trend.points.map((p) => label(p.start)),
      series: [
        { name: 'New', values: trend.points.map((p) => p.opened), color: '#c2410c' },
        { name: 'Fixed', values: trend.points.map((p) => p.fixed), color: '#15803d' },
        { name: 'Open', values: trend.points.map((p) => p.open), color: '#1d4ed8' },
      ],
    });
    tables.push({
      title: `New, fixed and open issues per ${trend.interval}`,
      columns: [
        column(trend.interval === 'month' ? 'Month' : trend.interval === 'week' ? 'Week from' : 'Day', 2),
        countColumn('New'),
        countColumn('Fixed'),
        countColumn('Open at end'),
      ],
      rows: trend.points.map((p) => [label(p.start), formatCount(p.opened), formatCount(p.fixed), formatCount(p.open)]),
      emptyText: 'No intervals.',
      note: null,
    });
    tables.push({
      title: 'Mean time to fix',
      columns: [
        column('Severity', 2, { severity: true }),
        countColumn('Fixed'),
        column('Mean days to fix', 2, { align: 'right' }),
      ],
      rows: trend.fix_times.map((f) => [
        SEVERITY_LABELS[f.severity],
        formatCount(f.fixed),
        f.mean_days === null ? '' : f.mean_days.toFixed(1),
      ]),
      emptyText: 'Nothing fixed.',
      note: 'From first detection to the change to Fixed, for issues fixed within the period.',
    });
  }
  if (details) {
    for (const issue of snapshot.top_issues) {
      const detail = details[issue.id];
      entries.push({
        title: `${SEVERITY_LABELS[issue.severity]}: ${issue.title}`,
        fields: [
          { label: 'Project', value: issue.project_code },
          { label: 'Tool', value: `${issue.tool_name} (${issue.category})` },
          { label: 'Status', value: issue.status },
          { label: 'Location', value: issueLocation(issue) },
          { label: 'CVE', value: issue.cve ?? '' },
          { label: 'CWE', value: issue.cwes.map((cwe) => `CWE-${cwe}`).join(', ') },
          { label: 'CVSS', value: issue.cvss === null ? '' : issue.cvss.toFixed(1) },
          { label: 'First detected', value: formatTimestamp(issue.first_detected_at) },
          { label: 'Id', value: issue.id },
        ].filter((f) => f.value !== ''),
        paragraphs: [
          { label: 'Description', value: detail?.description ?? 'None given by the scanner.' },
          { label: 'Remediation', value: detail?.remediation ?? '' },
        ].filter((f) => f.value !== ''),
        history:
          detail && detail.history.length > 0
            ? {
                title: 'History',
                columns: [
                  column('When', 2),
                  column('Who', 2),
                  column('Field', 1.4),
                  column('From', 2),
                  column('To', 2),
                  column('Comment', 5),
                ],
                rows: detail.history.map((h) => [
                  formatTimestamp(h.at),
                  h.actor,
                  h.field,
                  h.old_value ?? '',
                  h.new_value ?? '',
                  h.comment ?? '',
                ]),
                emptyText: '',
                note: null,
              }
            : null,
      });
    }
  }
  return { charts, tables, entries };
}

export function buildReportView(snapshot: ReportSnapshot): ReportView {
  const { report, totals } = snapshot;
  const listed = snapshot.top_issues.length;
  const sections = typeSections(snapshot);
  return {
    charts: sections.charts,
    entries: sections.entries,
    title: report.name,
    details: [
      { label: 'Type', value: report.type },
      { label: 'Period', value: describePeriod(report) },
      {
        label: 'Projects',
        value: report.project_codes.length > 0 ? report.project_codes.join(', ') : 'All projects visible to the author',
      },
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
          column('Project', 3),
          countColumn('Total'),
          countColumn('Open'),
          ...SEVERITIES.map((severity) => countColumn(`Open ${SEVERITY_LABELS[severity].toLowerCase()}`)),
        ],
        rows: snapshot.projects.map((project) => [
          project.project_code,
          formatCount(project.total),
          formatCount(project.open),
          ...SEVERITIES.map((severity) => formatCount(project.open_by_severity[severity])),
        ]),
        emptyText: 'No projects.',
        note: null,
      },
      {
        title: 'Issues by tool',
        columns: [column('Tool', 3), column('Category', 2), countColumn('Total'), countColumn('Open')],
        rows: snapshot.tools.map((tool) => [
          tool.tool_name,
          tool.category,
          formatCount(tool.total),
          formatCount(tool.open),
        ]),
        emptyText: 'No tools.',
        note: null,
      },
      {
        title: 'Top open issues',
        columns: [
          column('Severity', 1.2, { severity: true }),
          column('Project', 1.6),
          column('Tool', 1.3),
          column('Title', 4.4),
          column('CVE', 2),
          column('CWE', 1.8),
          column('Location', 3.2, { cut: 'start' }),
          column('CVSS', 0.9, { align: 'right' }),
          column('Status', 1.6),
          column('First detected', 1.9),
        ],
        rows: snapshot.top_issues.map((issue) => [
          SEVERITY_LABELS[issue.severity],
          issue.project_code,
          issue.tool_name,
          issue.title,
          issue.cve ?? '',
          issue.cwes.map((cwe) => `CWE-${cwe}`).join(', '),
          issueLocation(issue),
          issue.cvss === null ? '' : issue.cvss.toFixed(1),
          issue.status,
          formatDate(issue.first_detected_at),
        ]),
        emptyText: 'No open issues.',
        note: totals.open > listed ? `${formatCount(listed)} of ${formatCount(totals.open)} open issues listed` : null,
      },
      ...sections.tables,
    ],
  };
}
