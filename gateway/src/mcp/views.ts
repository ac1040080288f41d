import type { z } from 'zod';
import type { issueHistoryEntry, issueView, QualityGateVerdict } from '@bulwark/contracts';
import { bounded, LIMITS } from './untrusted';

export type IssueView = z.output<typeof issueView>;
export type HistoryEntryView = z.output<typeof issueHistoryEntry>;
export interface CommentView {
  author: string;
  message: string;
  created_at: string;
}

/**
 * An issue as a tool answers it: Bulwark's own values (ids, enums, numbers, times) as they are; every
 * text a scanner, a repository or a person wrote inside `untrusted`, bounded.
 */
export const issueItem = (i: IssueView) => ({
  id: i.id,
  project_code: i.project_code,
  layer_id: i.layer_id,
  scan_result_id: i.scan_result_id,
  severity: i.severity,
  status_id: i.status_id,
  status: i.status,
  risk_score: i.risk_score,
  cvss: [i.cvss_v4, i.cvss_v3, i.cvss_v2, i.cvss_unknown].find((c) => c !== null) ?? null,
  epss: i.epss,
  known_exploited: i.known_exploited,
  category: i.category,
  start_line: i.start_line,
  cwes: i.cwes.slice(0, LIMITS.items),
  first_detected_at: i.first_detected_at,
  last_detected_at: i.last_detected_at,
  untrusted: {
    title: bounded(i.title),
    file_path: bounded(i.file_path),
    rule_id: bounded(i.rule_id),
    cve: bounded(i.cve),
    lib_name: bounded(i.lib_name),
    lib_version: bounded(i.lib_version),
    scanner: bounded(i.scanner),
    assignee: bounded(i.assignee),
  },
});

/** The issue with its description and the ids of its vulnerabilities (also a scanner's text). */
export const issueDetail = (i: IssueView) => {
  const item = issueItem(i);
  return {
    ...item,
    untrusted: {
      ...item.untrusted,
      description: bounded(i.description, LIMITS.longText),
      vulnerability_ids: i.vulnerability_ids.slice(0, LIMITS.items).map((v) => bounded(v)),
    },
  };
};

export const historyItem = (h: HistoryEntryView) => ({
  at: h.at,
  actor_kind: h.actor_kind,
  field: h.field,
  via: h.via,
  untrusted: {
    actor: bounded(h.actor),
    old_value: bounded(h.old_value),
    new_value: bounded(h.new_value),
    comment: bounded(h.comment, LIMITS.longText),
  },
});

export const commentItem = (c: CommentView) => ({
  created_at: c.created_at,
  untrusted: { author: bounded(c.author), message: bounded(c.message, LIMITS.longText) },
});

/**
 * A gate verdict explained: each condition with what was measured against its threshold, the failed
 * ones apart. Gate names are people's text, so they stay inside `untrusted`.
 */
export function verdictExplanation(v: QualityGateVerdict) {
  const conditions = v.conditions.slice(0, LIMITS.items).map((c) => ({
    condition_id: c.condition_id,
    quality_gate_id: c.quality_gate_id,
    action: c.action,
    condition_type: c.condition_type,
    operator: c.operator,
    threshold: c.value,
    measured: c.measured,
    passed: c.passed,
    explanation: `${c.condition_type} must be ${c.operator.replaceAll('_', ' ')} ${c.value}; measured ${c.measured}: ${c.passed ? 'holds' : 'fails'}`,
    untrusted: { quality_gate_name: bounded(c.quality_gate_name), condition_value: bounded(c.condition_value) },
  }));
  return {
    status: v.status,
    locked: v.locked,
    gates: v.gates.slice(0, LIMITS.items).map((g) => ({
      quality_gate_id: g.quality_gate_id,
      action: g.action,
      status: g.status,
      untrusted: { name: bounded(g.name) },
    })),
    failed_conditions: conditions.filter((c) => !c.passed),
    conditions,
  };
}
