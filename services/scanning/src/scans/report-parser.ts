import fs from 'node:fs';
import path from 'node:path';
import { MessageChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { AppError, invalid, Queryable } from '@bulwark/platform';
import { contentTypeOf } from '../domain/report';
import { findingStore } from '../store/findings';
import type { FindingsBatch } from '../domain/findings-batch';
import type { BasedImportRequest, ImportOutcome, ImportRequest, ImportSummary, ImportTask } from './report-import';
import { recordAgainstBase, rescanBase, RescanDiffSummary } from './rescan-diff';

/**
 * Report files from this size on parse in a thread that ends with its parse. A thread kept idle keeps
 * the garbage of its last parse: after a 100 MiB report about 130 MB of RSS, held into the issues
 * service's ingestion of the same scan, which is when the process's memory peaks (bench/README.md,
 * "The upload's memory: one 100 MiB upload"). Starting a thread costs about 0.1 CPU-s, so smaller
 * reports keep theirs.
 */
export const LARGE_REPORT_BYTES = 16 << 20;

/**
 * Parses reports in worker threads: a 100 MB report does not stop the service's event loop, two
 * imports parse on two cores, and a report that exhausts a worker's heap ends that worker (answered
 * 413) instead of the process. The worker reads the report from its file and hands the findings
 * over in batches as it goes; each is stored before the worker runs more than one batch ahead, so
 * memory stays bounded whatever the report's size.
 */
export class ReportParser {
  /** Threads for reports under {@link LARGE_REPORT_BYTES}, kept a while for the next one. */
  private readonly pool: Piscina;
  /** Threads for larger reports, ended as soon as their parse is. */
  private readonly largePool: Piscina;
  /** The two pools share REPORT_PARSE_THREADS: parses beyond it wait here, not in a second pool's threads. */
  private readonly threads: ParseSlots;

  constructor(opts: { threads: number; memoryMb: number }) {
    const pool = (idleTimeout: number) =>
      new Piscina({
        filename: path.join(__dirname, 'report-parse-worker.js'),
        minThreads: 0,
        maxThreads: opts.threads,
        idleTimeout,
        resourceLimits: { maxOldGenerationSizeMb: opts.memoryMb },
      });
    this.pool = pool(30_000);
    this.largePool = pool(0);
    this.threads = new ParseSlots(opts.threads);
  }

  /**
   * Parses the report file into `scanId`'s findings inside the caller's transaction `db`. A report
   * the parser refuses is a 400 naming `field`; whatever was stored before is the transaction's to
   * roll back (the caller fails it), so a scan has all its findings or none.
   */
  importInto(db: Queryable, scanId: string, req: BasedImportRequest, field: string): Promise<ImportSummary> {
    return this.parse(req, field, (batch) => findingStore.insertBatch(db, scanId, batch));
  }

  /**
   * Parses the report file, handing each batch to `consume` in order; the parser runs at most two
   * batches ahead of the last one `consume` finished, so memory stays bounded. A report the parser
   * refuses is a 400 naming `field`; a failing `consume` stops the parse and is thrown.
   */
  async parse(
    req: BasedImportRequest,
    field: string,
    consume: (batch: FindingsBatch) => Promise<void>,
  ): Promise<ImportSummary> {
    const { port1, port2 } = new MessageChannel();
    const progress = new Int32Array(new SharedArrayBuffer(8));
    let failure: { error: unknown } | undefined;
    let storing: Promise<void> = Promise.resolve();
    port1.on('message', (batch: FindingsBatch) => {
      storing = storing.then(async () => {
        if (failure) return;
        try {
          await consume(batch);
          Atomics.add(progress, 0, 1);
        } catch (error) {
          failure = { error };
          Atomics.store(progress, 1, 1);
        }
        Atomics.notify(progress, 0);
      });
    });
    let outcome: ImportOutcome;
    try {
      const task: ImportTask = { ...req, port: port2, progress: progress.buffer };
      const pool = await this.poolFor(req.path);
      outcome = (await this.threads.run(() => pool.run(task, { transferList: [port2] as never }))) as ImportOutcome;
    } catch (err) {
      await storing;
      if (failure) throw failure.error;
      if ((err as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY') {
        throw new AppError(
          'payload_too_large',
          'The report needs more memory to parse than REPORT_PARSE_MEMORY_MB allows',
          [{ field, problem: 'is too large to parse' }],
        );
      }
      throw err;
    } finally {
      // No statement may run on the transaction after this returns: the last batch is awaited.
      await storing;
      port1.close();
    }
    if (failure) throw failure.error;
    if (!outcome.ok) throw invalid(outcome.message, [{ field, problem: outcome.reason }]);
    return outcome.report;
  }

  /**
   * A report file made a scan's findings and stored report inside the caller's transaction: parsed
   * into the findings while its gzip is stored beside them; the first failure stops the other, and
   * the transaction rolls back whatever was written. The findings are compared with the check's
   * previous scan as they are parsed: those it has already are referenced, not stored (`diff`).
   */
  async store(
    db: Queryable,
    scan: { id: string; checkId: string },
    req: ImportRequest,
    field: string,
    file: { fileName?: string; importKey?: string },
  ): Promise<ImportSummary & { diff?: RescanDiffSummary }> {
    const scanId = scan.id;
    const base = await rescanBase(db, scan);
    const stop = new AbortController();
    const [parsed, stored] = await Promise.allSettled([
      this.importInto(db, scanId, { ...req, base: base?.hashes }, field).catch((err: unknown) => {
        stop.abort();
        throw err;
      }),
      findingStore.insertReportFile(db, scanId, req.path, stop.signal),
    ]);
    if (parsed.status === 'rejected') throw parsed.reason;
    if (stored.status === 'rejected') throw stored.reason;
    const report = parsed.value;
    await findingStore.insertReport(db, scanId, {
      fileName: file.fileName ?? `upload.${report.format}`,
      contentType: contentTypeOf(report.format),
      size: report.size,
      importKey: file.importKey,
    });
    return { ...report, diff: await recordAgainstBase(db, scanId, report, base) };
  }

  private async poolFor(file: string): Promise<Piscina> {
    // A file that cannot be read is the parse's to report, as before.
    const size = await fs.promises.stat(file).then(
      (s) => s.size,
      () => 0,
    );
    return size >= LARGE_REPORT_BYTES ? this.largePool : this.pool;
  }

  async close(): Promise<void> {
    await Promise.all([this.pool.close(), this.largePool.close()]);
  }
}

/** At most `size` parses at once, over both pools; the others wait their turn in order. */
class ParseSlots {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly size: number) {}

  async run<T>(parse: () => Promise<T>): Promise<T> {
    if (this.running >= this.size) await new Promise<void>((resume) => this.waiting.push(resume));
    else this.running += 1;
    try {
      return await parse();
    } finally {
      // A slot passes straight to the next waiting parse, so none can overtake it.
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    }
  }
}
