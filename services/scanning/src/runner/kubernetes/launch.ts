import type * as K8s from '@kubernetes/client-node' with { 'resolution-mode': 'import' };
import { Logger } from '@bulwark/platform';
import { ScanRunError } from '../scan-runner';
import { apiMessage, statusCode } from './api-errors';
import { KubeApi, pause } from './clients';
import { ClusterScan, ScanJobRun, ScanJobSettings, scanJobSpec } from './job-spec';
import { labelValue, MANAGED_BY, SCAN_ID_LABEL } from './names';
import type { RulesConfigMap } from './rules-config-map';

export interface ScanJobLaunchDeps {
  api: KubeApi;
  rules: RulesConfigMap;
  log: Logger;
  settings: ScanJobSettings & { pollMs: number };
}

/** The checkout's URL and credentials as a Secret, owned by the Job so it goes with it. */
function checkoutSecret(scan: ClusterScan, run: ScanJobRun, owner: { name: string; uid: string }): K8s.V1Secret {
  const c = scan.checkout;
  const values: Record<string, string | undefined> = {
    url: c.url,
    username: c.login,
    password: c.password,
    'ssh-private-key': c.sshPrivateKey,
  };
  const data = Object.fromEntries(
    Object.entries(values)
      .filter((e): e is [string, string] => e[1] !== undefined)
      .map(([k, v]) => [k, Buffer.from(v, 'utf8').toString('base64')]),
  );
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    metadata: {
      name: run.secretName,
      labels: { [MANAGED_BY]: 'bulwark', [SCAN_ID_LABEL]: labelValue(scan.scanId) },
      // Owned by the Job: removed with it by the garbage collector, even if this process dies first.
      ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', ...owner }],
    },
    data,
  };
}

/** Starting a scan's Job: created, or adopted when one already runs for the scan, and given its Secret. */
export class ScanJobLaunch {
  constructor(private readonly deps: ScanJobLaunchDeps) {}

  /** Creates the Job, or adopts the one already there for this scan (a Job being deleted is waited out). */
  async createOrAdopt(scan: ClusterScan, run: ScanJobRun, signal: AbortSignal): Promise<K8s.V1Job> {
    const { batch, namespace } = await this.deps.api.clients();
    const rules = await this.deps.rules.items();
    for (;;) {
      try {
        return await batch.createNamespacedJob({
          namespace,
          body: scanJobSpec(scan, run, rules, this.deps.settings),
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
        this.deps.log.info('adopting the kubernetes job already running this scan', {
          scanId: scan.scanId,
          job: run.name,
        });
        return existing;
      }
      await pause(this.deps.settings.pollMs, signal);
      if (signal.aborted) throw new ScanRunError('Scan stopped');
    }
  }

  /** The Secret the Job's checkout reads its URL and credentials from (one already there is kept). */
  async createSecret(scan: ClusterScan, run: ScanJobRun, owner: K8s.V1Job): Promise<void> {
    const { core, namespace } = await this.deps.api.clients();
    const uid = owner.metadata?.uid;
    if (!uid) throw new ScanRunError('Kubernetes answered with a scan Job without uid');
    const body = checkoutSecret(scan, run, { name: run.name, uid });
    try {
      await core.createNamespacedSecret({ namespace, body, fieldValidation: 'Strict' });
    } catch (err) {
      if (statusCode(err) !== 409)
        throw new ScanRunError(`Kubernetes refused the scan's checkout Secret: ${apiMessage(err)}`);
    }
  }
}
