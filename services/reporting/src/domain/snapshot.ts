/**
 * What a report holds, frozen when it is generated: every download format renders this same
 * snapshot, so a report's HTML, PDF and CSV always agree with each other.
 */
export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];
export type SeverityCounts = Record<Severity, number>;

export interface ReportIssue {
  id: string;
  project_code: string;
  tool_name: string;
  category: string;
  title: string;
  severity: Severity;
  status: string;
  cve: string | null;
  cwes: number[];
  file_path: string | null;
  start_line: number | null;
  lib_name: string | null;
  lib_version: string | null;
  /** Highest CVSS score of any version, or null. */
  cvss: number | null;
  first_detected_at: string;
  last_detected_at: string;
}

export interface ReportSnapshot {
  report: {
    id: string;
    name: string;
    /** summary, detailed, compliance or trend: which of the optional sections below it has. */
    type: string;
    author: string;
    created_at: string;
    generated_at: string;
    /** all, day, week, month, quarter, year or custom: issues first detected in that period before created_at. */
    period: string;
    /** Start of the period (null for all) and its end. */
    from: string | null;
    to: string;
    /** The projects reported on; empty means every project the author may see. */
    project_codes: string[];
  };
  totals: {
    issues: number;
    /** Issues still to deal with: not fixed, false positive, risk accepted or suppressed. */
    open: number;
    by_severity: SeverityCounts;
    by_status: { status_id: number; name: string; count: number }[];
  };
  projects: { project_code: string; total: number; open: number; open_by_severity: SeverityCounts }[];
  tools: { tool_name: string; category: string; total: number; open: number }[];
  /** Open issues, most severe first (then highest CVSS, then newest), at most top_issues_limit. */
  top_issues: ReportIssue[];
  top_issues_limit: number;
  /** detailed: the listed issues' description, remediation and history, by issue id. */
  details?: Record<string, IssueDetail>;
  /** compliance: issues by OWASP Top 10 2021 and CWE Top 25 (2024) category. */
  compliance?: ComplianceSection;
  /** compliance (reports generated since SLAs exist): open issues by severity and SLA state. */
  sla?: SlaSection;
  /** trend: issues opened, fixed and open per interval of the period, and the mean time to fix. */
  trend?: TrendSection;
}

export interface IssueHistoryItem {
  at: string;
  actor: string;
  field: string;
  old_value: string | null;
  new_value: string | null;
  comment: string | null;
}

export interface IssueDetail {
  description: string | null;
  remediation: string;
  history: IssueHistoryItem[];
}

export interface ComplianceCategory {
  id: string;
  name: string;
  /** CWEs of the scope's issues that fall in this category. */
  cwes: number[];
  total: number;
  open: number;
  open_by_severity: SeverityCounts;
}

export interface ComplianceSection {
  owasp_top10_2021: ComplianceCategory[];
  cwe_top25_2024: ComplianceCategory[];
  /** Issues with a CWE that no OWASP category maps, and issues with no CWE at all. */
  unmapped: number;
  without_cwe: number;
}

export interface SlaSection {
  by_severity: { severity: Severity; on_track: number; due_soon: number; breached: number; without_sla: number }[];
  /** Open issues past their SLA due date. */
  breached: number;
}

export interface TrendPoint {
  start: string;
  end: string;
  /** Issues first detected within the interval. */
  opened: number;
  /** Changes to Fixed within the interval. */
  fixed: number;
  /** Issues open at the interval's end. */
  open: number;
}

export interface TrendSection {
  interval: 'day' | 'week' | 'month';
  points: TrendPoint[];
  /** Issues fixed within the period and their mean time from first detection to fix, by severity. */
  fix_times: { severity: Severity; fixed: number; mean_days: number | null }[];
}
