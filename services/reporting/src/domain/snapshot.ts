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
    /** Only `summary` so far. */
    type: string;
    author: string;
    created_at: string;
    generated_at: string;
    /** all, day, week, month, quarter or year: issues first detected in that period before created_at. */
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
}
