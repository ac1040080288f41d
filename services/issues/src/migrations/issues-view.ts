/**
 * The columns of the `issues` view from migration 0014 on: the feeds' EPSS and KEV values shown where
 * they have one, the scanner's otherwise. Later migrations append theirs (create or replace keeps these in place).
 */
export const VIEW_COLUMNS_0014 = `
        r.id, r.project_code, r.scope_id, r.match_key, r.layer_id, r.check_id, d.scan_id, r.first_scan_id, r.tool_id, r.tool_name, r.scanner, r.category,
        r.title, r.description, r.severity, r.severity_rank, r.rule_id, r.status_id, r.assignee, r.cve, r.vulnerability_ids, r.cwes, r.lib_name, r.lib_version,
        r.file_path, r.start_line, r.cvss_v2, r.cvss_v3, r.cvss_v4, r.cvss_unknown, r.cvss_max, coalesce(r.intel_epss, r.epss) as epss,
        (r.known_exploited or coalesce(r.intel_known_exploited, false)) as known_exploited, r.fingerprint, r.occurrences,
        d.detections, r.suppression, r.security_rule_id, r.duplicate_of, r.first_detected_at, d.last_detected_at, d.updated_at,
        r.assignee_type, r.assignee_id, r.analysis_state, r.analysis_justification, r.analysis_response, r.analysis_detail, r.analysis_by, r.analysis_at,
        r.intel_epss_percentile as epss_percentile, to_char(r.kev_due_date, 'YYYY-MM-DD') as kev_due_date`;

/** Migration 0016's: the risk score and the project's criticality appended. */
export const VIEW_COLUMNS_0016 = `${VIEW_COLUMNS_0014},
        r.risk_score, coalesce(r.project_criticality, 'medium') as project_criticality`;
