import type * as K8s from '@kubernetes/client-node' with { 'resolution-mode': 'import' };
import { Logger } from '@bulwark/platform';
import { apiMessage } from './api-errors';
import type { KubeApi } from './clients';
import { LogCollector } from './log-collector';
import { labelValue, MANAGED_BY, SCAN_ID_LABEL, SCANNER_CONTAINER } from './names';

/** A scanner log being followed: `ended` once the stream has delivered all of it. */
export interface FollowedLog {
  ended: Promise<void>;
  /** Unset when the stream could not be opened. */
  controller?: AbortController;
}

/** The scan's pod and its scanner's log, followed while it runs or read once after. */
export class ScanPodLog {
  constructor(private readonly deps: { api: KubeApi; log: Logger }) {}

  /** The scan's newest pod (a Job retried makes another). */
  async newestPod(scanId: string): Promise<K8s.V1Pod | undefined> {
    const { core, namespace } = await this.deps.api.clients();
    const pods = await core.listNamespacedPod({
      namespace,
      labelSelector: `${MANAGED_BY}=bulwark,${SCAN_ID_LABEL}=${labelValue(scanId)}`,
    });
    const created = (p: K8s.V1Pod) => new Date(p.metadata?.creationTimestamp ?? 0).getTime();
    return pods.items.sort((a, b) => created(b) - created(a))[0];
  }

  /** The scanner's whole log, read once and split by a collector of its own. */
  async readOnce(pod: K8s.V1Pod | undefined, marker: string): Promise<LogCollector> {
    const once = new LogCollector(marker);
    once.end(await this.read(pod));
    return once;
  }

  private async read(pod: K8s.V1Pod | undefined): Promise<string> {
    const name = pod?.metadata?.name;
    if (!name) return '';
    const { core, namespace } = await this.deps.api.clients();
    try {
      return await core.readNamespacedPodLog({ name, namespace, container: SCANNER_CONTAINER });
    } catch {
      return '';
    }
  }

  /** Follows the scanner's log into the collector; a stream that cannot be opened leaves the log to be read once the Job ends. */
  async follow(scanId: string, pod: string, collector: LogCollector): Promise<FollowedLog> {
    const { k8s, kc, namespace } = await this.deps.api.clients();
    const ended = new Promise<void>((resolve) => collector.once('finish', resolve));
    const followed: FollowedLog = { ended };
    try {
      followed.controller = await new k8s.Log(kc).log(namespace, pod, SCANNER_CONTAINER, collector, { follow: true });
    } catch (err) {
      this.deps.log.warn('following the scanner log failed; it is read once the Job ends', {
        scanId,
        error: apiMessage(err),
      });
    }
    return followed;
  }
}
