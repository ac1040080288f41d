import type { Suppression } from '@bulwark/findings';

/** Built-in status ids; stable, documented in the README (Issues). */
export const STATUS = {
  new: 1,
  confirmed: 2,
  inProgress: 3,
  fixed: 4,
  falsePositive: 5,
  riskAccepted: 6,
  suppressed: 7,
  reopen: 8,
} as const;

export const DEFAULT_STATUSES: { id: number; nameEn: string; nameRu: string }[] = [
  { id: STATUS.new, nameEn: 'New', nameRu: 'Новая' },
  { id: STATUS.confirmed, nameEn: 'Confirmed', nameRu: 'Подтверждена' },
  { id: STATUS.inProgress, nameEn: 'In progress', nameRu: 'В работе' },
  { id: STATUS.fixed, nameEn: 'Fixed', nameRu: 'Исправлена' },
  { id: STATUS.falsePositive, nameEn: 'False positive', nameRu: 'Ложное срабатывание' },
  { id: STATUS.riskAccepted, nameEn: 'Risk accepted', nameRu: 'Риск принят' },
  { id: STATUS.suppressed, nameEn: 'Suppressed', nameRu: 'Подавлена' },
  { id: STATUS.reopen, nameEn: 'Reopen', nameRu: 'Переоткрыта' },
];

/** Statuses a person still has to act on: automatic Fixed applies to them, gates count them, rules suppress them. */
export const OPEN_STATUSES: number[] = [STATUS.new, STATUS.confirmed, STATUS.inProgress, STATUS.reopen];

/** Statuses quality gates never count. */
export const NOT_COUNTED_STATUSES: number[] = [
  STATUS.fixed,
  STATUS.falsePositive,
  STATUS.riskAccepted,
  STATUS.suppressed,
];

const {
  new: N,
  confirmed: C,
  inProgress: P,
  fixed: F,
  falsePositive: FP,
  riskAccepted: RA,
  suppressed: S,
  reopen: R,
} = STATUS;

/** The manual transitions a fresh installation allows (configurable afterwards). */
export const DEFAULT_TRANSITIONS: [number, number][] = [
  [N, C],
  [N, P],
  [N, FP],
  [N, RA],
  [N, S],
  [N, F],
  [C, P],
  [C, FP],
  [C, RA],
  [C, S],
  [C, F],
  [P, F],
  [P, C],
  [P, RA],
  [F, R],
  [FP, R],
  [RA, R],
  [S, R],
  [R, C],
  [R, P],
  [R, FP],
  [R, RA],
  [R, S],
  [R, F],
];

/** The allowed targets of a manual change from `from`, or an empty list when none is allowed. */
export function allowedTargets(transitions: { from: number; to: number }[], from: number): number[] {
  return transitions
    .filter((t) => t.from === from)
    .map((t) => t.to)
    .sort((a, b) => a - b);
}

export function isAllowedTransition(transitions: { from: number; to: number }[], from: number, to: number): boolean {
  return transitions.some((t) => t.from === from && t.to === to);
}

/**
 * What a suppression written in the report (SARIF suppressions, VEX analysis state, a tool's own
 * state) makes of an issue that nobody has triaged yet; undefined leaves the status as it is.
 */
export function statusForSuppression(s: Suppression | undefined): number | undefined {
  if (!s) return undefined;
  const state = s.state.toLowerCase().replace(/[\s-]+/g, '_');
  if (s.source === 'sarif') return STATUS.suppressed;
  if (/^(false_positive|not_affected|not_exploitable|proposed_not_exploitable|safe)$/.test(state))
    return STATUS.falsePositive;
  if (/^(resolved|resolved_with_pedigree|mitigated)$/.test(state)) return STATUS.fixed;
  if (/^(will_not_fix|wont_fix|wontfix|accepted|risk_accepted)$/.test(state)) return STATUS.riskAccepted;
  if (state === 'exploitable') return STATUS.confirmed;
  if (state === 'in_triage') return undefined;
  return STATUS.suppressed;
}

/**
 * The status of an issue a scan detects: a new issue starts New (or as its report suppression says);
 * a Fixed one is Reopened; an untriaged one follows its report suppression; triaged ones stay.
 */
export function statusOnDetection(current: number | undefined, suppression: Suppression | undefined): number {
  const fromReport = statusForSuppression(suppression);
  if (current === undefined) return fromReport ?? STATUS.new;
  if (current === STATUS.fixed) return fromReport && fromReport !== STATUS.fixed ? fromReport : STATUS.reopen;
  if ((current === STATUS.new || current === STATUS.reopen) && fromReport !== undefined && fromReport !== STATUS.fixed)
    return fromReport;
  return current;
}
