import type * as K8s from '@kubernetes/client-node' with { 'resolution-mode': 'import' };
import { Logger } from '@bulwark/platform';
import { handsOn, ScanRunError, ScanRunOutcome } from '../scan-runner';
import { apiMessage, statusCode } from './api-errors';
import type { ScanJobCleanup } from './cleanup';
import { KubeApi, pause } from './clients';
import { ClusterScan, ScanJobRun } from './job-spec';
import { LogCollector } from './log-collector';
import { CHECKOUT_CONTAINER, SCANNER_CONTAINER } from './names';
import { handOver, jobFailure } from './outcome';
import type { FollowedLog, ScanPodLog } from './pod-log';

/** Beyond the Job's own deadline, how long the runner waits before it deletes a Job that never ended. */
const WATCHDOG_GRACE_MS = 120_000;
/** How long the followed log may take to deliver its end after the Job succeeded. */
const STREAM_END_WAIT_MS = 5000;

export interface ScanJobWatchDeps {
  api: KubeApi;
  podLog: ScanPodLog;
  cleanup: ScanJobCleanup;
  log: Logger;
  pollMs: number;
}

/**
 * Following a scan's Job until it ends: its state read every poll, the scanner's log followed from
 * when it runs, the Job deleted on a stop or past the watchdog, and its end turned into the outcome.
 */
export class ScanJobWatch {
  constructor(private readonly deps: ScanJobWatchDeps) {}

  async follow(scan: ClusterScan, run: ScanJobRun, signal: AbortSignal): Promise<ScanRunOutcome> {
    const { api, podLog, log, pollMs } = this.deps;
    const { batch, namespace } = await api.clients();
    const collector = new LogCollector(run.marker);
    let streamed: FollowedLog | undefined;
    const watchdog = Date.now() + scan.timeoutMs + scan.checkout.timeoutSeconds * 1000 + WATCHDOG_GRACE_MS;
    let waiting: string | undefined;
    let pod: K8s.V1Pod | undefined;
    try {
      for (;;) {
        if (signal.aborted) throw await this.stopped(scan, run, signal);
        let current: K8s.V1Job;
        try {
          current = await batch.readNamespacedJob({ name: run.name, namespace });
        } catch (err) {
          if (statusCode(err) === 404)
            throw new ScanRunError('The scan Job was deleted from the cluster before it finished');
          log.warn('reading the scan job failed; retrying', { scanId: scan.scanId, error: apiMessage(err) });
          await pause(pollMs, signal);
          continue;
        }
        pod = await podLog.newestPod(scan.scanId).catch(() => pod);
        const scanner = pod?.status?.containerStatuses?.find((s) => s.name === SCANNER_CONTAINER);
        const checkoutState = pod?.status?.initContainerStatuses?.find((s) => s.name === CHECKOUT_CONTAINER)?.state;
        waiting = scanner?.state?.waiting?.reason ?? checkoutState?.waiting?.reason ?? waiting;
        const podName = pod?.metadata?.name;
        if (podName && !streamed && (scanner?.state?.running || scanner?.state?.terminated))
          streamed = await podLog.follow(scan.scanId, podName, collector);
        const failedCondition = current.status?.conditions?.find((c) => c.type === 'Failed' && c.status === 'True');
        if (current.status?.succeeded) break;
        if (failedCondition || current.status?.failed) {
          const output = streamed ? collector.log : (await podLog.readOnce(pod, run.marker)).log;
          throw jobFailure(scan, failedCondition, pod, waiting, output);
        }
        if (Date.now() > watchdog) throw await this.overran(scan, run, waiting);
        await pause(pollMs, signal);
      }
      if (!collector.frame && streamed) await this.streamEnd(streamed);
      if (collector.frame) return handOver(scan, collector.frame, collector.log);
      // The follow stream was cut or never opened: the whole log once, now that the pod has ended.
      const once = await podLog.readOnce(pod ?? (await podLog.newestPod(scan.scanId)), run.marker);
      return handOver(scan, once.frame, once.log);
    } finally {
      streamed?.controller?.abort();
    }
  }

  /** A stopped scan's Job is deleted, unless the scan is handed on (shutdown, lease lost) for another worker to adopt. */
  private async stopped(scan: ClusterScan, run: ScanJobRun, signal: AbortSignal): Promise<ScanRunError> {
    if (!handsOn(signal)) {
      await this.deps.cleanup.deleteJob(run.name);
      this.deps.log.info('scan job deleted on stop', { scanId: scan.scanId, job: run.name });
    }
    return new ScanRunError('Scan stopped');
  }

  private async overran(scan: ClusterScan, run: ScanJobRun, waiting: string | undefined): Promise<ScanRunError> {
    await this.deps.cleanup.deleteJob(run.name);
    return new ScanRunError(
      `${scan.tool.name} did not finish within ${Math.round(scan.timeoutMs / 1000)} s and its Job was deleted${waiting ? ` (last waiting: ${waiting})` : ''}`,
    );
  }

  private async streamEnd(streamed: FollowedLog): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([streamed.ended, new Promise((r) => (timer = setTimeout(r, STREAM_END_WAIT_MS)))]);
    clearTimeout(timer);
  }
}
