import { iso, json, Principal } from '@bulwark/platform';
import type { IssueFilterParams } from '@bulwark/contracts';
import type { IssueFilter, IssueRow } from '../store/issues';
import { IssueTicket, ticketView } from '../store/trackers';

/** What issue routes filter by: some (the basic filter's) have no search[...] keys and no filter_inversion. */
type IssueFilterInput = Pick<IssueFilterParams, 'filter'> &
  Partial<Pick<IssueFilterParams, 'search' | 'filter_inversion'>>;

/** The filter[...] / search[...] query of issue routes as the store's filter, within the caller's projects. */
export function issueFilter(principal: Principal, q: IssueFilterInput): IssueFilter {
  const cvss: NonNullable<IssueFilter['cvss']> = [
    ...(['v2', 'v3', 'v4', 'unknown'] as const).map((v) => ({
      column: `cvss_${v}` as const,
      min: q.filter[`cvss_${v}_min`],
      max: q.filter[`cvss_${v}_max`],
    })),
    { column: 'cvss_max', min: q.filter.cvss_min, max: q.filter.cvss_max },
  ];
  return {
    projects: principal.projects,
    tools: q.filter.tool,
    scanners: q.filter.tool_name,
    toolIds: q.filter.tool_id,
    projectCodes: q.filter.project_code,
    layers: q.filter.layer,
    checks: q.filter.check,
    scans: q.filter.scan,
    statuses: q.filter.status,
    severities: q.filter.severity,
    assignees: q.filter.assignee,
    categories: q.filter.category,
    cves: q.filter.cve,
    cwes: q.filter.cwe,
    libNames: q.filter.lib_name,
    exploitability: q.filter.exploitability,
    detectedFrom: q.filter.detected_at_start,
    detectedTo: q.filter.detected_at_end,
    lastDetectedFrom: q.filter.last_detected_at_start,
    lastDetectedTo: q.filter.last_detected_at_end,
    cvss: cvss.filter((c) => c.min !== undefined || c.max !== undefined),
    epssMin: q.filter.epss_min,
    commentMessage: q.filter.comment_message,
    excludeDuplicates: q.filter.exclude_duplicates,
    duplicateOf: q.filter.duplicate_of,
    invert: q.filter_inversion ?? false,
    search: {
      title: q.search?.title,
      file_path: q.search?.file_path,
      lib_name: q.search?.lib_name,
      cve: q.search?.cve,
      assignee: q.search?.assignee,
      rule_id: q.search?.rule_id,
    },
  };
}

export function issueView(r: IssueRow, statusNames: Map<number, string>, ticket: IssueTicket | undefined) {
  return {
    id: r.id,
    project_code: r.project_code,
    layer_id: r.layer_id,
    check_id: r.check_id,
    scan_result_id: r.scan_id,
    tool_id: r.tool_id,
    tool_name: r.tool_name,
    scanner: r.scanner,
    category: r.category,
    title: r.title,
    description: r.description,
    severity: r.severity,
    rule_id: r.rule_id,
    status_id: r.status_id,
    status: statusNames.get(r.status_id) ?? String(r.status_id),
    assignee: r.assignee,
    cve: r.cve,
    vulnerability_ids: r.vulnerability_ids,
    cwes: r.cwes,
    lib_name: r.lib_name,
    lib_version: r.lib_version,
    file_path: r.file_path,
    start_line: r.start_line,
    cvss_v2: r.cvss_v2,
    cvss_v3: r.cvss_v3,
    cvss_v4: r.cvss_v4,
    cvss_unknown: r.cvss_unknown,
    epss: r.epss,
    known_exploited: r.known_exploited,
    fingerprint: r.fingerprint,
    occurrences: r.occurrences,
    detections: r.detections,
    first_detected_at: iso(r.first_detected_at)!,
    last_detected_at: iso(r.last_detected_at)!,
    first_scan_result_id: r.first_scan_id,
    suppression: r.suppression === null ? null : json(r.suppression),
    security_rule_id: r.security_rule_id,
    duplicate_of: r.duplicate_of,
    updated_at: iso(r.updated_at)!,
    ticket: ticket ? ticketView(ticket) : null,
  };
}
