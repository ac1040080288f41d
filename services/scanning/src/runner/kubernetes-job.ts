import { randomBytes } from 'node:crypto';
import type * as K8s from '@kubernetes/client-node' with { 'resolution-mode': 'import' };
import { Logger } from '@bulwark/platform';
import { handsOn, ScanJob, ScanRunError, ScanRunner, ScanRunOutcome } from './scan-runner';
import { apiMessage } from './kubernetes/api-errors';
import { ScanJobCleanup } from './kubernetes/cleanup';
import { KubeApi, KubeConnection } from './kubernetes/clients';
import { clusterScan, ScanJobRun, scanJobSpec } from './kubernetes/job-spec';
import { ScanJobLaunch } from './kubernetes/launch';
import { jobName, MARKER_ANNOTATION } from './kubernetes/names';
import { ScanPodLog } from './kubernetes/pod-log';
import { RulesConfigMap } from './kubernetes/rules-config-map';
import { ScanJobWatch } from './kubernetes/watch';

export interface KubernetesRunnerConfig extends KubeConnection {
  gitImage: string;
  ttlSecondsAfterFinished: number;
  pollMs: number;
  rulesDir: string;
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
  private readonly rules: RulesConfigMap;
  private readonly cleanup: ScanJobCleanup;
  private readonly launch: ScanJobLaunch;
  private readonly watch: ScanJobWatch;

  constructor(
    private readonly config: KubernetesRunnerConfig,
    log: Logger,
  ) {
    const api = new KubeApi(config);
    this.rules = new RulesConfigMap({ api, rulesDir: config.rulesDir });
    this.cleanup = new ScanJobCleanup({ api, log });
    this.launch = new ScanJobLaunch({ api, rules: this.rules, log, settings: config });
    const podLog = new ScanPodLog({ api, log });
    this.watch = new ScanJobWatch({ api, podLog, cleanup: this.cleanup, log, pollMs: config.pollMs });
  }

  /**
   * At start: publishes the rules and deletes the Jobs of scans no longer in flight. Jobs of scans
   * still in flight stay, for the worker that claims those scans again to adopt.
   */
  async reconcile(
    inFlight: (scanIds: string[]) => Promise<Set<string>>,
  ): Promise<{ kept: string[]; deleted: string[] }> {
    await this.rules.items();
    return this.cleanup.reconcile(inFlight);
  }

  jobSpec(job: ScanJob, run: ScanJobRun, rules: K8s.V1KeyToPath[]): K8s.V1Job {
    return scanJobSpec(clusterScan(job), run, rules, this.config);
  }

  async run(job: ScanJob, signal: AbortSignal): Promise<ScanRunOutcome> {
    const scan = clusterScan(job);
    const name = jobName(scan.scanId);
    const run: ScanJobRun = {
      scanId: scan.scanId,
      name,
      secretName: `${name}-git`,
      marker: `BULWARK-REPORT-${randomBytes(16).toString('hex')}`,
    };
    let created: K8s.V1Job;
    try {
      created = await this.launch.createOrAdopt(scan, run, signal);
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
        await this.launch.createSecret(scan, run, created).catch(async (err) => {
          await this.cleanup.deleteJob(run.name).catch(() => undefined);
          throw err;
        });
      }
      return await this.watch.follow(scan, run, signal);
    } finally {
      if (!handsOn(signal)) await this.cleanup.deleteSecret(run.secretName);
    }
  }
}
