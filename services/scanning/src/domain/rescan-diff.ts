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
 * A rescan's changes against its base (found set-wise by content as the report was read: the order
 * does not matter, a finding whose content changed, a moved line, is one vanished and one added),
 * kept when they are worth a diff; above a quarter of either scan's findings, undefined.
 */
export function boundedDiff(changes: RescanDiff, count: number, baseCount: number): RescanDiff | undefined {
  return changes.added.length + changes.vanished.length > Math.max(count, baseCount) * MAX_CHANGED_SHARE
    ? undefined
    : changes;
}

/**
 * An import's findings paired with its base's by content as they come, each base content with one
 * finding (a second finding with that content is an added one). A finding amended once the report
 * was read gives its claim back before its new content is paired.
 */
export class BaseClaims {
  private readonly claimedBy = new Map<string, number>();

  constructor(private readonly index: Map<string, number>) {}

  /** The base's sequence number of `content`, now claimed by `seq`; undefined when added. */
  claim(content: string, seq: number): number | undefined {
    const baseSeq = this.index.get(content);
    if (baseSeq === undefined || this.claimedBy.has(content)) return undefined;
    this.claimedBy.set(content, seq);
    return baseSeq;
  }

  /** Gives back what `seq` claimed with `content`, if it did. */
  release(content: string, seq: number): void {
    if (this.claimedBy.get(content) === seq) this.claimedBy.delete(content);
  }

  /** The base's findings no finding of the import claimed, by sequence number. */
  unclaimed(): number[] {
    const out: number[] = [];
    for (const [content, baseSeq] of this.index) if (!this.claimedBy.has(content)) out.push(baseSeq);
    return out.sort((a, b) => a - b);
  }
}
