import { decodeJson, dryRunOutcome, EventPayload, SCAN_EVENTS } from '@bulwark/contracts';
import type { IssuesClient } from '@bulwark/platform';
import type { issuesV1 } from '@bulwark/proto';
import type { FindingsBatch } from '../domain/findings-batch';
import type { ImportRequest } from './report-import';
import type { ReportParser } from './report-parser';

/** The scan an upload would make, as scan.completed would name it (without findings). */
export type DryRunScan = EventPayload<typeof SCAN_EVENTS.scanCompleted>;

/**
 * An upload parsed and compared without writing anything (README "Scanning", dry run): the report
 * is parsed in the parser's worker thread as a real upload's is, and each batch of findings is
 * streamed to the issues service (`DryRunIngestion`) as it is parsed, instead of being stored.
 * The issues service runs its real ingestion on them and rolls it back; its answer is returned.
 */
export class UploadDryRun {
  constructor(
    private readonly deps: {
      parser: ReportParser;
      /** The issues service starts after this one: its client is made at the first dry run. */
      issues: () => IssuesClient;
    },
  ) {}

  async run(scan: DryRunScan, req: ImportRequest, field: string) {
    const answer = await this.deps.issues().dryRunIngestion(this.chunks(scan, req, field));
    return { dry_run: true as const, ...decodeJson(dryRunOutcome, answer.outcomeJson, 'outcome_json') };
  }

  /** The scan first, then the findings of each parsed batch: the parser waits while the stream is behind. */
  private async *chunks(scan: DryRunScan, req: ImportRequest, field: string): AsyncGenerator<issuesV1.DryRunChunk> {
    yield { scanJson: JSON.stringify(scan), findingsJson: [] };
    const pending: { batch: FindingsBatch; taken: () => void }[] = [];
    let wake: (() => void) | undefined;
    let stopped = false;
    let ended: { error?: unknown } | undefined;
    const parsing = this.deps.parser
      .parse({ ...req, settled: true }, field, (batch) => {
        if (stopped) return Promise.reject(new Error('the dry run stopped reading'));
        return new Promise<void>((taken) => {
          pending.push({ batch, taken });
          wake?.();
        });
      })
      .then(
        () => (ended = {}),
        (error: unknown) => (ended = { error }),
      )
      .finally(() => wake?.());
    try {
      for (;;) {
        const next = pending.shift();
        if (next) {
          yield {
            scanJson: '',
            findingsJson: (JSON.parse(next.batch.json) as unknown[]).map((f) => JSON.stringify(f)),
          };
          next.taken();
          continue;
        }
        if (ended) {
          if ('error' in ended) throw ended.error;
          return;
        }
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
      }
    } finally {
      // A stream that failed stops the parse: the batch it waits on is refused, and it ends.
      stopped = true;
      for (const p of pending.splice(0)) p.taken();
      await parsing;
    }
  }
}
