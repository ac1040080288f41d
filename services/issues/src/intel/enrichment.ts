import type { Trx } from '@bulwark/platform';
import { OPEN_STATUSES } from '../domain/statuses';
import { intelStore } from '../store/intel';

/**
 * Gives issues the exploit intelligence feeds' values, set-wise: every open issue when a feed
 * changed, the open issues of a scan's layer when it was ingested (nothing to do before any feed is loaded).
 */
export class IssueEnrichment {
  /** In a feed load's transaction: how many open issues changed. */
  enrichOpen(trx: Trx): Promise<number> {
    return intelStore.enrich(trx, { kind: 'open' }, OPEN_STATUSES);
  }

  /** In an ingestion's transaction. */
  async enrichLayer(trx: Trx, layerId: string): Promise<void> {
    if (await intelStore.anyLoaded(trx)) await intelStore.enrich(trx, { kind: 'layer', layerId }, OPEN_STATUSES);
  }
}
