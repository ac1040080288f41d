import type { issueView, QualityGateVerdict, scanResultView, z } from '@bulwark/contracts';

// The API's shapes, as the route table declares them.
export type ScanResult = z.infer<typeof scanResultView>;
export type Issue = z.infer<typeof issueView>;
export type { QualityGateVerdict };

export interface RunResponse {
  scan_result_id: string;
  state: ScanResult['state'];
}

export interface LayerRunResponse {
  scan_results: { check_id: string; scan_result_id: string; state: ScanResult['state'] }[];
}

interface Breakdown {
  count: number;
  by_severity: Record<string, number>;
}

export interface ScanIssueStats {
  scan_result_id: string;
  compared_with: string | null;
  comparison_mode: string;
  total: Breakdown;
  new: Breakdown;
  unchanged: Breakdown;
  fixed: Breakdown;
}

/** Where an issue is: file and line for code, package and version for a dependency. */
export function issueLocation(i: Issue): string {
  if (i.file_path) return `${i.file_path}${i.start_line ? `:${i.start_line}` : ''}`;
  if (i.lib_name) return `${i.lib_name}${i.lib_version ? `@${i.lib_version}` : ''}`;
  return '';
}
