import type { ToolType } from '@bulwark/contracts';

/** One scan for a runner: which tool, on what, where the report goes, and its limits. */
export interface ScanJob {
  scanId: string;
  tool: ToolType;
  /** The checked-out source. */
  workspace: string;
  /** Where the tool writes its report (`resultFile` inside it). */
  resultDir: string;
  rulesDir: string;
  timeoutMs: number;
  extraArgs: string[];
  resources?: { cpu?: string; memory?: string };
}

export interface ScanRunOutcome {
  /** The report the tool wrote. */
  reportPath: string;
  /** The end of the tool's output, for the scan's log. */
  log: string;
}

/** A failure with a message fit for the scan result (no secrets, no internals). */
export class ScanRunError extends Error {}

/** Where scanners run: a local child process (default) or a Kubernetes Job. */
export interface ScanRunner {
  readonly kind: 'local' | 'kubernetes';
  run(job: ScanJob, signal: AbortSignal): Promise<ScanRunOutcome>;
}

/** The tool's argv with its placeholders filled in. */
export function toolArgv(job: ScanJob, paths: { workspace: string; resultDir: string; rulesDir: string }): string[] {
  const exec = job.tool.execution!;
  const result = `${paths.resultDir}/${exec.resultFile}`;
  const fill = (a: string) =>
    a.replaceAll('{workspace}', paths.workspace).replaceAll('{resultDir}', paths.resultDir).replaceAll('{result}', result).replaceAll('{rules}', paths.rulesDir);
  return [...exec.argv.map(fill), ...job.extraArgs];
}
