import type { Queryable } from '@bulwark/platform';
import { boundedDiff } from '../domain/rescan-diff';
import { FindingRefGroup, findingRefStore } from '../store/finding-refs';
import { findingStore } from '../store/findings';
import { rescanDiffStore } from '../store/rescan-diffs';
import { BaseReferences, CONTENT_HASH_BYTES, ImportSummary } from './report-import';

/** What `scan.completed` says of a rescan's diff. */
export interface RescanDiffSummary {
  base_scan_result_id: string;
  added: number;
  vanished: number;
}

/** The check's previous completed scan, which a new scan of the check is compared with as it is parsed. */
export interface RescanBase {
  scanId: string;
  /** The scan whose rows and references are the base's findings (the base itself unless it reused another's). */
  sourceId: string;
  /** Content hashes of the base's findings, in sequence order. */
  hashes: Uint8Array;
}

/** The base of a scan about to be parsed; undefined for a check's first scan or a base stored before hashes were kept. */
export async function rescanBase(
  db: Queryable,
  scan: { id: string; checkId: string },
): Promise<RescanBase | undefined> {
  const scanId = await rescanDiffStore.previousCompleted(db, scan.checkId, scan.id);
  if (!scanId) return undefined;
  const sourceId = await findingStore.holder(db, scanId);
  const hashes = await rescanDiffStore.contentHashes(db, sourceId);
  return hashes && { scanId, sourceId, hashes };
}

/**
 * The base's findings a new scan references, grouped by the scan that holds each row: a base finding
 * the base itself referenced points to its holder, so references never chain.
 */
async function holdersOf(db: Queryable, base: RescanBase, refs: BaseReferences): Promise<FindingRefGroup[]> {
  const located = new Map<number, { holderId: string; holderSeq: number }>();
  for (const g of await findingRefStore.groupsOf(db, base.sourceId))
    g.scanSeqs.forEach((seq, i) => located.set(seq, { holderId: g.holderId, holderSeq: g.holderSeqs[i] }));
  const groups = new Map<string, { pairs: [number, number][] }>();
  refs.seqs.forEach((seq, i) => {
    const baseSeq = refs.baseSeqs[i];
    const { holderId, holderSeq } = located.get(baseSeq) ?? { holderId: base.sourceId, holderSeq: baseSeq };
    let group = groups.get(holderId);
    if (!group) groups.set(holderId, (group = { pairs: [] }));
    group.pairs.push([seq, holderSeq]);
  });
  return [...groups].map(([holderId, { pairs }]) => {
    pairs.sort((a, b) => a[0] - b[0]);
    return { holderId, scanSeqs: pairs.map((p) => p[0]), holderSeqs: pairs.map((p) => p[1]) };
  });
}

/**
 * After a scan was parsed against its base: keeps its content hashes (the next scan's base), records
 * the base's findings it references, and compares the two set-wise, so the issues service reads only
 * the findings that changed. The diff is undefined without a base, or when too much changed.
 */
export async function recordAgainstBase(
  db: Queryable,
  scanId: string,
  report: ImportSummary,
  base: RescanBase | undefined,
): Promise<RescanDiffSummary | undefined> {
  await rescanDiffStore.saveContentHashes(db, scanId, report.contentHashes);
  if (!base) return undefined;
  await findingRefStore.insert(db, scanId, await holdersOf(db, base, report.references), report.references.detectedAt);
  const diff =
    report.changes && boundedDiff(report.changes, report.findingsCount, base.hashes.byteLength / CONTENT_HASH_BYTES);
  if (!diff) return undefined;
  await rescanDiffStore.saveDiff(db, scanId, { baseScanId: base.scanId, ...diff });
  return { base_scan_result_id: base.scanId, added: diff.added.length, vanished: diff.vanished.length };
}
