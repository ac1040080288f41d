import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { constants as zlibConstants, gzipSync } from 'node:zlib';
import { computeFingerprints, Finding, mergeDuplicates, parseReport, ReportParseError } from '@bulwark/findings';
import { relativeToWorkspace, severityCounts } from '../domain/report';

/** Findings per stored batch: one INSERT statement each, parsed by PostgreSQL from one JSON array. */
export const FINDINGS_BATCH = 5000;

export interface ImportRequest {
  /** The report itself, or the path of the file a scanner wrote. */
  input: Uint8Array | { path: string };
  format?: string;
  name?: string;
  /** The scan's checkout: paths inside it become repository-relative before fingerprinting. */
  workspace?: string;
}

/** A report made ready for storage: everything CPU-bound is done, what is left is the database's. */
export interface PreparedReport {
  format: string;
  findingsCount: number;
  severityCounts: Record<string, number>;
  /** sha256 of the findings' JSON in order, one per line: equal digests hand the issues service equal findings. */
  digest: string;
  /** The findings in order as JSON arrays of up to FINDINGS_BATCH each. */
  batches: string[];
  size: number;
  gzip: Uint8Array;
}

export type ImportOutcome = { ok: true; report: PreparedReport } | { ok: false; message: string; reason: string };

/**
 * One import of a report: parsed, paths made repository-relative before fingerprinting (a fingerprint
 * must not depend on the temporary folder a scan ran in), true duplicates merged.
 */
export function importScanReport(input: string | Buffer, opts: { format?: string; name?: string; workspace?: string }): { format: string; findings: Finding[] } {
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
  const files = fs.readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js')).sort();
  for (const f of files) hash.update(f).update('\0').update(fs.readFileSync(path.join(root, f))).update('\0');
  parserBuild = hash.digest('hex');
  return parserBuild;
}

/**
 * What decides an upload's findings: the bytes, the declared format and file name, and the parsers'
 * code. Two uploads to one check with the same key yield the same findings.
 */
export function importKeyOf(bytes: Buffer, opts: { format?: string; name?: string }): string {
  return createHash('sha256')
    .update(JSON.stringify([parserBuildId(), opts.format ?? null, opts.name ?? null]))
    .update('\0')
    .update(bytes)
    .digest('hex');
}

/** Parses and serializes a report; a report the parser refuses is an outcome, not an exception (it crosses a thread). */
export function prepareReport(req: ImportRequest): ImportOutcome {
  // Read once: the same bytes are parsed and stored. A scanner's file is named by its base name, not its temporary path.
  const bytes = 'path' in req.input ? fs.readFileSync(req.input.path) : Buffer.from(req.input.buffer, req.input.byteOffset, req.input.byteLength);
  const name = req.name ?? ('path' in req.input ? path.basename(req.input.path) : undefined);
  let imported: { format: string; findings: Finding[] };
  try {
    imported = importScanReport(bytes, { format: req.format, name, workspace: req.workspace });
  } catch (err) {
    if (err instanceof ReportParseError) return { ok: false, message: err.message, reason: err.reason };
    throw err;
  }
  const digest = createHash('sha256');
  const batches: string[] = [];
  const { findings } = imported;
  for (let i = 0; i < findings.length; i += FINDINGS_BATCH) {
    const json = findings.slice(i, i + FINDINGS_BATCH).map((f) => JSON.stringify(f));
    for (const line of json) digest.update(line).update('\n');
    batches.push(`[${json.join(',')}]`);
  }
  return {
    ok: true,
    report: {
      format: imported.format,
      findingsCount: findings.length,
      severityCounts: severityCounts(findings),
      digest: digest.digest('hex'),
      batches,
      size: bytes.length,
      // The fastest level: the stored report is kept for download, and level 6 cost seconds per upload for a few percent.
      gzip: gzipSync(bytes, { level: zlibConstants.Z_BEST_SPEED }),
    },
  };
}
