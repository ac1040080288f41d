import type { Knex } from 'knex';
import type { Queryable } from '@bulwark/platform';

/** A scan's findings that another scan holds: this scan's sequence numbers beside the holder's, in this scan's order. */
export interface FindingRefGroup {
  holderId: string;
  scanSeqs: number[];
  holderSeqs: number[];
}

/** A finding as the hand-over and the pages read it: its sequence number in the scan and its JSON text. */
export interface FindingText {
  seq: number;
  findingJson: string;
}

const intArray = (values: ArrayLike<number>) => `{${Array.prototype.join.call(values, ',')}}`;

/**
 * A referenced finding as its referencing scan has it: the holder's JSON with the referencing report's
 * `detectedAt` (the only field a reference may differ in).
 */
const REFERENCED_FINDING = `case when x.detected_at is null then f.finding - 'detectedAt'
  else jsonb_set(f.finding, '{detectedAt}', to_jsonb(x.detected_at)) end`;

/**
 * The findings a scan references instead of storing (an unchanged finding of a rescan is a reference
 * to the row of the scan that first stored it): one row per holder, two aligned arrays.
 */
export const findingRefStore = {
  async insert(db: Queryable, scanId: string, groups: FindingRefGroup[], detectedAt: string | null): Promise<void> {
    if (groups.length === 0) return;
    await db('scan_finding_refs').insert(
      groups.map((g) => ({
        scan_id: scanId,
        holder_id: g.holderId,
        scan_seqs: db.raw('?::int[]', [intArray(g.scanSeqs)]),
        holder_seqs: db.raw('?::int[]', [intArray(g.holderSeqs)]),
        detected_at: detectedAt,
      })),
    );
  },

  async groupsOf(db: Queryable, sourceId: string): Promise<FindingRefGroup[]> {
    const rows: { holder_id: string; scan_seqs: number[]; holder_seqs: number[] }[] = await db('scan_finding_refs')
      .where('scan_id', sourceId)
      .select('holder_id', 'scan_seqs', 'holder_seqs');
    return rows.map((r) => ({ holderId: r.holder_id, scanSeqs: r.scan_seqs, holderSeqs: r.holder_seqs }));
  },

  /** The referenced findings of `sourceId` held by `holderId` at these holder sequence numbers, as `sourceId` has them. */
  async textsAt(
    db: Queryable,
    sourceId: string,
    holderId: string,
    holderSeqs: number[],
  ): Promise<{ holderSeq: number; findingJson: string }[]> {
    if (holderSeqs.length === 0) return [];
    const { rows } = await db.raw<{ rows: { holderSeq: number; findingJson: string }[] }>(
      `select f.seq as "holderSeq", (${REFERENCED_FINDING})::text as "findingJson"
         from scan_finding_refs x join scan_findings f on f.scan_id = x.holder_id
         where x.scan_id = ? and x.holder_id = ? and f.seq = any(?::int[])`,
      [sourceId, holderId, intArray(holderSeqs)],
    );
    return rows;
  },

  /**
   * Every finding of scan `sourceId`, its own rows and those it references, as one relation of
   * (seq, fingerprint, severity, finding): what the pages and statistics read.
   */
  findingsOf(db: Queryable, sourceId: string, alias: string): Knex.Raw {
    return db.raw(
      `(select seq, fingerprint, severity, finding from scan_findings where scan_id = ?
        union all
        select r.seq, f.fingerprint, f.severity, ${REFERENCED_FINDING} as finding
          from scan_finding_refs x cross join lateral unnest(x.scan_seqs, x.holder_seqs) as r(seq, holder_seq)
          join scan_findings f on f.scan_id = x.holder_id and f.seq = r.holder_seq
          where x.scan_id = ?) as ??`,
      [sourceId, sourceId, alias],
    );
  },

  /** Keeps of `query` (over findings aliased `alias`) those whose fingerprint scan `otherSourceId` has none of. */
  absentFrom<Q extends Knex.QueryBuilder>(db: Queryable, query: Q, alias: string, otherSourceId: string): Q {
    return query.whereNotExists(
      db
        .from(findingRefStore.findingsOf(db, otherSourceId, 'other'))
        .select(db.raw('1'))
        .whereRaw('other.fingerprint = ??', [`${alias}.fingerprint`]),
    ) as Q;
  },
};
