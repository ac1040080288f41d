import { iso, Queryable } from '@bulwark/platform';
import type { DecorationPlatformName, ReviewMinSeverity } from '@bulwark/contracts';

/** A source's pull request decoration as stored: the token only in sealed form. */
export interface DecorationRecord {
  sourceId: string;
  enabled: boolean;
  platform: DecorationPlatformName;
  apiUrl: string;
  tokenSealed: string;
  reviewMinSeverity: ReviewMinSeverity;
  updatedAt: string;
}

interface DecorationRow {
  source_id: string;
  enabled: boolean;
  platform: DecorationPlatformName;
  api_url: string;
  token_sealed: string;
  review_min_severity: ReviewMinSeverity;
  updated_at: Date;
}

export type DecorationWrite = Omit<DecorationRecord, 'sourceId' | 'updatedAt'>;

const toRecord = (r: DecorationRow): DecorationRecord => ({
  sourceId: r.source_id,
  enabled: r.enabled,
  platform: r.platform,
  apiUrl: r.api_url,
  tokenSealed: r.token_sealed,
  reviewMinSeverity: r.review_min_severity,
  updatedAt: iso(r.updated_at),
});

export const decorationStore = {
  async get(db: Queryable, sourceId: string): Promise<DecorationRecord | undefined> {
    const row = await db<DecorationRow>('source_decorations').where({ source_id: sourceId }).first();
    return row ? toRecord(row) : undefined;
  },

  async put(db: Queryable, sourceId: string, w: DecorationWrite): Promise<void> {
    const columns = {
      enabled: w.enabled,
      platform: w.platform,
      api_url: w.apiUrl,
      token_sealed: w.tokenSealed,
      review_min_severity: w.reviewMinSeverity,
      updated_at: db.fn.now(),
    };
    await db('source_decorations')
      .insert({ source_id: sourceId, ...columns })
      .onConflict('source_id')
      .merge(columns);
  },
};
