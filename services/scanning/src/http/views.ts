import type { CheckRecord } from '../store/checks';
import type { ScanRecord } from '../store/scans';
import type { DependencyRecord, SbomRecord } from '../store/sboms';

export const scanView = (s: ScanRecord) => ({
  id: s.id,
  scan_result_id: s.id,
  check_id: s.checkId,
  layer_id: s.layerId,
  project_code: s.projectCode,
  security_tool_id: s.securityToolId,
  kind: s.kind,
  state: s.state,
  progress: s.progress,
  stage: s.stage,
  error: s.error,
  findings_count: s.findingsCount,
  severity_counts: s.severityCounts,
  report_format: s.reportFormat,
  quality_gate: s.qualityGate,
  pull_request: s.pullRequest,
  created_at: s.createdAt,
  updated_at: s.updatedAt,
  started_at: s.startedAt,
  finished_at: s.finishedAt,
});

export function checkView(c: CheckRecord, group: CheckRecord[] | undefined, lastScan: ScanRecord | undefined) {
  return {
    id: c.id,
    group_id: c.groupId,
    layer_id: c.layerId,
    project_code: c.projectCode,
    security_tool_id: c.securityToolId,
    tool_settings: { ...c.toolSettings, api_token_set: c.toolTokenSealed !== null },
    scan_source_id: c.scanSourceId,
    source_auth: c.sourceAuth,
    run_scan_task: c.runScanTask,
    taginfo: c.tag,
    ...(group ? { grouped_checks: group.map((g) => ({ check_id: g.id, taginfo: g.tag })) } : {}),
    comparison: c.comparison,
    last_scan: lastScan ? scanView(lastScan) : null,
    created_at: c.createdAt,
    updated_at: c.updatedAt,
  };
}

export const sbomView = (s: SbomRecord) => ({
  id: s.id,
  layer_id: s.layerId,
  project_code: s.projectCode,
  project_name: s.projectName,
  format: s.format,
  file_name: s.fileName,
  components_count: s.componentsCount,
  vulnerabilities_count: s.vulnerabilitiesCount,
  uploaded_by: s.uploadedBy,
  created_at: s.createdAt,
});
export const dependencyView = (d: DependencyRecord) => ({
  name: d.name,
  version: d.version,
  type: d.type,
  purl: d.purl,
  licenses: d.licenses,
  layer_id: d.layerId,
  project_code: d.projectCode,
  project_name: d.projectName,
  sbom_id: d.sbomId,
});
