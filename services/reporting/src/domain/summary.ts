import { ReportIssue, ReportSnapshot, Severity, SeverityCounts, SEVERITIES } from './snapshot';

/** One count of the issues service's summary: issues of a project, tool, category, severity and status. */
export interface SummaryGroup {
  projectCode: string;
  toolName: string;
  category: string;
  severity: string;
  statusId: number;
  open: boolean;
  count: number;
}

const zero = (): SeverityCounts => ({ critical: 0, high: 0, medium: 0, low: 0, info: 0 });
const severityOf = (s: string): Severity => ((SEVERITIES as readonly string[]).includes(s) ? (s as Severity) : 'info');

/** Adds up the summary groups into the report's totals, projects and tools. */
export function buildSnapshot(
  report: ReportSnapshot['report'],
  groups: SummaryGroup[],
  statuses: { id: number; name: string }[],
  topIssues: ReportIssue[],
  topIssuesLimit: number,
): ReportSnapshot {
  const totals = { issues: 0, open: 0, by_severity: zero() };
  const byStatus = new Map<number, number>();
  const projects = new Map<string, ReportSnapshot['projects'][number]>();
  const tools = new Map<string, ReportSnapshot['tools'][number]>();
  for (const g of groups) {
    const severity = severityOf(g.severity);
    totals.issues += g.count;
    totals.by_severity[severity] += g.count;
    byStatus.set(g.statusId, (byStatus.get(g.statusId) ?? 0) + g.count);
    const project = projects.get(g.projectCode) ?? {
      project_code: g.projectCode,
      total: 0,
      open: 0,
      open_by_severity: zero(),
    };
    project.total += g.count;
    const toolKey = `${g.toolName}\u0000${g.category}`;
    const tool = tools.get(toolKey) ?? { tool_name: g.toolName, category: g.category, total: 0, open: 0 };
    tool.total += g.count;
    if (g.open) {
      totals.open += g.count;
      project.open += g.count;
      project.open_by_severity[severity] += g.count;
      tool.open += g.count;
    }
    projects.set(g.projectCode, project);
    tools.set(toolKey, tool);
  }
  const names = new Map(statuses.map((s) => [s.id, s.name]));
  return {
    report,
    totals: {
      ...totals,
      by_status: [...byStatus]
        .sort(([a], [b]) => a - b)
        .map(([id, count]) => ({ status_id: id, name: names.get(id) ?? String(id), count })),
    },
    projects: [...projects.values()].sort((a, b) => b.open - a.open || a.project_code.localeCompare(b.project_code)),
    tools: [...tools.values()].sort((a, b) => b.open - a.open || a.tool_name.localeCompare(b.tool_name)),
    top_issues: topIssues,
    top_issues_limit: topIssuesLimit,
  };
}
