import { createHash, hash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { MessagePort } from 'node:worker_threads';
import {
  computeFingerprints,
  Finding,
  mergeDuplicates,
  parseReport,
  ReportParseError,
  SEVERITIES,
  Severity,
  streamImportReport,
} from '@bulwark/findings';
import { relativeToWorkspace } from '../domain/report';
import type { FindingsBatch } from '../domain/findings-batch';
import { BaseClaims, contentIndex, RescanDiff } from '../domain/rescan-diff';

/** Findings per stored batch: one INSERT statement each, parsed by PostgreSQL from one JSON array. */
export const FINDINGS_BATCH = 2000;

export interface ImportRequest {
  /** The file holding the report: an upload's temporary file, or the file a scanner wrote. */
  path: string;
  format?: string;
  /** The name errors use (an upload's file name); default the file's base name. */
  name?: string;
  /** The scan's checkout: paths inside it become repository-relative before fingerprinting. */
  workspace?: string;
  /**
   * Each finding handed over once, in order, after the report was read: for a consumer that cannot
   * replace a finding it was given (a dry run streams them on to the issues service).
   */
  settled?: boolean;
}

/** An import compared as it goes with the check's previous scan (the base): its content hashes in sequence order. */
export interface BasedImportRequest extends ImportRequest {
  base?: Uint8Array;
}

/**
 * The findings of an import that the base scan has already (same content, and the run's `detectedAt`):
 * they are not stored again but referenced, this import's sequence number beside the base's.
 */
export interface BaseReferences {
  seqs: Int32Array;
  baseSeqs: Int32Array;
  /** The `detectedAt` every referenced finding carries in this report (the run's time), null for none. */
  detectedAt: string | null;
}

/** An import as the parsing thread receives it: where to send the batches, and the store's progress. */
export interface ImportTask extends BasedImportRequest {
  port: MessagePort;
  /** Int32 [0]: batches stored so far; [1]: 1 once the store gave up (the transaction failed). */
  progress: SharedArrayBuffer;
}

/** What an import stored besides the findings themselves. */
export interface ImportSummary {
  format: string;
  findingsCount: number;
  severityCounts: Record<string, number>;
  /**
   * sha256 over each finding's content hash, in order: equal digests hand the issues service equal
   * findings (equal in all it reads: a finding's `detectedAt`, the run's time, is left out).
   */
  digest: string;
  /** Each finding's content hash ({@link CONTENT_HASH_BYTES} bytes), by sequence number from 1: what a rescan is compared with. */
  contentHashes: Uint8Array;
  /** What the base scan holds already (none without a base). */
  references: BaseReferences;
  /** What changed against the base by content, found as the report was read; undefined without a base. */
  changes: RescanDiff | undefined;
  size: number;
}

/**
 * Bytes of a finding's content hash: a sha256 of its JSON without `detectedAt`, which scanners set
 * to the run's start time, so a rescan of unchanged code has the same hashes in new bytes.
 */
export const CONTENT_HASH_BYTES = 32;

export type ImportOutcome = { ok: true; report: ImportSummary } | { ok: false; message: string; reason: string };

/**
 * One import of a report, all at once (tests, tools): parsed, paths made repository-relative before
 * fingerprinting (a fingerprint must not depend on the temporary folder a scan ran in), true
 * duplicates merged. The service itself streams (`importReportFile`), with the same result.
 */
export function importScanReport(
  input: string | Buffer,
  opts: { format?: string; name?: string; workspace?: string },
): { format: string; findings: Finding[] } {
  const parsed = parseReport(input, { format: opts.format === 'auto' ? undefined : opts.format, name: opts.name });
  if (opts.workspace) {
    relativeToWorkspace(parsed.findings, fs.realpathSync(opts.workspace));
    relativeToWorkspace(parsed.findings, opts.workspace);
    computeFingerprints(parsed.findings);
  }
  return { format: parsed.format, findings: mergeDuplicates(parsed.findings) };
}

let parserBuild: string | undefined;

/** A digest of the parsers' code as built: an upgrade that changes how a report parses never reuses older findings. */
function parserBuildId(): string {
  if (parserBuild) return parserBuild;
  const root = path.join(path.dirname(require.resolve('@bulwark/findings/package.json')), 'dist');
  const hash = createHash('sha256');
  const files = fs
    .readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.js'))
    .sort();
  for (const f of files)
    hash
      .update(f)
      .update('\0')
      .update(fs.readFileSync(path.join(root, f)))
      .update('\0');
  parserBuild = hash.digest('hex');
  return parserBuild;
}

/**
 * What decides an upload's findings: the bytes (their sha256, counted as the upload streamed in),
 * the declared format and file name, and the parsers' code. Two uploads to one check with the same
 * key yield the same findings.
 */
export function importKeyOf(bytesSha256: string, opts: { format?: string; name?: string }): string {
  return createHash('sha256')
    .update(JSON.stringify([parserBuildId(), opts.format ?? null, opts.name ?? null]))
    .update('\0')
    .update(bytesSha256)
    .digest('hex');
}

/**
 * Parses a report file and hands its findings to `send` in batches of FINDINGS_BATCH as it reads
 * (see OnePassImport): a finding that the rest of the report changed is sent again at the end in a
 * batch that `replaces` it; neither the report nor all findings are ever in memory. With `settled`,
 * each finding is sent once, in order, after the report was read. A report the parser refuses is an
 * outcome, not an exception (it crosses a thread); batches sent before it was refused are the
 * caller's to discard.
 */
export function importReportFile(req: BasedImportRequest, send: (batch: FindingsBatch) => void): ImportOutcome {
  const realWorkspace = req.workspace ? fs.realpathSync(req.workspace) : undefined;
  const workspace = req.workspace;
  const prepare =
    workspace && realWorkspace
      ? (f: Finding) => {
          relativeToWorkspace([f], realWorkspace);
          relativeToWorkspace([f], workspace);
        }
      : undefined;
  const counts = Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as Record<Severity, number>;
  // One content hash per finding, by position: findings of groups settled at the end arrive out of order.
  let hashes = Buffer.alloc(CONTENT_HASH_BYTES * 1024);
  const index = req.base ? contentIndex(req.base, CONTENT_HASH_BYTES) : undefined;
  const claims = index && new BaseClaims(index);
  // The run's time: the first finding's. A finding with another time is stored, so a reference never changes one.
  let runDetectedAt: string | undefined | null = null;
  const references = new Map<number, number>();
  const added = new Set<number>();
  const batches = { found: new PendingBatch(), replacing: new PendingBatch() };
  const flush = (which: PendingBatch, replaces: boolean) => {
    const batch = which.take();
    if (batch) send(replaces ? { ...batch, replaces } : batch);
  };
  /** Records a finding's content at `seq` and pairs it with the base: whether it is to be stored. */
  const record = (seq: number, f: Finding, content: string, reference: boolean): boolean => {
    if ((seq + 1) * CONTENT_HASH_BYTES > hashes.length) {
      const grown = Buffer.alloc(Math.max(hashes.length * 2, (seq + 1) * CONTENT_HASH_BYTES));
      hashes.copy(grown);
      hashes = grown;
    }
    const contentHash = hash('sha256', content, 'buffer');
    contentHash.copy(hashes, seq * CONTENT_HASH_BYTES);
    if (!claims) return true;
    const baseSeq = claims.claim(contentHash.toString('latin1'), seq);
    if (baseSeq === undefined) {
      added.add(seq + 1);
      return true;
    }
    if (!reference || f.detectedAt !== runDetectedAt) return true;
    references.set(seq, baseSeq);
    return false;
  };
  let result: { format: string; count: number };
  try {
    result = streamImportReport(
      req.path,
      { format: req.format === 'auto' ? undefined : req.format, name: req.name ?? path.basename(req.path), prepare },
      {
        found: (seq, f, json) => {
          counts[f.severity] += 1;
          if (runDetectedAt === null) runDetectedAt = f.detectedAt;
          // Stored sequence numbers start at 1: the hand-over to the issues service reads those after 0.
          if (record(seq, f, json.content, true) && batches.found.add(seq + 1, json.text) >= FINDINGS_BATCH)
            flush(batches.found, false);
        },
        amended: req.settled
          ? undefined
          : (seq, f, json) => {
              claims?.release(hashes.toString('latin1', seq * CONTENT_HASH_BYTES, (seq + 1) * CONTENT_HASH_BYTES), seq);
              added.delete(seq + 1);
              references.delete(seq);
              // Stored, whatever the base has: the row a batch sent before may hold its first form.
              record(seq, f, json.content, false);
              // A replacement follows the row it replaces.
              flush(batches.found, false);
              if (batches.replacing.add(seq + 1, json.text) >= FINDINGS_BATCH) flush(batches.replacing, true);
            },
      },
    );
    flush(batches.found, false);
    flush(batches.replacing, true);
  } catch (err) {
    if (err instanceof ReportParseError) return { ok: false, message: err.message, reason: err.reason };
    throw err;
  }
  const referenced = [...references].sort((a, b) => a[0] - b[0]);
  return {
    ok: true,
    report: {
      format: result.format,
      findingsCount: result.count,
      severityCounts: counts,
      digest: createHash('sha256')
        .update(hashes.subarray(0, result.count * CONTENT_HASH_BYTES))
        .digest('hex'),
      contentHashes: hashes.subarray(0, result.count * CONTENT_HASH_BYTES),
      references: {
        seqs: Int32Array.from(referenced, ([seq]) => seq + 1),
        baseSeqs: Int32Array.from(referenced, ([, baseSeq]) => baseSeq),
        detectedAt: runDetectedAt ?? null,
      },
      changes: claims && {
        added: [...added].sort((a, b) => a - b),
        vanished: claims.unclaimed(),
      },
      size: fs.statSync(req.path).size,
    },
  };
}

/** Findings gathered for one batch. */
class PendingBatch {
  private seqs: number[] = [];
  private json: string[] = [];

  /** Adds a finding; the answer is the batch's size. */
  add(seq: number, text: string): number {
    this.seqs.push(seq);
    this.json.push(text);
    return this.seqs.length;
  }

  take(): FindingsBatch | undefined {
    if (this.seqs.length === 0) return undefined;
    const batch = { seqs: this.seqs, json: `[${this.json.join(',')}]` };
    this.seqs = [];
    this.json = [];
    return batch;
  }
}
