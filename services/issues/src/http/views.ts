import type { Principal } from '@bulwark/platform';
import type { IssueFilterParams } from '@bulwark/contracts';
import type { IssueFilter, IssueRecord } from '../store/issues';
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

export function issueView(r: IssueRecord, statusNames: Map<number, string>, ticket: IssueTicket | undefined) {
  return {
    id: r.id,
    project_code: r.projectCode,
    layer_id: r.layerId,
    check_id: r.checkId,
    scan_result_id: r.scanId,
    tool_id: r.toolId,
    tool_name: r.toolName,
    scanner: r.scanner,
    category: r.category,
    title: r.title,
    description: r.description,
    severity: r.severity,
    rule_id: r.ruleId,
    status_id: r.statusId,
    status: statusNames.get(r.statusId) ?? String(r.statusId),
    assignee: r.assignee,
    cve: r.cve,
    vulnerability_ids: r.vulnerabilityIds,
    cwes: r.cwes,
    lib_name: r.libName,
    lib_version: r.libVersion,
    file_path: r.filePath,
    start_line: r.startLine,
    cvss_v2: r.cvssV2,
    cvss_v3: r.cvssV3,
    cvss_v4: r.cvssV4,
    cvss_unknown: r.cvssUnknown,
    epss: r.epss,
    known_exploited: r.knownExploited,
    fingerprint: r.fingerprint,
    occurrences: r.occurrences,
    detections: r.detections,
    first_detected_at: r.firstDetectedAt,
    last_detected_at: r.lastDetectedAt,
    first_scan_result_id: r.firstScanId,
    suppression: r.suppression,
    security_rule_id: r.securityRuleId,
    duplicate_of: r.duplicateOf,
    updated_at: r.updatedAt,
    ticket: ticket ? ticketView(ticket) : null,
  };
}
