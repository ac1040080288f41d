/** Values as the report's reader sees them: times, counts, where an issue is, the period covered. */
import type { ReportIssue, ReportSnapshot } from '../domain/snapshot';

/** Timestamps as a reader wants them (UTC to the minute); text that is not a date is shown as it is. */
export function formatTimestamp(value: string): string {
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

export function formatDate(value: string): string {
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : date.toISOString().slice(0, 10);
}

export function formatCount(count: number): string {
  return count.toLocaleString('en-US');
}

export function issueLocation(issue: ReportIssue): string {
  if (issue.file_path !== null)
    return issue.start_line === null ? issue.file_path : `${issue.file_path}:${issue.start_line}`;
  if (issue.lib_name !== null)
    return issue.lib_version === null ? issue.lib_name : `${issue.lib_name}@${issue.lib_version}`;
  return '';
}

export function describePeriod(report: ReportSnapshot['report']): string {
  const range =
    report.from === null
      ? `until ${formatTimestamp(report.to)}`
      : `${formatTimestamp(report.from)} – ${formatTimestamp(report.to)}`;
  return `${report.period} (${range})`;
}
