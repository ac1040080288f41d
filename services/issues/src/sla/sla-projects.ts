import type { Trx } from '@bulwark/platform';
import { catalogProjectStore } from '../store/catalog-projects';
import { slaClockStore } from '../store/sla-clock';

/**
 * The projects' tags as the SLA clock needs them (policies may apply by tag): learnt at an ingestion,
 * changed by the catalog's events. A project whose applicable days change gets its issues' due dates anew.
 */
export class SlaProjects {
  private async reapply(trx: Trx, projectCode: string): Promise<void> {
    await slaClockStore.applyToIssues(trx, await slaClockStore.resolve(trx, [projectCode]));
  }

  /** In an ingestion's transaction, before its issues are written, so that new ones get their due dates as they are inserted. */
  async atIngestion(trx: Trx, projectCode: string, tags: readonly string[] | undefined): Promise<void> {
    if (await catalogProjectStore.learnTags(trx, projectCode, tags ?? [])) await this.reapply(trx, projectCode);
  }

  /** On the catalog's project.created or project.updated. */
  async tagsChanged(trx: Trx, projectCode: string, tags: readonly string[]): Promise<void> {
    if (await catalogProjectStore.setTags(trx, projectCode, tags)) await this.reapply(trx, projectCode);
  }
}
