import path from 'node:path';
import type * as K8s from '@kubernetes/client-node' with { 'resolution-mode': 'import' };
import type { CliExecution } from '@bulwark/contracts';
import { ScanCheckout, ScanJob, ScanRunError, toolArgv } from '../scan-runner';
import {
  CHECKOUT_CONTAINER,
  labelValue,
  MANAGED_BY,
  MARKER_ANNOTATION,
  RULES_CONFIG_MAP,
  SCAN_ID_ANNOTATION,
  SCAN_ID_LABEL,
  SCANNER_CONTAINER,
  TOOL_LABEL,
} from './names';
import { CHECKOUT_SCRIPT, GIT_HOME, SCANNER_SCRIPT } from './scripts';

/** A scan the cluster can run: the tool's command line, and the checkout its Job clones for itself. */
export type ClusterScan = ScanJob & { checkout: ScanCheckout; exec: CliExecution };

export function clusterScan(job: ScanJob): ClusterScan {
  if (!job.checkout) throw new ScanRunError('The Kubernetes runner needs the checkout of the source');
  if (!job.tool.execution) throw new ScanRunError(`${job.tool.name} has no command line to run in a Job`);
  return { ...job, checkout: job.checkout, exec: job.tool.execution };
}

/** One scan's Job: its name, the name of its checkout Secret, and the random marker of its report frame. */
export interface ScanJobRun {
  scanId: string;
  name: string;
  secretName: string;
  marker: string;
}

export interface ScanJobSettings {
  gitImage: string;
  ttlSecondsAfterFinished: number;
}

const RULES_MOUNT = '/bulwark/rules';
const SCRATCH_MOUNT = '/bulwark/scratch';
const USER_ID = 10001;
export const DEFAULT_RESOURCES = { cpu: '1', memory: '1Gi' };
const SCRATCH_SIZE_LIMIT = '1Gi';

/**
 * The Job of one scan: an init container clones the source with credentials from the scan's Secret,
 * the scanner container runs the tool's image on it read-only, both as an unprivileged user with
 * every capability dropped, and the deadline covers the checkout and the tool's timeout.
 */
export function scanJobSpec(
  job: ClusterScan,
  run: ScanJobRun,
  rules: K8s.V1KeyToPath[],
  settings: ScanJobSettings,
): K8s.V1Job {
  const { exec, checkout } = job;
  const deadline = Math.ceil(job.timeoutMs / 1000) + checkout.timeoutSeconds;
  const labels = {
    [MANAGED_BY]: 'bulwark',
    [SCAN_ID_LABEL]: labelValue(job.scanId),
    [TOOL_LABEL]: labelValue(job.tool.name),
  };
  const secretEnv = (envName: string, key: string): K8s.V1EnvVar => ({
    name: envName,
    valueFrom: { secretKeyRef: { name: run.secretName, key } },
  });
  const ssh = /^ssh:\/\//.test(checkout.url) || /^[^/:@]+@[^/:]+:/.test(checkout.url);
  const checkoutEnv: K8s.V1EnvVar[] = [
    secretEnv('BULWARK_GIT_URL', 'url'),
    { name: 'BULWARK_GIT_TRANSPORT', value: ssh ? 'ssh' : 'http' },
    { name: 'BULWARK_GIT_TIMEOUT', value: String(checkout.timeoutSeconds) },
    { name: 'BULWARK_SOURCE_DIR', value: job.workspace },
    ...(checkout.ref ? [{ name: 'BULWARK_GIT_REF', value: checkout.ref }] : []),
    ...(checkout.commit ? [{ name: 'BULWARK_GIT_COMMIT', value: checkout.commit }] : []),
    ...(!ssh && checkout.authMethod === 'Login/Password'
      ? [secretEnv('BULWARK_GIT_USERNAME', 'username'), secretEnv('BULWARK_GIT_PASSWORD', 'password')]
      : []),
    ...(ssh && checkout.sshPrivateKey ? [secretEnv('BULWARK_GIT_SSH_KEY', 'ssh-private-key')] : []),
  ];
  const containerSecurity: K8s.V1SecurityContext = {
    allowPrivilegeEscalation: false,
    readOnlyRootFilesystem: true,
    runAsNonRoot: true,
    capabilities: { drop: ['ALL'] },
  };
  const resources = {
    ...DEFAULT_RESOURCES,
    ...Object.fromEntries(Object.entries(job.resources ?? {}).filter(([, v]) => v)),
  };
  const argv = toolArgv(job, { workspace: job.workspace, resultDir: job.resultDir, rulesDir: RULES_MOUNT });
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: run.name,
      labels,
      annotations: { [SCAN_ID_ANNOTATION]: job.scanId, [MARKER_ANNOTATION]: run.marker },
    },
    spec: {
      backoffLimit: 0,
      activeDeadlineSeconds: deadline,
      ttlSecondsAfterFinished: settings.ttlSecondsAfterFinished,
      template: {
        metadata: { labels },
        spec: {
          restartPolicy: 'Never',
          automountServiceAccountToken: false,
          enableServiceLinks: false,
          securityContext: {
            runAsNonRoot: true,
            runAsUser: USER_ID,
            runAsGroup: USER_ID,
            fsGroup: USER_ID,
            seccompProfile: { type: 'RuntimeDefault' },
          },
          initContainers: [
            {
              name: CHECKOUT_CONTAINER,
              image: settings.gitImage,
              command: ['sh', '-c', CHECKOUT_SCRIPT],
              env: checkoutEnv,
              securityContext: containerSecurity,
              resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '1', memory: '512Mi' } },
              volumeMounts: [
                { name: 'source', mountPath: job.workspace },
                { name: 'git-home', mountPath: GIT_HOME },
              ],
            },
          ],
          containers: [
            {
              name: SCANNER_CONTAINER,
              image: exec.image,
              // The source and results sit at the same paths as on this server, so the report's
              // file paths are made relative to the workspace exactly as with the local runner.
              command: ['sh', '-c', SCANNER_SCRIPT, 'bulwark-scan', exec.binary, ...argv],
              workingDir: job.workspace,
              env: [
                ...Object.entries(exec.env ?? {}).map(([name, value]) => ({ name, value })),
                { name: 'HOME', value: `${SCRATCH_MOUNT}/home` },
                { name: 'TMPDIR', value: `${SCRATCH_MOUNT}/tmp` },
                { name: 'LANG', value: 'C.UTF-8' },
                { name: 'BULWARK_MARK', value: run.marker },
                { name: 'BULWARK_RESULT', value: path.posix.join(job.resultDir, exec.resultFile) },
              ],
              securityContext: containerSecurity,
              resources: { requests: resources, limits: resources },
              // The tool reads the source and writes only its report and scratch files.
              volumeMounts: [
                { name: 'source', mountPath: job.workspace, readOnly: true },
                { name: 'results', mountPath: job.resultDir },
                { name: 'scratch', mountPath: SCRATCH_MOUNT },
                { name: 'rules', mountPath: RULES_MOUNT, readOnly: true },
              ],
            },
          ],
          volumes: [
            { name: 'source', emptyDir: {} },
            // Bounded like the local sandbox's file size limit: a tool cannot fill the node's disk.
            { name: 'results', emptyDir: { sizeLimit: SCRATCH_SIZE_LIMIT } },
            { name: 'scratch', emptyDir: { sizeLimit: SCRATCH_SIZE_LIMIT } },
            { name: 'git-home', emptyDir: { medium: 'Memory', sizeLimit: '16Mi' } },
            { name: 'rules', configMap: { name: RULES_CONFIG_MAP, items: rules } },
          ],
        },
      },
    },
  };
}
