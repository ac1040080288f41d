import { PROJECT_CRITICALITIES, type ProjectCriticality } from '@bulwark/contracts';
import type { Trx } from '@bulwark/platform';
import { OPEN_STATUSES } from '../domain/statuses';
import { intelStore } from '../store/intel';
import { catalogProjectStore } from '../store/catalog-projects';

const criticalityOf = (value: string | undefined): ProjectCriticality | undefined =>
  PROJECT_CRITICALITIES.find((c) => c === value);

/**
 * Gives issues what their risk score depends on besides their own fields, set-wise: the exploit
 * intelligence feeds' values (the open issues naming a CVE whose values a feed load changed, the
 * open issues of a scan's layer when it was ingested; nothing before any feed is loaded) and their
 * project's criticality.
 */
export class IssueEnrichment {
  /**
   * In a feed load's transaction, after the loads: the open issues naming a CVE whose values the
   * loads changed (every other open issue holds the current values already); how many changed.
   */
  enrichOpen(trx: Trx): Promise<number> {
    return intelStore.enrich(trx, { kind: 'changed' }, OPEN_STATUSES);
  }

  /** In an ingestion's transaction. */
  async enrichLayer(trx: Trx, layerId: string): Promise<void> {
    if (await intelStore.anyLoaded(trx)) await intelStore.enrich(trx, { kind: 'layer', layerId }, OPEN_STATUSES);
  }

  /**
   * In an ingestion's transaction: the scan's layer's issues get the project's criticality. The
   * catalog's value read for the ingestion counts only for a project not known yet: later changes
   * come as project.updated events, which an older read must not undo.
   */
  async criticalityAtIngestion(trx: Trx, projectCode: string, layerId: string, fromCatalog?: string): Promise<void> {
    const read = criticalityOf(fromCatalog);
    if (read) await catalogProjectStore.learnCriticality(trx, projectCode, read);
    const criticality = await catalogProjectStore.criticalityOf(trx, projectCode);
    await catalogProjectStore.applyCriticalityToIssues(trx, projectCode, criticality, layerId);
  }

  /** On the catalog's project.created or project.updated: every issue of the project (an event before criticality existed changes nothing). */
  async criticalityChanged(trx: Trx, projectCode: string, value: string | undefined): Promise<void> {
    const criticality = criticalityOf(value);
    if (!criticality) return;
    await catalogProjectStore.setCriticality(trx, projectCode, criticality);
    await catalogProjectStore.applyCriticalityToIssues(trx, projectCode, criticality);
  }
}
