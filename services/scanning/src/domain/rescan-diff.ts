/** The findings a rescan added and those of the previous scan it no longer has, by sequence number (from 1). */
export interface RescanDiff {
  added: number[];
  vanished: number[];
}

/**
 * Above this share of changed findings a diff saves the issues service nothing worth the bookkeeping:
 * it reads every finding instead.
 */
const MAX_CHANGED_SHARE = 0.25;

/**
 * Each content's sequence number (from 1) in a scan's hashes (`width` bytes each, in sequence order),
 * keyed by the hash's bytes as a latin1 string; undefined when a content repeats.
 */
export function contentIndex(hashes: Uint8Array, width: number): Map<string, number> | undefined {
  const seqs = new Map<string, number>();
  const bytes = Buffer.from(hashes.buffer, hashes.byteOffset, hashes.byteLength);
  for (let i = 0, seq = 1; i < bytes.length; i += width, seq++) {
    const key = bytes.toString('latin1', i, i + width);
    // Two findings with one content are merged by the import; should a report still have them, the
    // pairing of the two scans' copies is not defined, so the rescan is not compared.
    if (seqs.has(key)) return undefined;
    seqs.set(key, seq);
  }
  return seqs;
}

/**
 * Compares a scan's findings with the previous scan's of the same check, set-wise by content hash
 * (`width` bytes each, in sequence order): the order of the report does not matter, a finding whose
 * content changed (a moved line) is one vanished and one added. Undefined when the diff is not worth
 * it (too much changed) or not defined (repeated contents).
 */
export function compareFindings(previous: Uint8Array, current: Uint8Array, width: number): RescanDiff | undefined {
  const before = contentIndex(previous, width);
  const now = contentIndex(current, width);
  if (!before || !now) return undefined;
  const added: number[] = [];
  for (const [hash, seq] of now) if (!before.has(hash)) added.push(seq);
  const vanished: number[] = [];
  for (const [hash, seq] of before) if (!now.has(hash)) vanished.push(seq);
  if (added.length + vanished.length > Math.max(now.size, before.size) * MAX_CHANGED_SHARE) return undefined;
  return { added: added.sort((a, b) => a - b), vanished: vanished.sort((a, b) => a - b) };
}
