import path from 'node:path';
import { Piscina } from 'piscina';
import { AppError, invalid } from '@bulwark/platform';
import type { ImportOutcome, ImportRequest, PreparedReport } from './report-import';

/**
 * Parses reports in worker threads: a 100 MB report no longer stops the service's event loop for
 * seconds, two uploads parse on two cores, and a report that exhausts a worker's heap ends that
 * worker (answered 413) instead of the process.
 */
export class ReportParser {
  private readonly pool: Piscina;

  constructor(opts: { threads: number; memoryMb: number }) {
    this.pool = new Piscina({
      filename: path.join(__dirname, 'report-parse-worker.js'),
      minThreads: 0,
      maxThreads: opts.threads,
      idleTimeout: 30_000,
      resourceLimits: { maxOldGenerationSizeMb: opts.memoryMb },
    });
  }

  /** The prepared report, or a 400 naming `field` when the parser refuses it. */
  async prepare(req: ImportRequest, field: string): Promise<PreparedReport> {
    let outcome: ImportOutcome;
    try {
      outcome = (await this.pool.run(req)) as ImportOutcome;
    } catch (err) {
      if ((err as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY') {
        throw new AppError('payload_too_large', 'The report needs more memory to parse than REPORT_PARSE_MEMORY_MB allows', [{ field, problem: 'is too large to parse' }]);
      }
      throw err;
    }
    if (!outcome.ok) throw invalid(outcome.message, [{ field, problem: outcome.reason }]);
    return outcome.report;
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
