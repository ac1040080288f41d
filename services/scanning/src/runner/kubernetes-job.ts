import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { GitCheckoutError, Logger } from '@bulwark/platform';
import type * as K8s from '@kubernetes/client-node' with { 'resolution-mode': 'import' };
import { ScanJob, ScanRunError, ScanRunner, ScanRunOutcome, handsOn } from './scan-runner';
import { apiMessage, statusCode } from './kubernetes/api-errors';
import { DEFAULT_RESOURCES, ScanJobRun, scanJobSpec } from './kubernetes/job-spec';
import { LogCollector, tail } from './kubernetes/log-collector';
import {
  CHECKOUT_CONTAINER,
  jobName,
  labelValue,
  MANAGED_BY,
  MARKER_ANNOTATION,
  RULES_CONFIG_MAP,
  SCAN_ID_ANNOTATION,
  SCAN_ID_LABEL,
  SCANNER_CONTAINER,
} from './kubernetes/names';
import { CHECKOUT_FAILURES } from './kubernetes/scripts';

export interface KubernetesRunnerConfig {
  /** Unset: the namespace of the kubeconfig context (in-cluster: the pod's own), else `default`. */
  namespace?: string;
  /** Unset: in-cluster configuration, else the default kubeconfig. */
  apiUrl?: string;
  token?: string;
  caFile?: string;
  gitImage: string;
  ttlSecondsAfterFinished: number;
  pollMs: number;
  rulesDir: string;
}

const sameData = (a: Record<string, string>, b: Record<string, string>) =>
  Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([k, v]) => b[k] === v);
const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });

interface Clients {
  k8s: typeof K8s;
  kc: K8s.KubeConfig;
  namespace: string;
  batch: K8s.BatchV1Api;
  core: K8s.CoreV1Api;
}

/**
 * Runs each scan as a Kubernetes Job named after the scan: an init container clones the source with
 * credentials from a per-scan Secret, the scanner container runs the tool's image and prints the
 * report into its log, and this runner follows the log and writes the report where the worker reads
 * it. Creating the Job is idempotent, so a worker that claims a scan again (after a restart) adopts
 * the Job already running for it instead of starting a second one.
 */
export class KubernetesJobRunner implements ScanRunner {
  readonly kind = 'kubernetes' as const;
  readonly needsLocalCheckout = false;
  private clientsPromise: Promise<Clients> | undefined;
  private rulesPromise: Promise<K8s.V1KeyToPath[]> | undefined;

  constructor(
    private readonly config: KubernetesRunnerConfig,
    private readonly log: Logger,
  ) {}

  private clients(): Promise<Clients> {
    this.clientsPromise ??= (async () => {
      // ESM-only package: a real dynamic import, kept as such by TypeScript in this CommonJS build.
      const k8s = await import('@kubernetes/client-node');
      const kc = new k8s.KubeConfig();
      if (this.config.apiUrl) {
        kc.loadFromOptions({
          // Plain http (allowed by the config to loopback only, e.g. kubectl proxy) has no TLS to verify;
          // the client refuses http unless told so.
          clusters: [
            {
              name: 'bulwark',
              server: this.config.apiUrl,
              caFile: this.config.caFile,
              skipTLSVerify: this.config.apiUrl.startsWith('http:'),
            },
          ],
          users: [{ name: 'bulwark', token: this.config.token }],
          contexts: [{ name: 'bulwark', cluster: 'bulwark', user: 'bulwark', namespace: this.config.namespace }],
          currentContext: 'bulwark',
        });
      } else if (process.env.KUBERNETES_SERVICE_HOST) {
        kc.loadFromCluster();
      } else {
        kc.loadFromDefault();
      }
      const namespace = this.config.namespace ?? kc.getContextObject(kc.getCurrentContext())?.namespace ?? 'default';
      return { k8s, kc, namespace, batch: kc.makeApiClient(k8s.BatchV1Api), core: kc.makeApiClient(k8s.CoreV1Api) };
    })();
    return this.clientsPromise;
  }

  /** The shipped rules as one ConfigMap (keys cannot hold `/`, so each file is mapped back to its path). */
  private rules(): Promise<K8s.V1KeyToPath[]> {
    this.rulesPromise ??= this.publishRules().catch((err) => {
      this.rulesPromise = undefined;
      throw err;
    });
    return this.rulesPromise;
  }

  private async publishRules(): Promise<K8s.V1KeyToPath[]> {
    const { core, namespace } = await this.clients();
    const data: Record<string, string> = {};
    const items: K8s.V1KeyToPath[] = [];
    const walk = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (entry.isFile()) {
          const rel = path.relative(this.config.rulesDir, full).split(path.sep).join('/');
          const key = rel.replaceAll('/', '__');
          data[key] = fs.readFileSync(full, 'utf8');
          items.push({ key, path: rel });
        }
      }
    };
    walk(this.config.rulesDir);
    const body: K8s.V1ConfigMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: RULES_CONFIG_MAP, labels: { [MANAGED_BY]: 'bulwark' } },
      data,
    };
    let existing: K8s.V1ConfigMap | undefined;
    try {
      existing = await core.readNamespacedConfigMap({ name: RULES_CONFIG_MAP, namespace });
    } catch (err) {
      if (statusCode(err) !== 404)
        throw new ScanRunError(`Could not read the scanner rules ConfigMap: ${apiMessage(err)}`);
    }
    try {
      if (!existing) await core.createNamespacedConfigMap({ namespace, body, fieldValidation: 'Strict' });
      else if (!sameData(existing.data ?? {}, data)) {
        body.metadata!.resourceVersion = existing.metadata?.resourceVersion;
        await core.replaceNamespacedConfigMap({ name: RULES_CONFIG_MAP, namespace, body, fieldValidation: 'Strict' });
      }
    } catch (err) {
      // Another replica published them at the same moment: theirs are the same rules.
      if (statusCode(err) !== 409)
        throw new ScanRunError(`Could not publish the scanner rules ConfigMap: ${apiMessage(err)}`);
    }
    return items;
  }

  /**
   * At start: publishes the rules and deletes the Jobs of scans no longer in flight. Jobs of scans
   * still in flight stay, for the worker that claims those scans again to adopt.
   */
  async reconcile(
    inFlight: (scanIds: string[]) => Promise<Set<string>>,
  ): Promise<{ kept: string[]; deleted: string[] }> {
    await this.rules();
    const { batch, namespace } = await this.clients();
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
    const scanIdOf = (j: K8s.V1Job) =>
      j.metadata?.annotations?.[SCAN_ID_ANNOTATION] ?? j.metadata?.labels?.[SCAN_ID_LABEL] ?? '';
    const live = await inFlight([...new Set(jobs.map(scanIdOf).filter(Boolean))]);
    const kept: string[] = [];
    const deleted: string[] = [];
    for (const job of jobs) {
      const name = job.metadata!.name!;
      if (live.has(scanIdOf(job))) {
        kept.push(name);
        continue;
      }
      await this.deleteJob(name);
      deleted.push(name);
    }
    if (jobs.length > 0)
      this.log.info('kubernetes scan jobs reconciled', { kept: kept.length, deleted: deleted.length });
    return { kept, deleted };
  }

  private async deleteJob(name: string): Promise<void> {
    const { batch, namespace } = await this.clients();
    try {
      // Foreground: the Job is gone only once its pod is, so a stopped scan stops using the cluster.
      await batch.deleteNamespacedJob({ name, namespace, propagationPolicy: 'Foreground' });
    } catch (err) {
      if (statusCode(err) !== 404) throw err;
    }
  }

  private async deleteSecret(name: string): Promise<void> {
    const { core, namespace } = await this.clients();
    try {
      await core.deleteNamespacedSecret({ name, namespace });
    } catch (err) {
      if (statusCode(err) !== 404)
        this.log.warn('could not delete a scan checkout Secret (its Job owns it, so it goes with the Job)', {
          secret: name,
          error: apiMessage(err),
        });
    }
  }

  jobSpec(job: ScanJob, run: ScanJobRun, rules: K8s.V1KeyToPath[]): K8s.V1Job {
    return scanJobSpec(job, run, rules, this.config);
  }

  /** Creates the Job, or adopts the one already there for this scan (a Job being deleted is waited out). */
  private async createOrAdopt(job: ScanJob, run: ScanJobRun, signal: AbortSignal): Promise<K8s.V1Job> {
    const { batch, namespace } = await this.clients();
    const rules = await this.rules();
    for (;;) {
      try {
        return await batch.createNamespacedJob({
          namespace,
          body: this.jobSpec(job, run, rules),
          fieldValidation: 'Strict',
        });
      } catch (err) {
        if (statusCode(err) !== 409) throw new ScanRunError(`Kubernetes refused the scan Job: ${apiMessage(err)}`);
      }
      let existing: K8s.V1Job;
      try {
        existing = await batch.readNamespacedJob({ name: run.name, namespace });
      } catch (err) {
        if (statusCode(err) === 404) continue;
        throw new ScanRunError(`Could not read the scan Job: ${apiMessage(err)}`);
      }
      if (!existing.metadata?.deletionTimestamp) {
        this.log.info('adopting the kubernetes job already running this scan', { scanId: job.scanId, job: run.name });
        return existing;
      }
      await sleep(this.config.pollMs, signal);
      if (signal.aborted) throw new ScanRunError('Scan stopped');
    }
  }

  private async createSecret(job: ScanJob, run: ScanJobRun, owner: K8s.V1Job): Promise<void> {
    const { core, namespace } = await this.clients();
    const c = job.checkout!;
    const values: Record<string, string | undefined> = {
      url: c.url,
      username: c.login,
      password: c.password,
      'ssh-private-key': c.sshPrivateKey,
    };
    const data = Object.fromEntries(
      Object.entries(values)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => [k, Buffer.from(v!, 'utf8').toString('base64')]),
    );
    const body: K8s.V1Secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'Opaque',
      metadata: {
        name: run.secretName,
        labels: { [MANAGED_BY]: 'bulwark', [SCAN_ID_LABEL]: labelValue(job.scanId) },
        // Owned by the Job: removed with it by the garbage collector, even if this process dies first.
        ownerReferences: [
          { apiVersion: 'batch/v1', kind: 'Job', name: owner.metadata!.name!, uid: owner.metadata!.uid! },
        ],
      },
      data,
    };
    try {
      await core.createNamespacedSecret({ namespace, body, fieldValidation: 'Strict' });
    } catch (err) {
      if (statusCode(err) !== 409)
        throw new ScanRunError(`Kubernetes refused the scan's checkout Secret: ${apiMessage(err)}`);
    }
  }

  async run(job: ScanJob, signal: AbortSignal): Promise<ScanRunOutcome> {
    if (!job.checkout) throw new ScanRunError('The Kubernetes runner needs the checkout of the source');
    const name = jobName(job.scanId);
    const run: ScanJobRun = {
      scanId: job.scanId,
      name,
      secretName: `${name}-git`,
      marker: `BULWARK-REPORT-${randomBytes(16).toString('hex')}`,
    };
    let created: K8s.V1Job;
    try {
      created = await this.createOrAdopt(job, run, signal);
    } catch (err) {
      if (err instanceof ScanRunError) throw err;
      throw new ScanRunError(`Could not reach the Kubernetes API: ${apiMessage(err)}`);
    }
    // An adopted Job prints the marker it was created with.
    run.marker = created.metadata?.annotations?.[MARKER_ANNOTATION] ?? run.marker;
    const finished = Boolean(created.status?.succeeded || created.status?.failed);
    try {
      if (!finished) {
        // Without its Secret the pod would wait for it until the deadline.
        await this.createSecret(job, run, created).catch(async (err) => {
          await this.deleteJob(run.name).catch(() => undefined);
          throw err;
        });
      }
      return await this.follow(job, run, signal);
    } finally {
      if (!handsOn(signal)) await this.deleteSecret(run.secretName);
    }
  }

  private async follow(job: ScanJob, run: ScanJobRun, signal: AbortSignal): Promise<ScanRunOutcome> {
    const { k8s, kc, batch, core, namespace } = await this.clients();
    const exec = job.tool.execution!;
    const collector = new LogCollector(run.marker);
    let streamed: { pod: string; ended: Promise<void>; controller?: AbortController } | undefined;
    const watchdog = Date.now() + job.timeoutMs + job.checkout!.timeoutSeconds * 1000 + 120_000;
    let waiting: string | undefined;
    let pod: K8s.V1Pod | undefined;
    const stopFollowing = () => streamed?.controller?.abort();
    try {
      for (;;) {
        if (signal.aborted) {
          if (!handsOn(signal)) {
            await this.deleteJob(run.name);
            this.log.info('scan job deleted on stop', { scanId: job.scanId, job: run.name });
          }
          throw new ScanRunError('Scan stopped');
        }
        let current: K8s.V1Job;
        try {
          current = await batch.readNamespacedJob({ name: run.name, namespace });
        } catch (err) {
          if (statusCode(err) === 404)
            throw new ScanRunError('The scan Job was deleted from the cluster before it finished');
          this.log.warn('reading the scan job failed; retrying', { scanId: job.scanId, error: apiMessage(err) });
          await sleep(this.config.pollMs, signal);
          continue;
        }
        pod = await this.newestPod(job).catch(() => pod);
        const scanner = pod?.status?.containerStatuses?.find((s) => s.name === SCANNER_CONTAINER);
        const checkoutState = pod?.status?.initContainerStatuses?.find((s) => s.name === CHECKOUT_CONTAINER)?.state;
        waiting = scanner?.state?.waiting?.reason ?? checkoutState?.waiting?.reason ?? waiting;
        if (pod && !streamed && (scanner?.state?.running || scanner?.state?.terminated)) {
          const podName = pod.metadata!.name!;
          const ended = new Promise<void>((resolve) => collector.once('finish', resolve));
          streamed = { pod: podName, ended };
          try {
            streamed.controller = await new k8s.Log(kc).log(namespace, podName, SCANNER_CONTAINER, collector, {
              follow: true,
            });
          } catch (err) {
            this.log.warn('following the scanner log failed; it is read once the Job ends', {
              scanId: job.scanId,
              error: apiMessage(err),
            });
          }
        }
        const failedCondition = current.status?.conditions?.find((c) => c.type === 'Failed' && c.status === 'True');
        if (current.status?.succeeded) break;
        if (failedCondition || current.status?.failed) {
          let output = collector.log;
          if (!streamed) {
            const once = new LogCollector(run.marker);
            once.end(await this.readLog(pod, core, namespace));
            output = once.log;
          }
          throw this.failure(job, failedCondition, pod, waiting, output);
        }
        if (Date.now() > watchdog) {
          await this.deleteJob(run.name);
          throw new ScanRunError(
            `${job.tool.name} did not finish within ${Math.round(job.timeoutMs / 1000)} s and its Job was deleted${waiting ? ` (last waiting: ${waiting})` : ''}`,
          );
        }
        await sleep(this.config.pollMs, signal);
      }
      if (!collector.frame && streamed) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([streamed.ended, new Promise((r) => (timer = setTimeout(r, 5000)))]);
        clearTimeout(timer);
      }
      let frame = collector.frame;
      let output = collector.log;
      if (!frame) {
        // The follow stream was cut or never opened: the whole log once, now that the pod has ended.
        const once = new LogCollector(run.marker);
        once.end(await this.readLog(pod ?? (await this.newestPod(job)), core, namespace));
        frame = once.frame;
        output = once.log;
      }
      if (!frame)
        throw new ScanRunError(`${job.tool.name} ended without handing over its report: ${tail(output, 500)}`);
      if (!exec.okExitCodes.includes(frame.exitCode))
        throw new ScanRunError(`${job.tool.name} failed with exit code ${frame.exitCode}: ${tail(output, 500)}`);
      if (!frame.report)
        throw new ScanRunError(`${job.tool.name} finished without writing its report (${exec.resultFile})`);
      fs.mkdirSync(job.resultDir, { recursive: true, mode: 0o700 });
      const reportPath = path.join(job.resultDir, exec.resultFile);
      fs.writeFileSync(reportPath, frame.report, { mode: 0o600 });
      return { reportPath, log: output };
    } finally {
      stopFollowing();
    }
  }

  private async newestPod(job: ScanJob): Promise<K8s.V1Pod | undefined> {
    const { core, namespace } = await this.clients();
    const pods = await core.listNamespacedPod({
      namespace,
      labelSelector: `${MANAGED_BY}=bulwark,${SCAN_ID_LABEL}=${labelValue(job.scanId)}`,
    });
    const created = (p: K8s.V1Pod) => new Date(p.metadata?.creationTimestamp ?? 0).getTime();
    return pods.items.sort((a, b) => created(b) - created(a))[0];
  }

  private async readLog(pod: K8s.V1Pod | undefined, core: K8s.CoreV1Api, namespace: string): Promise<string> {
    if (!pod) return '';
    try {
      return await core.readNamespacedPodLog({ name: pod.metadata!.name!, namespace, container: SCANNER_CONTAINER });
    } catch {
      return '';
    }
  }

  /** Why the Job failed, in the scan's words: checkout, memory, deadline, or the Job's own reason. */
  private failure(
    job: ScanJob,
    condition: K8s.V1JobCondition | undefined,
    pod: K8s.V1Pod | undefined,
    waiting: string | undefined,
    output: string,
  ): Error {
    const checkoutEnd = pod?.status?.initContainerStatuses?.find((s) => s.name === CHECKOUT_CONTAINER)?.state
      ?.terminated;
    if (checkoutEnd && checkoutEnd.exitCode !== 0) {
      const explain = CHECKOUT_FAILURES[(checkoutEnd.message ?? '').trim()] ?? CHECKOUT_FAILURES.clone;
      return new GitCheckoutError(explain(job.checkout!));
    }
    const scannerEnd = pod?.status?.containerStatuses?.find((s) => s.name === SCANNER_CONTAINER)?.state?.terminated;
    const log = output ? `: ${tail(output, 500)}` : '';
    if (scannerEnd?.reason === 'OOMKilled')
      return new ScanRunError(
        `${job.tool.name} ran out of memory (limit ${job.resources?.memory ?? DEFAULT_RESOURCES.memory})${log}`,
      );
    if (condition?.reason === 'DeadlineExceeded') {
      return new ScanRunError(
        `${job.tool.name} did not finish within ${Math.round(job.timeoutMs / 1000)} s and was stopped${waiting && !scannerEnd ? ` (its pod was still waiting: ${waiting})` : ''}${log}`,
      );
    }
    const why = [condition?.reason, condition?.message].filter(Boolean).join(': ') || 'no reason given';
    return new ScanRunError(`The scan Job failed (${why})${log}`);
  }
}
