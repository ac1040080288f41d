import type { Comparison } from '../store/checks';

export interface ScanRef {
  id: string;
  createdAt: string;
}

/**
 * Which scan result a result is compared with, by the check's comparison mode:
 * `previous` each with the one before it; `baseline` all with one chosen result;
 * `pair` the two chosen results with each other (other results fall back to the previous one).
 */
export function comparisonBase(mode: Comparison, target: ScanRef, previous: ScanRef | undefined): string | undefined {
  if (mode.mode === 'baseline')
    return mode.baseline_scan_result_id === target.id ? undefined : mode.baseline_scan_result_id;
  if (mode.mode === 'pair') {
    const [a, b] = mode.scan_result_ids;
    if (target.id === b) return a;
    if (target.id === a) return b;
  }
  return previous?.id;
}
