import type { QualityGateVerdict, ScanIssueStats, ScanResult } from './api/types';

const SEVERITY_ORDER = ['critical', 'high', 'medium', 'low', 'info'];

function bySeverity(counts: Record<string, number> | null | undefined): string {
  if (!counts) return '';
  const parts = SEVERITY_ORDER.filter((s) => (counts[s] ?? 0) > 0).map((s) => `${s} ${counts[s]}`);
  return parts.length ? ` (${parts.join(', ')})` : '';
}

/** What a pipeline log shows of one settled scan: its findings, what changed, and the gate verdict. */
export function scanSummary(scan: ScanResult, stats: ScanIssueStats | undefined): string[] {
  const lines = [
    `scan ${scan.id}: ${scan.state}, ${scan.findings_count ?? 0} findings${bySeverity(scan.severity_counts)}`,
  ];
  if (scan.error) lines.push(`  error: ${scan.error}`);
  if (stats) {
    const against = stats.compared_with ? ` against scan ${stats.compared_with}` : ' (no earlier scan to compare with)';
    lines.push(
      `  new ${stats.new.count}${bySeverity(stats.new.by_severity)}, unchanged ${stats.unchanged.count}, fixed ${stats.fixed.count}${bySeverity(stats.fixed.by_severity)}${against}`,
    );
  }
  if (scan.quality_gate) lines.push(...gateLines(scan.quality_gate));
  return lines;
}

/** The verdict, then each condition with the value measured. */
export function gateLines(verdict: QualityGateVerdict): string[] {
  if (verdict.gates.length === 0) return ['  quality gate: passed (no gate is linked to the layer)'];
  const lines = [`  quality gate: ${verdict.status}${verdict.locked ? ' (the layer is locked)' : ''}`];
  for (const c of verdict.conditions) {
    lines.push(
      `    ${c.passed ? 'pass' : 'FAIL'}  ${c.condition_type}${c.condition_value ? ` ${c.condition_value}` : ''} ${c.operator} ${c.value}: measured ${c.measured}  [${c.quality_gate_name}, ${c.action}]`,
    );
  }
  return lines;
}
