import type * as K8s from '@kubernetes/client-node' with { 'resolution-mode': 'import' };
import { Logger } from '@bulwark/platform';
import { apiMessage, statusCode } from './api-errors';
import type { KubeApi } from './clients';
import { MANAGED_BY, SCAN_ID_ANNOTATION, SCAN_ID_LABEL } from './names';

const scanIdOf = (j: K8s.V1Job) =>
  j.metadata?.annotations?.[SCAN_ID_ANNOTATION] ?? j.metadata?.labels?.[SCAN_ID_LABEL] ?? '';

/** Removing what a scan left in the cluster: its Job (with its pod), its checkout Secret, Jobs of scans gone. */
export class ScanJobCleanup {
  constructor(private readonly deps: { api: KubeApi; log: Logger }) {}

  async deleteJob(name: string): Promise<void> {
    const { batch, namespace } = await this.deps.api.clients();
    try {
      // Foreground: the Job is gone only once its pod is, so a stopped scan stops using the cluster.
      await batch.deleteNamespacedJob({ name, namespace, propagationPolicy: 'Foreground' });
    } catch (err) {
      if (statusCode(err) !== 404) throw err;
    }
  }

  async deleteSecret(name: string): Promise<void> {
    const { core, namespace } = await this.deps.api.clients();
    try {
      await core.deleteNamespacedSecret({ name, namespace });
    } catch (err) {
      if (statusCode(err) !== 404)
        this.deps.log.warn('could not delete a scan checkout Secret (its Job owns it, so it goes with the Job)', {
          secret: name,
          error: apiMessage(err),
        });
    }
  }

  /** Deletes the Jobs of scans no longer in flight; Jobs of scans still in flight stay, for the worker that claims them again to adopt. */
  async reconcile(
    inFlight: (scanIds: string[]) => Promise<Set<string>>,
  ): Promise<{ kept: string[]; deleted: string[] }> {
    const jobs = await this.managedJobs();
    const live = await inFlight([...new Set(jobs.map(scanIdOf).filter(Boolean))]);
    const kept: string[] = [];
    const deleted: string[] = [];
    for (const job of jobs) {
      const name = job.metadata?.name;
      // Every object the API lists has a name.
      if (!name) continue;
      if (live.has(scanIdOf(job))) {
        kept.push(name);
        continue;
      }
      await this.deleteJob(name);
      deleted.push(name);
    }
    if (jobs.length > 0)
      this.deps.log.info('kubernetes scan jobs reconciled', { kept: kept.length, deleted: deleted.length });
    return { kept, deleted };
  }

  private async managedJobs(): Promise<K8s.V1Job[]> {
    const { batch, namespace } = await this.deps.api.clients();
    const jobs: K8s.V1Job[] = [];
    let cont: string | undefined;
    do {
      const page = await batch.listNamespacedJob({
        namespace,
        labelSelector: `${MANAGED_BY}=bulwark`,
        limit: 500,
        _continue: cont,
      });
      jobs.push(...page.items);
      cont = page.metadata?._continue || undefined;
    } while (cont);
    return jobs;
  }
}
