import type { GateConditionType, GateOperator } from '@bulwark/contracts';
import { projectSet, type ProjectSet } from '@bulwark/platform';

/** The contracts' vocabulary, the one the API validates. */
export type Operator = GateOperator;
export type ConditionType = GateConditionType;

/** The conditions that need the exploit counts of IssueCounts (a second pass over the layer's issues). */
export const EXPLOIT_CONDITIONS: readonly ConditionType[] = ['known_exploited', 'epss', 'risk_score', 'sla_breached'];

export interface GateCondition {
  id: string;
  qualityGateId: string;
  conditionType: ConditionType;
  conditionValue: string;
  operator: Operator;
  value: number;
}

/** What a layer's open issues add up to after a scan (see IssueStore.layerCounts). */
export interface IssueCounts {
  total: number;
  bySeverity: Record<string, number>;
  newBySeverity: Record<string, number>;
  byCategory: Record<string, number>;
  byCwe: Record<string, number>;
  /** Highest CVSS score (one decimal, as text) -> issues. */
  byCvss: Record<string, number>;
  /** Read only when a gate has an exploit condition (EXPLOIT_CONDITIONS); otherwise empty. */
  exploits?: ExploitCounts;
}

/** The counted issues by exploit intelligence: known exploited, by EPSS (three decimals, rounded down), by risk score; and past their SLA due date. */
export interface ExploitCounts {
  knownExploited: number;
  slaBreached: number;
  byEpss: Record<string, number>;
  byRisk: Record<string, number>;
}

const atLeast = (r: Record<string, number>, threshold: number) =>
  Object.entries(r).reduce((n, [score, k]) => (Number(score) >= threshold ? n + k : n), 0);

/**
 * The projects a gate applies to: those of the layers it is linked to, and those carrying a tag of a
 * policy that includes it (which grows with every project given the tag).
 */
export function gateProjects(
  gateId: string,
  links: readonly { qualityGateId: string; projectCode: string }[],
  policies: readonly { projectTags: readonly string[]; qualityGates: readonly { quality_gate_id: string }[] }[],
): ProjectSet {
  return projectSet({
    codes: links.filter((l) => l.qualityGateId === gateId).map((l) => l.projectCode),
    tags: policies
      .filter((p) => p.qualityGates.some((g) => g.quality_gate_id === gateId))
      .flatMap((p) => p.projectTags),
  });
}

export function compare(measured: number, operator: Operator, value: number): boolean {
  switch (operator) {
    case 'not_greater_than':
      return measured <= value;
    case 'less_than':
      return measured < value;
    case 'not_less_than':
      return measured >= value;
    case 'greater_than':
      return measured > value;
    case 'equal':
      return measured === value;
    case 'not_equal':
      return measured !== value;
  }
}

const sum = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);

/** The number a condition compares: how many counted issues it concerns. */
export function measure(c: Pick<GateCondition, 'conditionType' | 'conditionValue'>, counts: IssueCounts): number {
  const v = c.conditionValue.trim().toLowerCase();
  switch (c.conditionType) {
    case 'severity':
      return counts.bySeverity[v] ?? 0;
    case 'new_issues':
      return v === '' || v === 'any' ? sum(counts.newBySeverity) : (counts.newBySeverity[v] ?? 0);
    case 'category':
      return counts.byCategory[v] ?? 0;
    case 'cwe':
      return counts.byCwe[v.replace(/^cwe-/, '')] ?? 0;
    case 'total':
      return counts.total;
    case 'cvss':
      return atLeast(counts.byCvss, Number(v));
    case 'known_exploited':
      return counts.exploits?.knownExploited ?? 0;
    case 'epss':
      return atLeast(counts.exploits?.byEpss ?? {}, Number(v));
    case 'risk_score':
      return atLeast(counts.exploits?.byRisk ?? {}, Number(v));
    case 'sla_breached':
      return counts.exploits?.slaBreached ?? 0;
  }
}

export interface ConditionVerdict {
  condition_id: string;
  quality_gate_id: string;
  condition_type: ConditionType;
  condition_value: string;
  operator: Operator;
  value: number;
  measured: number;
  passed: boolean;
}

/** Every condition with what was measured and whether it holds; a gate passes when all hold. */
export function evaluateGate(
  conditions: GateCondition[],
  counts: IssueCounts,
): { passed: boolean; conditions: ConditionVerdict[] } {
  const out = conditions.map((c) => {
    const measured = measure(c, counts);
    return {
      condition_id: c.id,
      quality_gate_id: c.qualityGateId,
      condition_type: c.conditionType,
      condition_value: c.conditionValue,
      operator: c.operator,
      value: c.value,
      measured,
      passed: compare(measured, c.operator, c.value),
    };
  });
  return { passed: out.every((c) => c.passed), conditions: out };
}

export interface LinkedGate {
  id: string;
  name: string;
  action: 'lock' | 'inform';
  conditions: GateCondition[];
}

/** The layer's verdict: failed when a `lock` gate fails; `inform` gates only report. */
export function layerVerdict(gates: LinkedGate[], counts: IssueCounts) {
  const results = gates.map((g) => ({ gate: g, ...evaluateGate(g.conditions, counts) }));
  const failed = results.some((r) => r.gate.action === 'lock' && !r.passed);
  return {
    status: failed ? ('failed' as const) : ('passed' as const),
    locked: failed,
    gates: results.map((r) => ({
      quality_gate_id: r.gate.id,
      name: r.gate.name,
      action: r.gate.action,
      status: r.passed ? ('passed' as const) : ('failed' as const),
    })),
    conditions: results.flatMap((r) =>
      r.conditions.map((c) => ({ ...c, quality_gate_name: r.gate.name, action: r.gate.action })),
    ),
  };
}
