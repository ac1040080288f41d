import type { Queryable } from '@bulwark/platform';
import { FindingRefGroup, findingRefStore, FindingText } from '../store/finding-refs';
import { findingStore } from '../store/findings';
import { rescanDiffStore } from '../store/rescan-diffs';

/** The first index of sorted `values` holding a value ≥ `min`. */
function firstAtLeast(values: number[], min: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid] < min) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * A scan's findings by sequence number, whether the scan stores them or references another scan's
 * rows (a rescan's unchanged findings): what the hand-over to the issues service reads.
 */
export class ScanFindings {
  private constructor(
    private readonly db: Queryable,
    private readonly sourceId: string,
    private readonly ownLast: number,
    private readonly groups: FindingRefGroup[],
  ) {}

  /** The findings of scan `scanId` (read from the scan that holds them when it reused another's). */
  static async of(db: Queryable, scanId: string): Promise<ScanFindings> {
    const sourceId = await findingStore.holder(db, scanId);
    const [ownLast, groups] = await Promise.all([
      findingStore.lastSeq(db, sourceId),
      findingRefStore.groupsOf(db, sourceId),
    ]);
    return new ScanFindings(db, sourceId, ownLast, groups);
  }

  /** The highest sequence number, 0 without findings. */
  get lastSeq(): number {
    return Math.max(this.ownLast, ...this.groups.map((g) => g.scanSeqs[g.scanSeqs.length - 1] ?? 0));
  }

  /** The findings numbered after `afterSeq` up to `afterSeq + span`, in order. */
  async range(afterSeq: number, span: number): Promise<FindingText[]> {
    const own = afterSeq < this.ownLast ? await findingStore.chunk(this.db, this.sourceId, afterSeq, span) : [];
    const referenced = await this.referenced((g) => [
      firstAtLeast(g.scanSeqs, afterSeq + 1),
      firstAtLeast(g.scanSeqs, afterSeq + span + 1),
    ]);
    return [...own, ...referenced].sort((a, b) => a.seq - b.seq);
  }

  /** The findings with these sequence numbers (sorted), in order. */
  async at(seqs: number[]): Promise<FindingText[]> {
    const own = await rescanDiffStore.findingsAt(this.db, this.sourceId, seqs);
    const wanted = new Set(seqs);
    const referenced: FindingText[] = [];
    for (const g of this.groups) {
      const picked = g.scanSeqs.flatMap((seq, i) => (wanted.has(seq) ? [i] : []));
      referenced.push(...(await this.textsOf(g, picked)));
    }
    return [...own, ...referenced].sort((a, b) => a.seq - b.seq);
  }

  private async referenced(slice: (g: FindingRefGroup) => [number, number]): Promise<FindingText[]> {
    const out: FindingText[] = [];
    for (const g of this.groups) {
      const [from, to] = slice(g);
      if (from < to)
        out.push(
          ...(await this.textsOf(
            g,
            Array.from({ length: to - from }, (_, i) => from + i),
          )),
        );
    }
    return out;
  }

  /** The group's findings at these indexes of its arrays, numbered as this scan numbers them. */
  private async textsOf(g: FindingRefGroup, indexes: number[]): Promise<FindingText[]> {
    if (indexes.length === 0) return [];
    const texts = await findingRefStore.textsAt(
      this.db,
      this.sourceId,
      g.holderId,
      indexes.map((i) => g.holderSeqs[i]),
    );
    const byHolderSeq = new Map(texts.map((t) => [t.holderSeq, t.findingJson]));
    return indexes.flatMap((i) => {
      const findingJson = byHolderSeq.get(g.holderSeqs[i]);
      return findingJson === undefined ? [] : [{ seq: g.scanSeqs[i], findingJson }];
    });
  }
}
