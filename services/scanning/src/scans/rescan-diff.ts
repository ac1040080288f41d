import type { Queryable } from '@bulwark/platform';
import { compareFindings } from '../domain/rescan-diff';
import { findingStore } from '../store/findings';
import { rescanDiffStore } from '../store/rescan-diffs';
import { CONTENT_HASH_BYTES } from './report-import';

/** What `scan.completed` says of a rescan's diff. */
export interface RescanDiffSummary {
  base_scan_result_id: string;
  added: number;
  vanished: number;
}

/**
 * Keeps a parsed scan's content hashes and compares them with the check's previous scan: the diff
 * lets the issues service read only the findings that changed. Undefined for a first scan, one whose
 * previous scan has no hashes (stored before they were kept), or one that changed too much.
 */
export async function recordRescanDiff(
  db: Queryable,
  scan: { id: string; checkId: string },
  hashes: Uint8Array,
): Promise<RescanDiffSummary | undefined> {
  await rescanDiffStore.saveContentHashes(db, scan.id, hashes);
  const base = await rescanDiffStore.previousCompleted(db, scan.checkId, scan.id);
  if (!base) return undefined;
  const previous = await rescanDiffStore.contentHashes(db, await findingStore.holder(db, base));
  if (!previous) return undefined;
  const diff = compareFindings(previous, hashes, CONTENT_HASH_BYTES);
  if (!diff) return undefined;
  await rescanDiffStore.saveDiff(db, scan.id, { baseScanId: base, ...diff });
  return { base_scan_result_id: base, added: diff.added.length, vanished: diff.vanished.length };
}
