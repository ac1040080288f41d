import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { GitCheckoutError, gitHost, Logger } from '@bulwark/platform';
import type * as K8s from '@kubernetes/client-node' with { 'resolution-mode': 'import' };
import { ScanCheckout, ScanJob, ScanRunError, ScanRunner, ScanRunOutcome, handsOn, toolArgv } from './scan-runner';

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

export const MANAGED_BY = 'app.kubernetes.io/managed-by';
export const SCAN_ID_LABEL = 'bulwark.io/scan-id';
export const TOOL_LABEL = 'bulwark.io/tool';
export const SCAN_ID_ANNOTATION = 'bulwark.io/scan-id';
/** Per Job, random: the report frame in the log cannot be forged by output the scanned code controls. */
export const MARKER_ANNOTATION = 'bulwark.io/report-marker';
export const RULES_CONFIG_MAP = 'bulwark-scanner-rules';
export const SCANNER_CONTAINER = 'scanner';
export const CHECKOUT_CONTAINER = 'checkout';
const RULES_MOUNT = '/bulwark/rules';
const SCRATCH_MOUNT = '/bulwark/scratch';
const GIT_HOME = '/bulwark/git-home';
const USER_ID = 10001;
const DEFAULT_RESOURCES = { cpu: '1', memory: '1Gi' };
const SCRATCH_SIZE_LIMIT = '1Gi';
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/**
 * Clones inside the pod, credentials from the environment only (filled from the scan's Secret): the
 * askpass is a credential helper reading variables, the SSH key lands in a memory volume the scanner
 * never mounts. git's own output may echo URLs, so only a failure code reaches the termination message.
 */
const CHECKOUT_SCRIPT = `set -u
umask 077
export HOME=${GIT_HOME} GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null GIT_TERMINAL_PROMPT=0 LC_ALL=C
fail() { printf '%s' "$1" > /dev/termination-log; exit 1; }
if [ "$BULWARK_GIT_TRANSPORT" = ssh ]; then
  set -- -c credential.helper= -c protocol.allow=never -c protocol.ssh.allow=always
  if [ -n "\${BULWARK_GIT_SSH_KEY:-}" ]; then printf '%s\\n' "$BULWARK_GIT_SSH_KEY" > "$HOME/id"; fi
  export GIT_SSH_COMMAND="ssh -F /dev/null -i $HOME/id -o BatchMode=yes -o IdentitiesOnly=yes -o StrictHostKeyChecking=accept-new -o UserKnownHostsFile=$HOME/known_hosts -o ConnectTimeout=$BULWARK_GIT_TIMEOUT"
else
  set -- -c credential.helper= -c protocol.allow=never -c protocol.http.allow=always -c protocol.https.allow=always -c http.lowSpeedLimit=1 -c "http.lowSpeedTime=$BULWARK_GIT_TIMEOUT"
  if [ -n "\${BULWARK_GIT_USERNAME+x}" ]; then
    set -- "$@" -c 'credential.helper=!f() { echo "username=$BULWARK_GIT_USERNAME"; echo "password=$BULWARK_GIT_PASSWORD"; }; f'
  fi
fi
set -- "$@" clone --quiet --single-branch --no-tags
if [ -z "\${BULWARK_GIT_COMMIT:-}" ]; then set -- "$@" --depth 1; fi
if [ -n "\${BULWARK_GIT_REF:-}" ]; then set -- "$@" --branch "$BULWARK_GIT_REF"; fi
if ! timeout "$BULWARK_GIT_TIMEOUT" git "$@" -- "$BULWARK_GIT_URL" "$BULWARK_SOURCE_DIR" 2> "$HOME/err"; then
  if grep -Eqi "Remote branch .* not found|couldn't find remote ref" "$HOME/err"; then fail ref; fi
  if grep -Eqi 'Authentication failed|could not read Username|returned error: 40[13]|Permission denied' "$HOME/err"; then fail auth; fi
  fail clone
fi
if [ -n "\${BULWARK_GIT_COMMIT:-}" ]; then
  git -C "$BULWARK_SOURCE_DIR" checkout --quiet --detach "$BULWARK_GIT_COMMIT" 2> /dev/null || fail commit
fi
`;

/**
 * Runs the tool's argv as given ("$@", never parsed by the shell), then prints its exit code and the
 * base64 of its report between the Job's markers: the runner reads the report from the pod log, so
 * nothing but the API server connects the pod and this service. Always exits 0 once the frame is out:
 * whether the exit code is a success is the tool type's decision (okExitCodes), not the Job's.
 */
const SCANNER_SCRIPT = `mkdir -p "$HOME" "$TMPDIR"
"$@"
code=$?
if [ -f "$BULWARK_RESULT" ]; then
  printf '\\n%s report %s\\n' "$BULWARK_MARK" "$code"
  base64 "$BULWARK_RESULT"
else
  printf '\\n%s noreport %s\\n' "$BULWARK_MARK" "$code"
fi
printf '%s end\\n' "$BULWARK_MARK"
`;

const CHECKOUT_FAILURES: Record<string, (c: ScanCheckout) => string> = {
  ref: (c) => `branch or tag "${c.ref}" does not exist in the repository`,
  auth: (c) => `the repository at ${gitHost(c.url)} refused the credentials`,
  commit: (c) => `commit ${c.commit} is not on ${c.ref ? `"${c.ref}"` : 'the default branch'}`,
  clone: (c) => `could not clone the repository at ${gitHost(c.url)}`,
};

/** `bulwark-scan-<scan id>` when that is a DNS label (scan ids are UUIDs), else a digest of the id. */
export function jobName(scanId: string): string {
  const direct = `bulwark-scan-${scanId.toLowerCase()}`;
  return direct.length <= 63 && DNS_LABEL.test(direct) ? direct : `bulwark-scan-${createHash('sha256').update(scanId).digest('hex').slice(0, 40)}`;
}

/** A label value (≤ 63 chars, alphanumeric at both ends). */
export function labelValue(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').slice(0, 63).replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, '') || 'unknown';
}

const sameData = (a: Record<string, string>, b: Record<string, string>) =>
  Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([k, v]) => b[k] === v);
const tail = (text: string, n = 2000) => (text.length > n ? `…${text.slice(-n)}` : text);
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

function statusCode(err: unknown): number | undefined {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'number' ? code : undefined;
}

/** The API server's own explanation (a Status' message), never the request or its headers. */
function apiMessage(err: unknown): string {
  let body = (err as { body?: unknown }).body;
  if (typeof body === 'string') {
    try {
      body = JSON.parse(body);
    } catch {
      // not a Status
    }
  }
  const message = (body as { message?: unknown } | undefined)?.message;
  if (typeof message === 'string') return message;
  const code = statusCode(err);
  return code ? `HTTP ${code}` : (err as Error).message || 'the API server could not be reached';
}

/** Splits the scanner's log into the tool's output (kept as a tail) and the report frame. */
class LogCollector extends Writable {
  private buffered = '';
  private output = '';
  private chunks: string[] | undefined;
  frame: { exitCode: number; report?: Buffer } | undefined;
  private pending: { exitCode: number; report: boolean } | undefined;

  constructor(private readonly marker: string) {
    super();
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    this.buffered += chunk.toString('utf8');
    const lines = this.buffered.split('\n');
    this.buffered = lines.pop() ?? '';
    for (const line of lines) this.line(line);
    cb();
  }

  override _final(cb: (err?: Error | null) => void): void {
    if (this.buffered) this.line(this.buffered);
    this.buffered = '';
    cb();
  }

  private line(line: string): void {
    if (this.pending) {
      if (line === `${this.marker} end`) {
        this.frame = { exitCode: this.pending.exitCode, report: this.pending.report ? Buffer.from((this.chunks ?? []).join(''), 'base64') : undefined };
        this.pending = undefined;
        this.chunks = undefined;
      } else if (this.pending.report) this.chunks!.push(line.trim());
      return;
    }
    const start = line.startsWith(`${this.marker} `) ? /^\S+ (report|noreport) (\d+)$/.exec(line) : null;
    if (start) {
      this.pending = { exitCode: Number(start[2]), report: start[1] === 'report' };
      this.chunks = [];
      return;
    }
    this.output = tail(`${this.output}${line}\n`, 8000);
  }

  get log(): string {
    return tail(this.output.trim());
  }
}

interface Clients {
  k8s: typeof K8s;
  kc: K8s.KubeConfig;
  namespace: string;
  batch: K8s.BatchV1Api;
  core: K8s.CoreV1Api;
}

interface Running {
  scanId: string;
  name: string;
  secretName: string;
  marker: string;
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

  constructor(private readonly config: KubernetesRunnerConfig, private readonly log: Logger) {}

  private clients(): Promise<Clients> {
    this.clientsPromise ??= (async () => {
      // ESM-only package: a real dynamic import, kept as such by TypeScript in this CommonJS build.
      const k8s = await import('@kubernetes/client-node');
      const kc = new k8s.KubeConfig();
      if (this.config.apiUrl) {
        kc.loadFromOptions({
          // Plain http (allowed by the config to loopback only, e.g. kubectl proxy) has no TLS to verify;
          // the client refuses http unless told so.
          clusters: [{ name: 'bulwark', server: this.config.apiUrl, caFile: this.config.caFile, skipTLSVerify: this.config.apiUrl.startsWith('http:') }],
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
    const body: K8s.V1ConfigMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: RULES_CONFIG_MAP, labels: { [MANAGED_BY]: 'bulwark' } }, data };
    let existing: K8s.V1ConfigMap | undefined;
    try {
      existing = await core.readNamespacedConfigMap({ name: RULES_CONFIG_MAP, namespace });
    } catch (err) {
      if (statusCode(err) !== 404) throw new ScanRunError(`Could not read the scanner rules ConfigMap: ${apiMessage(err)}`);
    }
    try {
      if (!existing) await core.createNamespacedConfigMap({ namespace, body, fieldValidation: 'Strict' });
      else if (!sameData(existing.data ?? {}, data)) {
        body.metadata!.resourceVersion = existing.metadata?.resourceVersion;
        await core.replaceNamespacedConfigMap({ name: RULES_CONFIG_MAP, namespace, body, fieldValidation: 'Strict' });
      }
    } catch (err) {
      // Another replica published them at the same moment: theirs are the same rules.
      if (statusCode(err) !== 409) throw new ScanRunError(`Could not publish the scanner rules ConfigMap: ${apiMessage(err)}`);
    }
    return items;
  }

  /**
   * At start: publishes the rules and deletes the Jobs of scans no longer in flight. Jobs of scans
   * still in flight stay, for the worker that claims those scans again to adopt.
   */
  async reconcile(inFlight: (scanIds: string[]) => Promise<Set<string>>): Promise<{ kept: string[]; deleted: string[] }> {
    await this.rules();
    const { batch, namespace } = await this.clients();
    const jobs: K8s.V1Job[] = [];
    let cont: string | undefined;
    do {
      const page = await batch.listNamespacedJob({ namespace, labelSelector: `${MANAGED_BY}=bulwark`, limit: 500, _continue: cont });
      jobs.push(...page.items);
      cont = page.metadata?._continue || undefined;
    } while (cont);
    const scanIdOf = (j: K8s.V1Job) => j.metadata?.annotations?.[SCAN_ID_ANNOTATION] ?? j.metadata?.labels?.[SCAN_ID_LABEL] ?? '';
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
    if (jobs.length > 0) this.log.info('kubernetes scan jobs reconciled', { kept: kept.length, deleted: deleted.length });
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
      if (statusCode(err) !== 404) this.log.warn('could not delete a scan checkout Secret (its Job owns it, so it goes with the Job)', { secret: name, error: apiMessage(err) });
    }
  }

  jobSpec(job: ScanJob, run: Running, rules: K8s.V1KeyToPath[]): K8s.V1Job {
    const exec = job.tool.execution!;
    const checkout = job.checkout!;
    const deadline = Math.ceil(job.timeoutMs / 1000) + checkout.timeoutSeconds;
    const labels = { [MANAGED_BY]: 'bulwark', [SCAN_ID_LABEL]: labelValue(job.scanId), [TOOL_LABEL]: labelValue(job.tool.name) };
    const secretEnv = (envName: string, key: string): K8s.V1EnvVar => ({ name: envName, valueFrom: { secretKeyRef: { name: run.secretName, key } } });
    const ssh = /^ssh:\/\//.test(checkout.url) || /^[^/:@]+@[^/:]+:/.test(checkout.url);
    const checkoutEnv: K8s.V1EnvVar[] = [
      secretEnv('BULWARK_GIT_URL', 'url'),
      { name: 'BULWARK_GIT_TRANSPORT', value: ssh ? 'ssh' : 'http' },
      { name: 'BULWARK_GIT_TIMEOUT', value: String(checkout.timeoutSeconds) },
      { name: 'BULWARK_SOURCE_DIR', value: job.workspace },
      ...(checkout.ref ? [{ name: 'BULWARK_GIT_REF', value: checkout.ref }] : []),
      ...(checkout.commit ? [{ name: 'BULWARK_GIT_COMMIT', value: checkout.commit }] : []),
      ...(!ssh && checkout.authMethod === 'Login/Password' ? [secretEnv('BULWARK_GIT_USERNAME', 'username'), secretEnv('BULWARK_GIT_PASSWORD', 'password')] : []),
      ...(ssh && checkout.sshPrivateKey ? [secretEnv('BULWARK_GIT_SSH_KEY', 'ssh-private-key')] : []),
    ];
    const containerSecurity: K8s.V1SecurityContext = {
      allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, runAsNonRoot: true, capabilities: { drop: ['ALL'] },
    };
    const resources = { ...DEFAULT_RESOURCES, ...Object.fromEntries(Object.entries(job.resources ?? {}).filter(([, v]) => v)) };
    const argv = toolArgv(job, { workspace: job.workspace, resultDir: job.resultDir, rulesDir: RULES_MOUNT });
    return {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: run.name, labels, annotations: { [SCAN_ID_ANNOTATION]: job.scanId, [MARKER_ANNOTATION]: run.marker } },
      spec: {
        backoffLimit: 0,
        activeDeadlineSeconds: deadline,
        ttlSecondsAfterFinished: this.config.ttlSecondsAfterFinished,
        template: {
          metadata: { labels },
          spec: {
            restartPolicy: 'Never',
            automountServiceAccountToken: false,
            enableServiceLinks: false,
            securityContext: { runAsNonRoot: true, runAsUser: USER_ID, runAsGroup: USER_ID, fsGroup: USER_ID, seccompProfile: { type: 'RuntimeDefault' } },
            initContainers: [
              {
                name: CHECKOUT_CONTAINER,
                image: this.config.gitImage,
                command: ['sh', '-c', CHECKOUT_SCRIPT],
                env: checkoutEnv,
                securityContext: containerSecurity,
                resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '1', memory: '512Mi' } },
                volumeMounts: [{ name: 'source', mountPath: job.workspace }, { name: 'git-home', mountPath: GIT_HOME }],
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

  /** Creates the Job, or adopts the one already there for this scan (a Job being deleted is waited out). */
  private async createOrAdopt(job: ScanJob, run: Running, signal: AbortSignal): Promise<K8s.V1Job> {
    const { batch, namespace } = await this.clients();
    const rules = await this.rules();
    for (;;) {
      try {
        return await batch.createNamespacedJob({ namespace, body: this.jobSpec(job, run, rules), fieldValidation: 'Strict' });
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

  private async createSecret(job: ScanJob, run: Running, owner: K8s.V1Job): Promise<void> {
    const { core, namespace } = await this.clients();
    const c = job.checkout!;
    const values: Record<string, string | undefined> = { url: c.url, username: c.login, password: c.password, 'ssh-private-key': c.sshPrivateKey };
    const data = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined).map(([k, v]) => [k, Buffer.from(v!, 'utf8').toString('base64')]));
    const body: K8s.V1Secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'Opaque',
      metadata: {
        name: run.secretName,
        labels: { [MANAGED_BY]: 'bulwark', [SCAN_ID_LABEL]: labelValue(job.scanId) },
        // Owned by the Job: removed with it by the garbage collector, even if this process dies first.
        ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: owner.metadata!.name!, uid: owner.metadata!.uid! }],
      },
      data,
    };
    try {
      await core.createNamespacedSecret({ namespace, body, fieldValidation: 'Strict' });
    } catch (err) {
      if (statusCode(err) !== 409) throw new ScanRunError(`Kubernetes refused the scan's checkout Secret: ${apiMessage(err)}`);
    }
  }

  async run(job: ScanJob, signal: AbortSignal): Promise<ScanRunOutcome> {
    if (!job.checkout) throw new ScanRunError('The Kubernetes runner needs the checkout of the source');
    const name = jobName(job.scanId);
    const run: Running = { scanId: job.scanId, name, secretName: `${name}-git`, marker: `BULWARK-REPORT-${randomBytes(16).toString('hex')}` };
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

  private async follow(job: ScanJob, run: Running, signal: AbortSignal): Promise<ScanRunOutcome> {
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
          if (statusCode(err) === 404) throw new ScanRunError('The scan Job was deleted from the cluster before it finished');
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
            streamed.controller = await new k8s.Log(kc).log(namespace, podName, SCANNER_CONTAINER, collector, { follow: true });
          } catch (err) {
            this.log.warn('following the scanner log failed; it is read once the Job ends', { scanId: job.scanId, error: apiMessage(err) });
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
          throw new ScanRunError(`${job.tool.name} did not finish within ${Math.round(job.timeoutMs / 1000)} s and its Job was deleted${waiting ? ` (last waiting: ${waiting})` : ''}`);
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
      if (!frame) throw new ScanRunError(`${job.tool.name} ended without handing over its report: ${tail(output, 500)}`);
      if (!exec.okExitCodes.includes(frame.exitCode)) throw new ScanRunError(`${job.tool.name} failed with exit code ${frame.exitCode}: ${tail(output, 500)}`);
      if (!frame.report) throw new ScanRunError(`${job.tool.name} finished without writing its report (${exec.resultFile})`);
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
    const pods = await core.listNamespacedPod({ namespace, labelSelector: `${MANAGED_BY}=bulwark,${SCAN_ID_LABEL}=${labelValue(job.scanId)}` });
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
  private failure(job: ScanJob, condition: K8s.V1JobCondition | undefined, pod: K8s.V1Pod | undefined, waiting: string | undefined, output: string): Error {
    const checkoutEnd = pod?.status?.initContainerStatuses?.find((s) => s.name === CHECKOUT_CONTAINER)?.state?.terminated;
    if (checkoutEnd && checkoutEnd.exitCode !== 0) {
      const explain = CHECKOUT_FAILURES[(checkoutEnd.message ?? '').trim()] ?? CHECKOUT_FAILURES.clone;
      return new GitCheckoutError(explain(job.checkout!));
    }
    const scannerEnd = pod?.status?.containerStatuses?.find((s) => s.name === SCANNER_CONTAINER)?.state?.terminated;
    const log = output ? `: ${tail(output, 500)}` : '';
    if (scannerEnd?.reason === 'OOMKilled') return new ScanRunError(`${job.tool.name} ran out of memory (limit ${job.resources?.memory ?? DEFAULT_RESOURCES.memory})${log}`);
    if (condition?.reason === 'DeadlineExceeded') {
      return new ScanRunError(`${job.tool.name} did not finish within ${Math.round(job.timeoutMs / 1000)} s and was stopped${waiting && !scannerEnd ? ` (its pod was still waiting: ${waiting})` : ''}${log}`);
    }
    const why = [condition?.reason, condition?.message].filter(Boolean).join(': ') || 'no reason given';
    return new ScanRunError(`The scan Job failed (${why})${log}`);
  }
}
