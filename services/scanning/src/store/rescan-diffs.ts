import type { Queryable } from '@bulwark/platform';

/** A rescan's diff as stored: the scan it was compared with, and the sequence numbers of each side's changed findings. */
export interface StoredRescanDiff {
  baseScanId: string;
  added: number[];
  vanished: number[];
}

/** Findings by content, and what a rescan changed against the check's previous scan. */
export const rescanDiffStore = {
  async saveContentHashes(db: Queryable, scanId: string, hashes: Uint8Array): Promise<void> {
    await db('scan_content_hashes').insert({ scan_id: scanId, hashes: Buffer.from(hashes) });
  },

  /** The content hashes of the findings scan `holderId` holds; undefined for a scan stored before they were kept. */
  async contentHashes(db: Queryable, holderId: string): Promise<Uint8Array | undefined> {
    const row = await db('scan_content_hashes')
      .where({ scan_id: holderId })
      .first<{ hashes: Buffer } | undefined>('hashes');
    return row?.hashes;
  },

  /**
   * The check's scan completed last before `scanId`: the one a rescan is compared with, as the issues
   * service ingests a check's scans in the order they complete.
   */
  async previousCompleted(db: Queryable, checkId: string, scanId: string): Promise<string | undefined> {
    const row = await db('scans')
      .where({ check_id: checkId, state: 'completed' })
      .whereNot('id', scanId)
      .orderBy([
        { column: 'finished_at', order: 'desc' },
        { column: 'created_at', order: 'desc' },
      ])
      .first<{ id: string } | undefined>('id');
    return row?.id;
  },

  async saveDiff(db: Queryable, scanId: string, diff: StoredRescanDiff): Promise<void> {
    await db('scan_diffs').insert({
      scan_id: scanId,
      base_scan_id: diff.baseScanId,
      added: diff.added,
      vanished: diff.vanished,
    });
  },

  async diff(db: Queryable, scanId: string): Promise<StoredRescanDiff | undefined> {
    const row = await db('scan_diffs')
      .where({ scan_id: scanId })
      .first<{ base_scan_id: string; added: number[]; vanished: number[] } | undefined>(
        'base_scan_id',
        'added',
        'vanished',
      );
    return row && { baseScanId: row.base_scan_id, added: row.added, vanished: row.vanished };
  },

  /** The findings of scan `holderId` with these sequence numbers, as JSON text, in sequence order. */
  async findingsAt(db: Queryable, holderId: string, seqs: number[]): Promise<{ seq: number; findingJson: string }[]> {
    if (seqs.length === 0) return [];
    return db('scan_findings')
      .select('seq', db.raw('finding::text as "findingJson"'))
      .where('scan_id', holderId)
      .andWhere('seq', '=', db.raw('any(?::int[])', [`{${seqs.join(',')}}`]))
      .orderBy('seq');
  },
};
