import fs from 'node:fs';
import path from 'node:path';
import { runProcess } from '@bulwark/platform';
import { ScanJob, ScanRunError, ScanRunner, ScanRunOutcome, toolArgv } from './scan-runner';

export const PGID_FILE = '.scanner-pgid';

const tail = (text: string, n = 2000) => (text.length > n ? `…${text.slice(-n)}` : text);

/**
 * Runs the scanner as a child process of this service: argv only, its own process group (killed
 * whole on stop or timeout), capped output, and a PATH made of the configured scanner directories.
 */
export class LocalProcessRunner implements ScanRunner {
  readonly kind = 'local' as const;
  readonly needsLocalCheckout = true;

  constructor(private readonly scannerPath: string[], private readonly outputLimitBytes: number) {}

  private find(binary: string): string | undefined {
    const dirs = [...this.scannerPath, ...(process.env.PATH ?? '').split(path.delimiter)].filter(Boolean);
    for (const dir of dirs) {
      const candidate = path.join(dir, binary);
      try {
        fs.accessSync(candidate, fs.constants.X_OK);
        return candidate;
      } catch {
        // not here
      }
    }
    return undefined;
  }

  async run(job: ScanJob, signal: AbortSignal): Promise<ScanRunOutcome> {
    const exec = job.tool.execution!;
    const binary = this.find(exec.binary);
    if (!binary) throw new ScanRunError(`Scanner binary "${exec.binary}" was not found on this server; install it (${exec.install}) or add its folder to SCANNER_PATH`);
    const env: NodeJS.ProcessEnv = {
      PATH: [...this.scannerPath, process.env.PATH ?? ''].join(path.delimiter),
      HOME: job.resultDir,
      LANG: 'C.UTF-8',
      ...(exec.env ?? {}),
    };
    const argv = toolArgv(job, { workspace: job.workspace, resultDir: job.resultDir, rulesDir: job.rulesDir });
    const res = await runProcess(binary, argv, {
      env, cwd: job.workspace, timeoutMs: job.timeoutMs, signal, outputLimitBytes: this.outputLimitBytes,
      // Recorded so that a restarted service can kill scanners its dead predecessor left behind.
      onSpawn: (pid) => fs.writeFileSync(path.join(job.scanDir, PGID_FILE), String(pid)),
    });
    const log = tail(`${res.stdout}\n${res.stderr}`.trim());
    if (res.aborted) throw new ScanRunError('Scan stopped');
    if (res.timedOut) throw new ScanRunError(`${job.tool.name} did not finish within ${Math.round(job.timeoutMs / 1000)} s and was killed`);
    if (res.spawnError) throw new ScanRunError(`${job.tool.name} could not be started: ${res.spawnError.code ?? res.spawnError.message}`);
    if (res.code === null || !exec.okExitCodes.includes(res.code)) {
      throw new ScanRunError(`${job.tool.name} failed with exit code ${res.code}: ${tail(res.stderr.trim() || res.stdout.trim(), 500)}`);
    }
    const reportPath = path.join(job.resultDir, exec.resultFile);
    if (!fs.existsSync(reportPath)) throw new ScanRunError(`${job.tool.name} finished without writing its report (${exec.resultFile})`);
    return { reportPath, log };
  }
}
