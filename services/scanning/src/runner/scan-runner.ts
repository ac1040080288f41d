import { checkExtraArgs, CliExecution, ToolType } from '@bulwark/contracts';

/** One scan for a runner: which tool, on what, where the report goes, and its limits. */
export interface ScanJob {
  scanId: string;
  tool: ToolType;
  /** The scan's private folder (holds workspace and results); removed by the worker afterwards. */
  scanDir: string;
  /** The checked-out source. */
  workspace: string;
  /** Where the tool writes its report (`resultFile` inside it). */
  resultDir: string;
  rulesDir: string;
  timeoutMs: number;
  extraArgs: string[];
  resources?: { cpu?: string; memory?: string };
  /** What to check out, for runners that check the source out themselves (`needsLocalCheckout` false). */
  checkout?: ScanCheckout;
}

/** A source checkout: the repository, the branch or tag (and commit on it), and its credentials. */
export interface ScanCheckout {
  url: string;
  ref?: string;
  commit?: string;
  authMethod: string;
  login?: string;
  password?: string;
  sshPrivateKey?: string;
  timeoutSeconds: number;
}

export interface ScanRunOutcome {
  /** The report the tool wrote. */
  reportPath: string;
  /** The end of the tool's output, for the scan's log. */
  log: string;
}

/** A failure with a message fit for the scan result (no secrets, no internals). */
export class ScanRunError extends Error {}

/**
 * The abort reason of a scan handed back because this process shuts down: a runner whose work
 * outlives the process (a Kubernetes Job) leaves it running for the worker that claims the scan next.
 */
export const SHUTDOWN = 'shutdown';

/** The abort reason of a scan whose lease another worker took over: its work is left to that worker. */
export const LEASE_LOST = 'lease-lost';

/** Whether an abort hands the scan on (shutdown, lease lost) rather than stopping it. */
export const handsOn = (signal: AbortSignal) => signal.reason === SHUTDOWN || signal.reason === LEASE_LOST;

/** Where scanners run: a local child process (default) or a Kubernetes Job. */
export interface ScanRunner {
  readonly kind: 'local' | 'kubernetes';
  /** True when the worker checks the source out into `workspace` first; false when the runner uses `checkout`. */
  readonly needsLocalCheckout: boolean;
  run(job: ScanJob, signal: AbortSignal): Promise<ScanRunOutcome>;
}

/** The tool's command line. The worker runs only tools that have one, so its absence is a failure of the scan. */
export function toolExecution(job: ScanJob): CliExecution {
  if (!job.tool.execution) throw new ScanRunError(`${job.tool.name} has no command line to run`);
  return job.tool.execution;
}

/**
 * The tool's argv with its placeholders filled in. The settings' `extra_args` are checked against the
 * tool type's allow-list once more here, for settings stored before the list existed or written past the API.
 */
export function toolArgv(job: ScanJob, paths: { workspace: string; resultDir: string; rulesDir: string }): string[] {
  const exec = toolExecution(job);
  const refused = checkExtraArgs(exec.extraArgs, job.extraArgs);
  if (refused.length > 0) {
    throw new ScanRunError(
      `The tool settings' extra_args are not allowed for ${job.tool.name}: ${refused.map((p) => `extra_args[${p.index}] ${p.problem}`).join('; ')}`,
    );
  }
  const result = `${paths.resultDir}/${exec.resultFile}`;
  const fill = (a: string) =>
    a
      .replaceAll('{workspace}', paths.workspace)
      .replaceAll('{resultDir}', paths.resultDir)
      .replaceAll('{result}', result)
      .replaceAll('{rules}', paths.rulesDir);
  return [...exec.argv.map(fill), ...job.extraArgs];
}
