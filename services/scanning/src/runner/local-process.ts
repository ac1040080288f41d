import fs from 'node:fs';
import path from 'node:path';
import { findExecutable, runProcess } from '@bulwark/platform';
import { ScannerSandbox } from './sandbox';
import { ScanJob, ScanRunError, ScanRunner, ScanRunOutcome, toolArgv, toolExecution } from './scan-runner';

export const PGID_FILE = '.scanner-pgid';

/** Where a tool's programs are looked up besides SCANNER_PATH, inside and outside the sandbox. */
const SYSTEM_PATH = ['/usr/local/bin', '/usr/bin', '/bin'];

/** Signals the kernel sends at a sandbox limit, by number (bwrap exits with 128 + the signal). */
const LIMIT_SIGNALS: Record<number, string> = {
  9: 'killed: out of memory or CPU time (SCAN_SANDBOX_MEMORY_MB, SCAN_SANDBOX_CPU_SECONDS)',
  24: 'CPU time limit reached (SCAN_SANDBOX_CPU_SECONDS)',
  25: 'file size limit reached (SCAN_SANDBOX_MAX_FILE_MB)',
};

/**
 * Removes symbolic links of the checkout that leave it or lead nowhere: scanners read through links
 * and quote what they read in reports (a link to a secret file would leak it, with or without the
 * sandbox), and a dangling link makes ESLint fail the whole scan.
 */
export function removeEscapingLinks(workspace: string): number {
  const root = fs.realpathSync(workspace);
  let removed = 0;
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isSymbolicLink()) {
        let target: string | undefined;
        try {
          target = fs.realpathSync(full);
        } catch {
          // dangling
        }
        if (target === undefined || !(target === root || target.startsWith(`${root}${path.sep}`))) {
          fs.unlinkSync(full);
          removed++;
        }
      } else if (entry.isDirectory() && !(dir === workspace && entry.name === '.git')) walk(full);
    }
  };
  walk(workspace);
  return removed;
}

const tail = (text: string, n = 2000) => (text.length > n ? `…${text.slice(-n)}` : text);

/**
 * Runs the scanner as a child process of this service, in the scanner sandbox (unless the operator
 * turned it off): argv only, its own process group (killed whole on stop or timeout), capped output,
 * an environment of PATH (the configured scanner directories), HOME, LANG and the tool type's own
 * variables, nothing else of this service's environment.
 */
export class LocalProcessRunner implements ScanRunner {
  readonly kind = 'local' as const;
  readonly needsLocalCheckout = true;
  private readonly toolPath: string[];

  constructor(
    scannerPath: string[],
    private readonly outputLimitBytes: number,
    private readonly sandbox: ScannerSandbox,
  ) {
    // Node.js runs ESLint (`#!/usr/bin/env node`): the one this service runs on.
    this.toolPath = [...new Set([...scannerPath, path.dirname(process.execPath), ...SYSTEM_PATH])];
  }

  async run(job: ScanJob, signal: AbortSignal): Promise<ScanRunOutcome> {
    const exec = toolExecution(job);
    if (this.sandbox.problem) {
      throw new ScanRunError(
        `The scanner sandbox does not work on this server (${this.sandbox.problem}): install bubblewrap (deploy/local/scanners.sh install), or set SCAN_SANDBOX=none to run scanners without it`,
      );
    }
    const binary = findExecutable(this.toolPath, exec.binary);
    if (!binary)
      throw new ScanRunError(
        `Scanner binary "${exec.binary}" was not found on this server; install it (${exec.install}) or add its folder to SCANNER_PATH`,
      );
    const argv = toolArgv(job, { workspace: job.workspace, resultDir: job.resultDir, rulesDir: job.rulesDir });
    removeEscapingLinks(job.workspace);
    this.sandbox.prepare([job.workspace, job.resultDir]);
    const plan = this.sandbox.plan({
      binary,
      argv,
      env: { PATH: this.toolPath.join(path.delimiter), HOME: job.resultDir, LANG: 'C.UTF-8', ...(exec.env ?? {}) },
      cwd: exec.workingDir === 'resultDir' ? job.resultDir : job.workspace,
      readOnly: [job.workspace],
      writable: [job.resultDir],
    });
    const res = await runProcess(plan.binary, plan.argv, {
      env: plan.env,
      cwd: plan.cwd,
      timeoutMs: job.timeoutMs,
      signal,
      outputLimitBytes: this.outputLimitBytes,
      // Recorded so that a restarted service can kill scanners its dead predecessor left behind.
      onSpawn: (pid) => fs.writeFileSync(path.join(job.scanDir, PGID_FILE), String(pid)),
    });
    const log = tail(`${res.stdout}\n${res.stderr}`.trim());
    if (res.aborted) throw new ScanRunError('Scan stopped');
    if (res.timedOut)
      throw new ScanRunError(
        `${job.tool.name} did not finish within ${Math.round(job.timeoutMs / 1000)} s and was killed`,
      );
    if (res.spawnError)
      throw new ScanRunError(`${job.tool.name} could not be started: ${res.spawnError.code ?? res.spawnError.message}`);
    if (res.code === null || !exec.okExitCodes.includes(res.code)) {
      const limit = res.code !== null && this.sandbox.enabled ? LIMIT_SIGNALS[res.code - 128] : undefined;
      throw new ScanRunError(
        `${job.tool.name} failed with exit code ${res.code}${limit ? ` (${limit})` : ''}: ${tail(res.stderr.trim() || res.stdout.trim(), 500)}`,
      );
    }
    const reportPath = path.join(job.resultDir, exec.resultFile);
    if (!fs.existsSync(reportPath))
      throw new ScanRunError(`${job.tool.name} finished without writing its report (${exec.resultFile})`);
    return { reportPath, log };
  }
}
