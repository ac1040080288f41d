import type { DedupRule } from './match-key';

/** How a finding matched its issue: the deduplication rule (its tool name, null for the default) and its fields. */
export interface MatchReason {
  dedup_rule: string | null;
  fields: string[];
  scope: string;
}

/**
 * Why an ingestion changed an issue's status, kept in its history as the API shows it (README
 * "Issues", history): which scan of which check, which deduplication rule and fields matched the
 * finding, which security rule or report suppression set the status.
 */
export type ChangeReason =
  | { kind: 'fixed'; scan_id: string; check_id: string }
  | { kind: 'reopened'; scan_id: string; check_id: string; match: MatchReason | { same_findings_as_scan: string } }
  | {
      kind: 'report_suppression';
      scan_id: string;
      state: string;
      match: MatchReason | { same_findings_as_scan: string } | null;
    }
  | { kind: 'security_rule'; scan_id: string; rule_id: string; rule_name: string };

export const matchReason = (rule: DedupRule): MatchReason => ({
  dedup_rule: rule.toolName,
  fields: [...rule.fields],
  scope: rule.scope,
});
