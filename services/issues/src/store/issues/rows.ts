import type { Suppression } from '@bulwark/findings';
import { iso, json } from '@bulwark/platform';
import type { ProjectCriticality, SlaState, VexJustification, VexResponse, VexState } from '@bulwark/contracts';

/** An issue as the `issues` view returns it (issue_records joined to issue_detection_state). */
export interface IssueRow {
  id: string;
  project_code: string;
  scope_id: string;
  match_key: string;
  layer_id: string;
  check_id: string;
  scan_id: string;
  first_scan_id: string;
  tool_id: string;
  tool_name: string;
  scanner: string;
  category: string;
  title: string;
  description: string | null;
  severity: string;
  severity_rank: number;
  rule_id: string | null;
  status_id: number;
  assignee: string | null;
  cve: string | null;
  vulnerability_ids: string[];
  cwes: number[];
  lib_name: string | null;
  lib_version: string | null;
  file_path: string | null;
  start_line: number | null;
  cvss_v2: number | null;
  cvss_v3: number | null;
  cvss_v4: number | null;
  cvss_unknown: number | null;
  cvss_max: number | null;
  epss: number | null;
  known_exploited: boolean;
  epss_percentile: number | null;
  kev_due_date: string | null;
  risk_score: number;
  project_criticality: ProjectCriticality;
  sla_due_at: Date | string | null;
  sla_state: SlaState | null;
  fingerprint: string;
  occurrences: number;
  detections: number;
  suppression: unknown;
  security_rule_id: string | null;
  duplicate_of: string | null;
  first_detected_at: Date | string;
  last_detected_at: Date | string;
  updated_at: Date | string;
  assignee_type: 'user' | 'group' | null;
  assignee_id: string | null;
  analysis_state: string | null;
  analysis_justification: string | null;
  analysis_response: string[] | null;
  analysis_detail: string | null;
  analysis_by: string | null;
  analysis_at: Date | string | null;
}

/** An issue as the store returns it: times as ISO 8601 text, the report's suppression parsed. */
export interface IssueRecord {
  id: string;
  projectCode: string;
  scopeId: string;
  matchKey: string;
  layerId: string;
  checkId: string;
  scanId: string;
  firstScanId: string;
  toolId: string;
  toolName: string;
  scanner: string;
  category: string;
  title: string;
  description: string | null;
  severity: string;
  severityRank: number;
  ruleId: string | null;
  statusId: number;
  assignee: string | null;
  cve: string | null;
  vulnerabilityIds: string[];
  cwes: number[];
  libName: string | null;
  libVersion: string | null;
  filePath: string | null;
  startLine: number | null;
  cvssV2: number | null;
  cvssV3: number | null;
  cvssV4: number | null;
  cvssUnknown: number | null;
  cvssMax: number | null;
  epss: number | null;
  knownExploited: boolean;
  epssPercentile: number | null;
  /** The KEV catalog's due date (YYYY-MM-DD). */
  kevDueDate: string | null;
  /** 0-100 (README "Issues", risk score), computed by the database from the fields below and the project's criticality. */
  riskScore: number;
  projectCriticality: ProjectCriticality;
  /** When the applicable SLA policy wants it fixed (README "Issues", SLAs); null when none applies, closed or paused. */
  slaDueAt: string | null;
  slaState: SlaState | null;
  fingerprint: string;
  occurrences: number;
  detections: number;
  suppression: Suppression | null;
  securityRuleId: string | null;
  duplicateOf: string | null;
  firstDetectedAt: string;
  lastDetectedAt: string;
  updatedAt: string;
  assigneeType: 'user' | 'group' | null;
  assigneeId: string | null;
  analysis: IssueAnalysis | null;
}

/** A person's CycloneDX VEX analysis of an issue. */
export interface IssueAnalysis {
  state: VexState;
  justification: VexJustification | null;
  response: VexResponse[];
  detail: string | null;
  by: string;
  at: string;
}

const toAnalysis = (r: IssueRow): IssueAnalysis | null =>
  r.analysis_state && r.analysis_by && r.analysis_at
    ? {
        state: r.analysis_state as VexState,
        justification: r.analysis_justification as VexJustification | null,
        response: (r.analysis_response ?? []) as VexResponse[],
        detail: r.analysis_detail,
        by: r.analysis_by,
        at: iso(r.analysis_at),
      }
    : null;

export const toIssueRecord = (r: IssueRow): IssueRecord => ({
  id: r.id,
  projectCode: r.project_code,
  scopeId: r.scope_id,
  matchKey: r.match_key,
  layerId: r.layer_id,
  checkId: r.check_id,
  scanId: r.scan_id,
  firstScanId: r.first_scan_id,
  toolId: r.tool_id,
  toolName: r.tool_name,
  scanner: r.scanner,
  category: r.category,
  title: r.title,
  description: r.description,
  severity: r.severity,
  severityRank: r.severity_rank,
  ruleId: r.rule_id,
  statusId: r.status_id,
  assignee: r.assignee,
  cve: r.cve,
  vulnerabilityIds: r.vulnerability_ids,
  cwes: r.cwes,
  libName: r.lib_name,
  libVersion: r.lib_version,
  filePath: r.file_path,
  startLine: r.start_line,
  cvssV2: r.cvss_v2,
  cvssV3: r.cvss_v3,
  cvssV4: r.cvss_v4,
  cvssUnknown: r.cvss_unknown,
  cvssMax: r.cvss_max,
  epss: r.epss,
  knownExploited: r.known_exploited,
  epssPercentile: r.epss_percentile,
  kevDueDate: r.kev_due_date,
  riskScore: r.risk_score,
  projectCriticality: r.project_criticality,
  slaDueAt: r.sla_due_at === null ? null : iso(r.sla_due_at),
  slaState: r.sla_state,
  fingerprint: r.fingerprint,
  occurrences: r.occurrences,
  detections: r.detections,
  suppression: r.suppression === null ? null : json<Suppression>(r.suppression),
  securityRuleId: r.security_rule_id,
  duplicateOf: r.duplicate_of,
  firstDetectedAt: iso(r.first_detected_at),
  lastDetectedAt: iso(r.last_detected_at),
  updatedAt: iso(r.updated_at),
  assigneeType: r.assignee_type ?? null,
  assigneeId: r.assignee_id ?? null,
  analysis: toAnalysis(r),
});
