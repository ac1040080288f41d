import { STATUS } from './statuses';

/** The fields of an issue a ticket is written from. */
export interface TicketIssue {
  id: string;
  projectCode: string;
  title: string;
  description: string | null;
  severity: string;
  ruleId: string | null;
  cve: string | null;
  cwes: number[];
  filePath: string | null;
  startLine: number | null;
  libName: string | null;
  libVersion: string | null;
  toolName: string;
}

export type Grouping = 'issue' | 'rule' | 'cve';

export interface TicketGroup {
  projectCode: string;
  /** The rule id or CVE the issues share; null for a ticket of one issue. */
  group: string | null;
  issues: TicketIssue[];
}

/**
 * One ticket per issue, or per rule or CVE within a project (a ticket belongs to one tracker project).
 * Issues without the grouping value get a ticket each.
 */
export function groupForTickets(issues: TicketIssue[], by: Grouping): TicketGroup[] {
  const groups = new Map<string, TicketGroup>();
  for (const issue of issues) {
    const value = by === 'rule' ? issue.ruleId : by === 'cve' ? issue.cve : null;
    const key = value === null ? `issue\u0000${issue.id}` : `${issue.projectCode}\u0000${value}`;
    const g = groups.get(key) ?? { projectCode: issue.projectCode, group: value, issues: [] };
    g.issues.push(issue);
    groups.set(key, g);
  }
  return [...groups.values()];
}

export const DEFAULT_TEMPLATES = {
  summary: '[Bulwark] {{severity}}: {{title}}',
  groupSummary: '[Bulwark] {{count}} issues: {{group}}',
  description:
    'Bulwark found {{count}} issue(s) in project {{project_code}} ({{tool_name}}).\n\n{{issues}}\n\n{{description}}',
};

const TICKET_SUMMARY_MAX = 255;

function issueLine(i: TicketIssue): string {
  const where = i.filePath
    ? ` at ${i.filePath}${i.startLine ? `:${i.startLine}` : ''}`
    : i.libName
      ? ` in ${i.libName}${i.libVersion ? ` ${i.libVersion}` : ''}`
      : '';
  return `- [${i.severity}] ${i.title}${where} (Bulwark issue ${i.id})`;
}

/** Fills `{{placeholder}}`s from the group's first issue, its size and the list of its issues. */
export function renderTicket(
  g: TicketGroup,
  templates: { summary?: string; description?: string },
): { summary: string; description: string } {
  const first = g.issues[0];
  const values: Record<string, string> = {
    title: first.title,
    description: first.description ?? '',
    severity: first.severity,
    project_code: g.projectCode,
    rule_id: first.ruleId ?? '',
    cve: first.cve ?? '',
    cwes: first.cwes.map((c) => `CWE-${c}`).join(', '),
    file_path: first.filePath ?? '',
    start_line: first.startLine === null ? '' : String(first.startLine),
    lib_name: first.libName ?? '',
    lib_version: first.libVersion ?? '',
    tool_name: first.toolName,
    issue_id: first.id,
    count: String(g.issues.length),
    group: g.group ?? first.title,
    issues: g.issues.map(issueLine).join('\n'),
  };
  const fill = (t: string) => t.replace(/\{\{\s*([a-z_]+)\s*\}\}/g, (_, name: string) => values[name] ?? '');
  const summaryTemplate =
    templates.summary ?? (g.issues.length > 1 ? DEFAULT_TEMPLATES.groupSummary : DEFAULT_TEMPLATES.summary);
  const summary = fill(summaryTemplate).replace(/\s+/g, ' ').trim() || first.title;
  return {
    summary: summary.length > TICKET_SUMMARY_MAX ? `${summary.slice(0, TICKET_SUMMARY_MAX - 1)}\u2026` : summary,
    description: fill(templates.description ?? DEFAULT_TEMPLATES.description).trim(),
  };
}

export interface StatusMapping {
  to_bulwark: { tracker_status: string; status_id: number }[];
  to_tracker: { status_id: number; tracker_status: string }[];
}

/** The Bulwark status a ticket's new tracker status moves its issues to, if the mapping names one. */
export function bulwarkStatusFor(mapping: StatusMapping, trackerStatus: string): number | undefined {
  return mapping.to_bulwark.find((m) => m.tracker_status.toLowerCase() === trackerStatus.toLowerCase())?.status_id;
}

export type PushAction =
  { kind: 'transition'; status: string; comment: string } | { kind: 'comment'; comment: string } | { kind: 'none' };

/**
 * What a linked issue's status change does to its ticket: a mapped status moves the ticket (with a
 * comment); Fixed and Reopen, unmapped, still reach it as a comment; other changes stay in Bulwark.
 */
export function pushFor(
  mapping: StatusMapping,
  issueId: string,
  statusName: string,
  toStatus: number,
  actor: string,
): PushAction {
  const comment = `Bulwark issue ${issueId} is now ${statusName} (by ${actor}).`;
  const mapped = mapping.to_tracker.find((m) => m.status_id === toStatus);
  if (mapped) return { kind: 'transition', status: mapped.tracker_status, comment };
  if (toStatus === STATUS.fixed || toStatus === STATUS.reopen) return { kind: 'comment', comment };
  return { kind: 'none' };
}
