// The vocabulary of quality gates: condition types, operators and the actions of a gate linked to a
// layer. The one definition the API's schemas, the events and the console share; it imports nothing,
// so the console's bundle takes it from source (console/vite.config.mts), as it takes ./vex.
export const GATE_CONDITION_TYPES = [
  'severity',
  'cvss',
  'new_issues',
  'category',
  'cwe',
  'total',
  'known_exploited',
  'epss',
  'risk_score',
  'sla_breached',
] as const;

export const GATE_OPERATORS = [
  'not_greater_than',
  'less_than',
  'not_less_than',
  'greater_than',
  'equal',
  'not_equal',
] as const;

export const GATE_ACTIONS = ['lock', 'inform'] as const;

export type GateConditionType = (typeof GATE_CONDITION_TYPES)[number];
export type GateOperator = (typeof GATE_OPERATORS)[number];
export type GateAction = (typeof GATE_ACTIONS)[number];
