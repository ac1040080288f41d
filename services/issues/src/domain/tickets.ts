import { STATUS } from './statuses';

/** The fields of an issue a ticket is written from. */
export interface TicketIssue {
  id: string;
  project_code: string;
  title: string;
  description: string | null;
  severity: string;
  rule_id: string | null;
  cve: string | null;
  cwes: number[];
  file_path: string | null;
  start_line: number | null;
  lib_name: string | null;
  lib_version: string | null;
  tool_name: string;
}

export type Grouping = 'issue' | 'rule' | 'cve';

export interface TicketGroup {
  project_code: string;
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
    const value = by === 'rule' ? issue.rule_id : by === 'cve' ? issue.cve : null;
    const key = value === null ? `issue\u0000${issue.id}` : `${issue.project_code}\u0000${value}`;
    const g = groups.get(key) ?? { project_code: issue.project_code, group: value, issues: [] };
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
  const where = i.file_path
    ? ` at ${i.file_path}${i.start_line ? `:${i.start_line}` : ''}`
    : i.lib_name
      ? ` in ${i.lib_name}${i.lib_version ? ` ${i.lib_version}` : ''}`
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
    project_code: g.project_code,
    rule_id: first.rule_id ?? '',
    cve: first.cve ?? '',
    cwes: first.cwes.map((c) => `CWE-${c}`).join(', '),
    file_path: first.file_path ?? '',
    start_line: first.start_line === null ? '' : String(first.start_line),
    lib_name: first.lib_name ?? '',
    lib_version: first.lib_version ?? '',
    tool_name: first.tool_name,
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

/** Seconds before the next attempt of a failed push: 5 s doubling, at most an hour. */
export function pushBackoffSeconds(attempts: number): number {
  return Math.min(5 * 2 ** Math.max(0, attempts - 1), 3600);
}
