import type { Principal } from '@bulwark/platform';
import type { IssueFilterParams, TrackerType } from '@bulwark/contracts';
import type { GateCondition } from '../domain/gates';
import { riskFactors } from '../domain/risk';
import type { IssueBasicFilterValues, IssueFilterValues, Issues } from '../issues';
import type { TrackerTickets } from '../trackers/tickets';
import type { GateDetails, LayerGateState } from '../quality-gates';
import type { PolicyRecord } from '../store/policies';
import type { CountGroupRecord, WeekCountsRecord } from '../store/grouped-counts';
import type { CommentRecord, HistoryRecord } from '../store/history';
import type { IssueFilter, IssueRecord } from '../store/issues/issue-store';
import type { IssueAnalysis } from '../store/issues/rows';
import type { RuleFilterValues } from '../domain/rules';
import type { SecurityRuleRecord } from '../store/security-rules';
import type { DedupRuleRecord, StatusRecord, TransitionRecord } from '../store/settings';
import type { IssueTicket, TicketRecord, TrackerRecord } from '../store/trackers';

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
    caller: principal.userId,
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
    riskMin: q.filter.risk_min,
    slaStates: q.filter.sla_state,
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

/** Issue views with their tickets, read in one query per page. */
export async function issueViews(
  rows: IssueRecord[],
  issues: Pick<Issues, 'statusNames'>,
  tickets: Pick<TrackerTickets, 'ticketsOf'>,
) {
  const [names, linked] = await Promise.all([issues.statusNames(), tickets.ticketsOf(rows.map((r) => r.id))]);
  return rows.map((r) => issueView(r, names, linked.get(r.id)));
}

export const analysisView = (a: IssueAnalysis) => ({
  state: a.state,
  justification: a.justification,
  response: a.response,
  detail: a.detail,
  updated_by: a.by,
  updated_at: a.at,
});

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
    assignee_type: r.assigneeType,
    assignee_id: r.assigneeId,
    analysis: r.analysis && analysisView(r.analysis),
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
    epss_percentile: r.epssPercentile,
    kev_due_date: r.kevDueDate,
    risk_score: r.riskScore,
    risk_factors: riskFactors(r),
    sla_due_at: r.slaDueAt,
    sla_state: r.slaState,
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

export const issueFilterValuesView = (v: IssueFilterValues) => ({
  tool: v.tools,
  tool_name: v.scanners,
  project_code: v.projectCodes,
  layer: v.layers,
  check: v.checks,
  status: v.statuses,
  severity: v.severities,
  assignee: v.assignees,
  category: v.categories,
  cve: v.cves,
  cwe: v.cwes,
  lib_name: v.libNames,
  detected_at: v.detectedAt,
});

export const issueBasicFilterView = (v: IssueBasicFilterValues) => ({
  status: v.statuses,
  severity: v.severities,
  tool: v.tools,
  project_code: v.projectCodes,
  ...(v.detectedAt ? { detected_at: v.detectedAt } : {}),
});

/** A group of GET /issues/count/grouped: its count, then the dimensions asked for, in the order of the table's columns. */
export const countGroupView = (g: CountGroupRecord) => ({
  count: g.count,
  ...(g.severity !== undefined ? { severity: g.severity } : {}),
  ...(g.statusId !== undefined ? { status_id: g.statusId } : {}),
  ...(g.projectCode !== undefined ? { project_code: g.projectCode } : {}),
  ...(g.tool !== undefined ? { tool: g.tool } : {}),
  ...(g.category !== undefined ? { category: g.category } : {}),
  ...(g.layerId !== undefined ? { layer_id: g.layerId } : {}),
  ...(g.libName !== undefined ? { lib_name: g.libName } : {}),
  ...(g.libVersion !== undefined ? { lib_version: g.libVersion } : {}),
  ...(g.cve !== undefined ? { cve: g.cve } : {}),
});

export const weekCountsView = (w: WeekCountsRecord) => ({
  week_start: w.weekStart,
  week_end: w.weekEnd,
  new: w.opened,
  fixed: w.fixed,
  open: w.open,
});

export const historyView = (h: HistoryRecord) => ({
  id: h.id,
  at: h.at,
  actor_kind: h.actorKind,
  actor: h.actor,
  field: h.field,
  old_value: h.oldValue,
  new_value: h.newValue,
  comment: h.comment,
  via: h.via,
  reason: h.reason,
});

export const commentView = (c: CommentRecord) => ({
  id: c.id,
  issue_id: c.issueId,
  author: c.author,
  message: c.message,
  created_at: c.createdAt,
});

export const statusView = (s: StatusRecord, lang?: string) => ({
  id: s.id,
  name: lang === 'ru' ? s.nameRu : s.nameEn,
  name_en: s.nameEn,
  name_ru: s.nameRu,
  builtin: s.builtin,
});

export const transitionView = (t: TransitionRecord) => ({
  id: t.id,
  from_status_id: t.fromStatus,
  to_status_id: t.toStatus,
});

export const dedupRuleView = (r: DedupRuleRecord) => ({
  id: r.id,
  name: r.name,
  tool_name: r.toolName,
  fields: r.fields,
  scope: r.scope,
  created_at: r.createdAt,
  updated_at: r.updatedAt,
});

export const securityRuleView = (r: SecurityRuleRecord) => ({
  id: r.id,
  name: r.name,
  rule_params: r.ruleParams as Record<string, unknown>,
  suppressing_status: r.suppressingStatus,
  expiry_status: r.expiryStatus,
  expires_at: r.expiresAt,
  expired: r.expired,
  author: r.author,
  created_at: r.createdAt,
  updated_at: r.updatedAt,
});

export const securityRuleValuesView = (v: RuleFilterValues) => ({
  suppressing_status: v.suppressingStatus,
  expiry_status: v.expiryStatus,
  instrument_type: v.instrumentType,
  tool_type_name: v.toolTypeName,
  category: v.category,
  cve: v.cve,
  cwe: v.cwe,
  author: v.author,
});

export const conditionView = (c: GateCondition) => ({
  id: c.id,
  quality_gate_id: c.qualityGateId,
  condition_type: c.conditionType,
  condition_value: c.conditionValue,
  operator: c.operator,
  value: String(c.value),
});

export const gateView = ({ gate, conditions, links }: GateDetails) => ({
  id: gate.id,
  name: gate.name,
  author: gate.author,
  conditions: conditions.map(conditionView),
  layers: links.map((l) => ({ layer_id: l.layerId, action: l.action })),
  created_at: gate.createdAt,
  updated_at: gate.updatedAt,
});

export const layerGateStateView = ({ layerId, gates, state }: LayerGateState) => ({
  layer_id: layerId,
  quality_gates: gates.map((g) => ({ quality_gate_id: g.id, name: g.name, action: g.action })),
  locked: state?.locked ?? false,
  last_scan_result_id: state?.scanId ?? null,
  last_verdict: state?.verdict ?? null,
});

export const policyView = (p: PolicyRecord) => ({
  id: p.id,
  name: p.name,
  description: p.description,
  author: p.author,
  project_tags: p.projectTags,
  quality_gates: p.qualityGates,
  created_at: p.createdAt,
  updated_at: p.updatedAt,
});

export const ticketView = (t: TicketRecord & { trackerType: TrackerType }) => ({
  tracker_id: t.trackerId,
  tracker_type: t.trackerType,
  key: t.key,
  url: t.url,
  status: t.status,
  closed: t.closed,
  synced_at: t.syncedAt,
});

export const trackerView = (t: TrackerRecord, tickets: number) => ({
  id: t.id,
  name: t.name,
  type: t.type,
  url: t.url,
  has_credentials: true,
  projects: t.projects,
  status_mapping: t.statusMapping,
  field_templates: {
    summary: t.fieldTemplates.summary ?? '',
    description: t.fieldTemplates.description ?? '',
    labels: t.fieldTemplates.labels ?? [],
  },
  jira_api_version: t.jiraApiVersion,
  sync_enabled: t.syncEnabled,
  tickets,
  last_sync_at: t.lastSyncAt,
  last_sync_error: t.lastSyncError,
  created_at: t.createdAt,
  updated_at: t.updatedAt,
});
