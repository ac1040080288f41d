import { expect } from 'chai';
import fs from 'node:fs';
import { spawn } from 'node:child_process';
import http from 'node:http';
import { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Logger } from '@bulwark/platform';
import { GitCheckoutError } from '@bulwark/platform';
import { startGitServer, type Json } from '@bulwark/testkit';
import { toolType } from '@bulwark/contracts';
import { KubernetesJobRunner } from '../src/runner/kubernetes-job';
import { jobName, MANAGED_BY, RULES_CONFIG_MAP, SCAN_ID_ANNOTATION } from '../src/runner/kubernetes/names';
import { ScanCheckout, ScanJob, ScanRunError, SHUTDOWN, toolArgv } from '../src/runner/scan-runner';

/*
 * No cluster runs here. KubeApiDouble is a real HTTP server answering the Kubernetes API paths the
 * runner calls; it decodes every request body against the models @kubernetes/client-node generates
 * from the Kubernetes OpenAPI document (attributeTypeMap: field names and types of V1Job, V1PodSpec,
 * V1Container, ...), answers like the API server does, and plays a Job's life: pod pending, running,
 * then succeeded with the report in its log, or failed, as each test asks.
 */

/** API objects as the double stores them: plain JSON, checked by decode() rather than by types. */

interface Behaviour {
  outcome: 'succeed' | 'fail' | 'hang';
  /** What the tool writes as its report (succeed), or none. */
  report?: string;
  exitCode?: number;
  toolOutput?: string;
  /** Failure code the checkout init container writes to its termination message. */
  checkoutFailure?: string;
  failReason?: string;
}

interface Recorded {
  method: string;
  path: string;
  query: Record<string, string>;
  body: Json;
  raw: string;
  status: number;
}

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
    readonly causes: { field: string; message: string }[] = [],
  ) {
    super(message);
  }
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const QUANTITY = /^[+-]?(\d+(\.\d*)?|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?\d+)?$/;

class KubeApiDouble {
  server!: http.Server;
  url = '';
  k8s!: Json;
  readonly token = `token-${randomUUID()}`;
  readonly jobs = new Map<string, Json>();
  readonly pods = new Map<string, Json>();
  readonly secrets = new Map<string, Json>();
  readonly configMaps = new Map<string, Json>();
  readonly requests: Recorded[] = [];
  readonly behaviours = new Map<string, Behaviour>();
  defaultBehaviour: Behaviour = { outcome: 'succeed', report: '[]', exitCode: 0, toolOutput: 'scanner says hello' };
  /** Strings that must never appear in a command, args or plain env value (the checkout's credentials). */
  forbidden: string[] = [];
  /** Run the pod's command lines on this machine instead of simulating them. */
  localShell = false;
  /** RBAC without the right to create Secrets. */
  forbidSecrets = false;
  /** Follow streams end at once, as when a connection drops. */
  cutFollow = false;
  /** Holds stand-in tool binaries for localShell. */
  fakeBin = '';
  private seq = 0;

  async start(): Promise<void> {
    this.k8s = await import('@kubernetes/client-node');
    this.server = http.createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  // ---- decoding against the client's OpenAPI models --------------------------------------------

  /** Like the API server with fieldValidation=Strict: unknown fields and wrong JSON types are a 400. */
  decode(value: unknown, type: string, at: string, problems: string[]): void {
    if (value === undefined || value === null) return;
    const array = /^Array<(.+)>$/.exec(type);
    const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
    if (array) {
      if (!Array.isArray(value)) problems.push(`${at}: expected an array`);
      else value.forEach((v, i) => this.decode(v, array[1], `${at}[${i}]`, problems));
    } else if (map) {
      if (typeof value !== 'object' || Array.isArray(value)) problems.push(`${at}: expected an object`);
      else for (const [k, v] of Object.entries(value)) this.decode(v, map[1], `${at}.${k}`, problems);
    } else if (type === 'string' || type === 'Date') {
      if (typeof value !== 'string') problems.push(`${at}: expected a string`);
    } else if (type === 'number') {
      if (typeof value !== 'number') problems.push(`${at}: expected a number`);
    } else if (type === 'boolean') {
      if (typeof value !== 'boolean') problems.push(`${at}: expected a boolean`);
    } else if (type === 'IntOrString') {
      if (typeof value !== 'string' && typeof value !== 'number')
        problems.push(`${at}: expected an integer or a string`);
    } else if (type !== 'any') {
      const model = this.k8s[type];
      if (!model?.attributeTypeMap) throw new Error(`the double does not know the model ${type}`);
      if (typeof value !== 'object' || Array.isArray(value)) {
        problems.push(`${at}: expected an object (${type})`);
        return;
      }
      const fields = new Map<string, { type: string; format: string }>(
        model.attributeTypeMap.map((a: Json) => [a.baseName, a]),
      );
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
        const field = fields.get(k);
        if (!field) problems.push(`unknown field "${at ? `${at}.` : ''}${k}"`);
        else {
          if ((field.format === 'int32' || field.format === 'int64') && typeof v === 'number' && !Number.isInteger(v))
            problems.push(`${at}.${k}: expected an integer`);
          this.decode(v, field.type, at ? `${at}.${k}` : k, problems);
        }
      }
    }
  }

  private strict(body: Json, model: string, kind: string, apiVersion: string): void {
    const problems: string[] = [];
    this.decode(body, model, '', problems);
    if (body?.kind !== kind || body?.apiVersion !== apiVersion)
      problems.push(`expected kind ${kind} and apiVersion ${apiVersion}`);
    if (problems.length > 0)
      throw new ApiError(
        400,
        'BadRequest',
        `${kind} in version "${apiVersion.split('/').pop()}" cannot be handled as a ${kind}: strict decoding error: ${problems.join(', ')}`,
      );
  }

  private invalid(kind: string, name: string, causes: { field: string; message: string }[]): void {
    if (causes.length > 0)
      throw new ApiError(
        422,
        'Invalid',
        `${kind} "${name}" is invalid: ${causes.map((c) => `${c.field}: ${c.message}`).join(', ')}`,
        causes,
      );
  }

  private metadataCauses(
    meta: Json,
    causes: { field: string; message: string }[],
    nameRule = DNS_SUBDOMAIN,
    maxName = 253,
  ): void {
    if (!meta?.name) causes.push({ field: 'metadata.name', message: 'Required value' });
    else if (!nameRule.test(meta.name) || meta.name.length > maxName)
      causes.push({ field: 'metadata.name', message: `Invalid value: "${meta.name}"` });
    for (const [k, v] of Object.entries<string>(meta?.labels ?? {})) {
      if (!LABEL_VALUE.test(v) || v.length > 63)
        causes.push({ field: `metadata.labels.${k}`, message: `Invalid value: "${v}"` });
    }
  }

  // ---- validation of the objects, and the runner's contract ------------------------------------

  private validateJob(job: Json): void {
    this.strict(job, 'V1Job', 'Job', 'batch/v1');
    const causes: { field: string; message: string }[] = [];
    this.metadataCauses(job.metadata, causes, DNS_LABEL, 63);
    const spec = job.spec ?? {};
    const pod = spec.template?.spec;
    if (!pod) causes.push({ field: 'spec.template.spec', message: 'Required value' });
    if (pod && !['Never', 'OnFailure'].includes(pod.restartPolicy))
      causes.push({
        field: 'spec.template.spec.restartPolicy',
        message: 'Unsupported value: a Job needs Never or OnFailure',
      });
    const containers: Json[] = [...(pod?.initContainers ?? []), ...(pod?.containers ?? [])];
    if (!pod?.containers?.length) causes.push({ field: 'spec.template.spec.containers', message: 'Required value' });
    const names = new Set<string>();
    for (const c of containers) {
      if (!c.name || !DNS_LABEL.test(c.name) || names.has(c.name))
        causes.push({ field: 'containers.name', message: `Invalid value: "${c.name}"` });
      names.add(c.name);
      if (!c.image) causes.push({ field: `containers[${c.name}].image`, message: 'Required value' });
      for (const [k, q] of Object.entries<string>({
        ...(c.resources?.requests ?? {}),
        ...(c.resources?.limits ?? {}),
      })) {
        if (!QUANTITY.test(q))
          causes.push({
            field: `containers[${c.name}].resources.${k}`,
            message: `Invalid value: "${q}": quantities must match the regular expression`,
          });
      }
      const volumes = new Set((pod?.volumes ?? []).map((v: Json) => v.name));
      for (const m of c.volumeMounts ?? []) {
        if (!volumes.has(m.name))
          causes.push({ field: `containers[${c.name}].volumeMounts.name`, message: `Not found: "${m.name}"` });
        if (!m.mountPath?.startsWith('/'))
          causes.push({ field: `containers[${c.name}].volumeMounts.mountPath`, message: 'must be absolute' });
      }
    }
    this.invalid('Job.batch', job.metadata?.name, causes);

    const contract: { field: string; message: string }[] = [];
    const must = (ok: boolean, field: string, message: string) =>
      ok || contract.push({ field, message: `bulwark contract: ${message}` });
    for (const [where, labels] of [
      ['metadata.labels', job.metadata?.labels],
      ['spec.template.metadata.labels', spec.template?.metadata?.labels],
    ] as const) {
      must(labels?.[MANAGED_BY] === 'bulwark', where, 'managed-by label');
      must(Boolean(labels?.['bulwark.io/scan-id']), where, 'scan-id label');
      must(Boolean(labels?.['bulwark.io/tool']), where, 'tool label');
    }
    must(spec.backoffLimit === 0, 'spec.backoffLimit', 'must be 0');
    must(
      Number.isInteger(spec.activeDeadlineSeconds) && spec.activeDeadlineSeconds > 0,
      'spec.activeDeadlineSeconds',
      'required',
    );
    must(Number.isInteger(spec.ttlSecondsAfterFinished), 'spec.ttlSecondsAfterFinished', 'required');
    must(pod?.restartPolicy === 'Never', 'spec.template.spec.restartPolicy', 'must be Never');
    must(
      pod?.securityContext?.runAsNonRoot === true && pod?.securityContext?.runAsUser > 0,
      'spec.template.spec.securityContext',
      'non-root',
    );
    must(
      pod?.securityContext?.seccompProfile?.type === 'RuntimeDefault',
      'spec.template.spec.securityContext.seccompProfile',
      'RuntimeDefault',
    );
    for (const c of containers) {
      const sc = c.securityContext ?? {};
      must(
        sc.allowPrivilegeEscalation === false,
        `containers[${c.name}].securityContext.allowPrivilegeEscalation`,
        'must be false',
      );
      must(
        (sc.capabilities?.drop ?? []).includes('ALL'),
        `containers[${c.name}].securityContext.capabilities.drop`,
        'must drop ALL',
      );
      must(
        Boolean(c.resources?.limits?.cpu && c.resources?.limits?.memory),
        `containers[${c.name}].resources.limits`,
        'cpu and memory limits',
      );
      const argv = [...(c.command ?? []), ...(c.args ?? [])].join('\n');
      for (const secret of this.forbidden)
        must(!argv.includes(secret), `containers[${c.name}].command`, 'a credential in command or args');
      for (const e of c.env ?? []) {
        if (e.value !== undefined)
          for (const secret of this.forbidden)
            must(
              !String(e.value).includes(secret),
              `containers[${c.name}].env.${e.name}`,
              'a credential in a plain env value',
            );
        if (/URL|USERNAME|PASSWORD|SSH_KEY/.test(e.name))
          must(
            Boolean(e.valueFrom?.secretKeyRef?.name && e.valueFrom?.secretKeyRef?.key),
            `containers[${c.name}].env.${e.name}`,
            'credentials come through secretKeyRef',
          );
      }
    }
    this.invalid('Job.batch', job.metadata?.name, contract);
  }

  private validateSecret(secret: Json): void {
    this.strict(secret, 'V1Secret', 'Secret', 'v1');
    const causes: { field: string; message: string }[] = [];
    this.metadataCauses(secret.metadata, causes);
    for (const [k, v] of Object.entries<string>(secret.data ?? {})) {
      if (!/^[-._a-zA-Z0-9]+$/.test(k))
        causes.push({
          field: `data[${k}]`,
          message: 'a valid config key must consist of alphanumeric characters, -, _ or .',
        });
      if (typeof v !== 'string' || Buffer.from(v, 'base64').toString('base64') !== v)
        causes.push({ field: `data[${k}]`, message: 'illegal base64 data' });
    }
    for (const o of secret.metadata?.ownerReferences ?? []) {
      for (const f of ['apiVersion', 'kind', 'name', 'uid'])
        if (!o[f]) causes.push({ field: `metadata.ownerReferences.${f}`, message: 'Required value' });
    }
    this.invalid('Secret', secret.metadata?.name, causes);
  }

  private validateConfigMap(cm: Json): void {
    this.strict(cm, 'V1ConfigMap', 'ConfigMap', 'v1');
    const causes: { field: string; message: string }[] = [];
    this.metadataCauses(cm.metadata, causes);
    for (const k of Object.keys(cm.data ?? {}))
      if (!/^[-._a-zA-Z0-9]+$/.test(k))
        causes.push({
          field: `data[${k}]`,
          message: 'a valid config key must consist of alphanumeric characters, -, _ or .',
        });
    const size = Object.entries<string>(cm.data ?? {}).reduce((n, [k, v]) => n + k.length + Buffer.byteLength(v), 0);
    if (size > 1024 * 1024) causes.push({ field: 'data', message: 'Too long: must have at most 1048576 bytes' });
    this.invalid('ConfigMap', cm.metadata?.name, causes);
  }

  // ---- lifecycle --------------------------------------------------------------------------------

  private behaviourOf(job: Json): Behaviour {
    return this.behaviours.get(job.metadata.annotations?.[SCAN_ID_ANNOTATION]) ?? this.defaultBehaviour;
  }

  private stored(meta: Json): Json {
    return {
      ...meta,
      namespace: 'scans',
      uid: randomUUID(),
      resourceVersion: String(++this.seq),
      creationTimestamp: new Date().toISOString(),
    };
  }

  /** One step of a Job's life per read: pod created once its Secret and ConfigMap exist, running, ended. */
  private advance(job: Json): void {
    const name = job.metadata.name;
    if (job.metadata.deletionTimestamp) {
      this.jobs.delete(name);
      for (const [podName, pod] of this.pods) if (pod.metadata.labels['job-name'] === name) this.pods.delete(podName);
      for (const [secretName, secret] of this.secrets)
        if (secret.metadata.ownerReferences?.some((o: Json) => o.uid === job.metadata.uid))
          this.secrets.delete(secretName);
      return;
    }
    if (job.status.succeeded || job.status.failed) return;
    const podSpec = job.spec.template.spec;
    let pod = [...this.pods.values()].find((p) => p.metadata.labels['job-name'] === name);
    if (!pod) {
      const refs = [...(podSpec.initContainers ?? []), ...podSpec.containers].flatMap((c: Json) =>
        (c.env ?? []).map((e: Json) => e.valueFrom?.secretKeyRef?.name).filter(Boolean),
      );
      const maps = (podSpec.volumes ?? []).map((v: Json) => v.configMap?.name).filter(Boolean);
      pod = {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          ...this.stored({ name: `${name}-${randomUUID().slice(0, 5)}` }),
          labels: { ...job.spec.template.metadata.labels, 'job-name': name },
        },
        spec: podSpec,
        status: {
          phase: 'Pending',
          initContainerStatuses: [],
          containerStatuses: [
            {
              name: 'scanner',
              image: podSpec.containers[0].image,
              imageID: '',
              ready: false,
              restartCount: 0,
              state: { waiting: { reason: 'PodInitializing' } },
            },
          ],
        },
      };
      this.pods.set(pod.metadata.name, pod);
      job.status = { active: 1, startTime: new Date().toISOString() };
      // The kubelet would wait (CreateContainerConfigError) until these exist.
      pod.waitingFor = [...refs.map((r: string) => ['secret', r]), ...maps.map((m: string) => ['configmap', m])];
      return;
    }
    const missing = pod.waitingFor.filter(
      ([kind, n]: [string, string]) => !(kind === 'secret' ? this.secrets : this.configMaps).has(n),
    );
    if (missing.length > 0) return;
    if (this.localShell) {
      if (!pod.started) {
        pod.started = true;
        void this.runLocally(job, pod);
      }
      return;
    }
    const b = this.behaviourOf(job);
    const scanner = pod.status.containerStatuses[0];
    if (pod.status.phase === 'Pending') {
      if (b.checkoutFailure) {
        this.end(job, pod, false, 'BackoffLimitExceeded');
        pod.status.initContainerStatuses = [
          {
            name: 'checkout',
            image: '',
            imageID: '',
            ready: false,
            restartCount: 0,
            state: { terminated: { exitCode: 1, reason: 'Error', message: b.checkoutFailure } },
          },
        ];
        return;
      }
      pod.status.phase = 'Running';
      pod.status.initContainerStatuses = [
        {
          name: 'checkout',
          image: '',
          imageID: '',
          ready: true,
          restartCount: 0,
          state: { terminated: { exitCode: 0, reason: 'Completed' } },
        },
      ];
      scanner.state = { running: { startedAt: new Date().toISOString() } };
      pod.log = `${b.toolOutput ?? ''}\n`;
      return;
    }
    if (b.outcome === 'hang') return;
    if (b.outcome === 'fail') {
      scanner.state = { terminated: { exitCode: 137, reason: b.failReason === 'OOMKilled' ? 'OOMKilled' : 'Error' } };
      this.end(
        job,
        pod,
        false,
        b.failReason === 'OOMKilled' ? 'BackoffLimitExceeded' : (b.failReason ?? 'BackoffLimitExceeded'),
      );
      return;
    }
    // What the scanner container's script prints: the frame with the exit code and base64 of the report.
    const env = Object.fromEntries(podSpec.containers[0].env.map((e: Json) => [e.name, e.value]));
    const mark = env.BULWARK_MARK;
    const code = b.exitCode ?? 0;
    pod.log +=
      b.report === undefined
        ? `\n${mark} noreport ${code}\n${mark} end\n`
        : `\n${mark} report ${code}\n${(
            Buffer.from(b.report)
              .toString('base64')
              .match(/.{1,76}/g) ?? []
          ).join('\n')}\n${mark} end\n`;
    scanner.state = { terminated: { exitCode: 0, reason: 'Completed' } };
    this.end(job, pod, true);
  }

  /** The container's environment as the kubelet builds it: plain values, and secretKeyRef read from the Secret. */
  private envOf(container: Json): Record<string, string> {
    return Object.fromEntries(
      (container.env ?? []).map((e: Json) => {
        const ref = e.valueFrom?.secretKeyRef;
        return [
          e.name,
          ref ? Buffer.from(this.secrets.get(ref.name).data[ref.key], 'base64').toString('utf8') : e.value,
        ];
      }),
    );
  }

  /**
   * The kubelet played by this machine's shell: the pod's own command lines run here, the checkout
   * against a real git server and the scanner with a stand-in tool binary on PATH. Paths only a
   * container has (its scratch volumes, /dev/termination-log) are mapped to a temporary folder.
   */
  private async runLocally(job: Json, pod: Json): Promise<void> {
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'kubelet-'));
    const run = (container: Json, env: Record<string, string>) =>
      new Promise<number>((resolve) => {
        const command = container.command.map((a: string) =>
          a
            .replaceAll('/bulwark/git-home', scratch)
            .replaceAll('/dev/termination-log', path.join(scratch, 'termination-log')),
        );
        const child = spawn(command[0], command.slice(1), {
          env: { PATH: `${this.fakeBin}:${process.env.PATH}`, ...env },
          cwd: container.workingDir,
        });
        child.stdout.on('data', (d: Buffer) => (pod.log += d.toString('utf8')));
        child.stderr.on('data', (d: Buffer) => (pod.log += d.toString('utf8')));
        child.on('close', (code) => resolve(code ?? 1));
      });
    try {
      const spec = job.spec.template.spec;
      const checkout = spec.initContainers[0];
      const checkoutCode = await run(checkout, this.envOf(checkout));
      if (checkoutCode !== 0) {
        const message = fs.existsSync(path.join(scratch, 'termination-log'))
          ? fs.readFileSync(path.join(scratch, 'termination-log'), 'utf8')
          : '';
        pod.status.initContainerStatuses = [
          {
            name: 'checkout',
            image: '',
            imageID: '',
            ready: false,
            restartCount: 0,
            state: { terminated: { exitCode: checkoutCode, reason: 'Error', message } },
          },
        ];
        pod.log = undefined;
        this.end(job, pod, false, 'BackoffLimitExceeded');
        return;
      }
      pod.status.initContainerStatuses = [
        {
          name: 'checkout',
          image: '',
          imageID: '',
          ready: true,
          restartCount: 0,
          state: { terminated: { exitCode: 0, reason: 'Completed' } },
        },
      ];
      pod.status.phase = 'Running';
      pod.log = '';
      const scanner = spec.containers[0];
      pod.status.containerStatuses[0].state = { running: { startedAt: new Date().toISOString() } };
      const code = await run(scanner, {
        ...this.envOf(scanner),
        HOME: path.join(scratch, 'home'),
        TMPDIR: path.join(scratch, 'tmp'),
      });
      pod.status.containerStatuses[0].state = {
        terminated: { exitCode: code, reason: code === 0 ? 'Completed' : 'Error' },
      };
      this.end(job, pod, code === 0, code === 0 ? undefined : 'BackoffLimitExceeded');
    } finally {
      fs.rmSync(scratch, { recursive: true, force: true });
    }
  }

  private end(job: Json, pod: Json, ok: boolean, reason?: string): void {
    pod.status.phase = ok ? 'Succeeded' : 'Failed';
    const now = new Date().toISOString();
    job.status = ok
      ? {
          succeeded: 1,
          startTime: job.status.startTime,
          completionTime: now,
          conditions: [{ type: 'Complete', status: 'True', lastTransitionTime: now }],
        }
      : {
          failed: 1,
          startTime: job.status.startTime,
          conditions: [
            {
              type: 'Failed',
              status: 'True',
              reason,
              message:
                reason === 'DeadlineExceeded'
                  ? 'Job was active longer than specified deadline'
                  : 'Job has reached the specified backoff limit',
              lastTransitionTime: now,
            },
          ],
        };
  }

  /** Seeds a Job as if left from before a restart. */
  seedJob(scanId: string, managed = true): string {
    const name = jobName(scanId);
    this.jobs.set(name, {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: {
        ...this.stored({ name }),
        labels: managed ? { [MANAGED_BY]: 'bulwark', 'bulwark.io/scan-id': scanId } : { app: 'other' },
        annotations: { [SCAN_ID_ANNOTATION]: scanId },
      },
      spec: {
        backoffLimit: 0,
        template: { spec: { restartPolicy: 'Never', containers: [{ name: 'scanner', image: 'x' }] } },
      },
      status: { active: 1 },
    });
    return name;
  }

  // ---- HTTP -------------------------------------------------------------------------------------

  private matches(labels: Record<string, string> | undefined, selector: string | undefined): boolean {
    if (!selector) return true;
    return selector.split(',').every((term) => {
      const [k, v] = term.split('=');
      return labels?.[k] === v;
    });
  }

  private list(kind: string, apiVersion: string, items: Json[]): Json {
    return { apiVersion, kind, metadata: { resourceVersion: String(this.seq) }, items };
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url!, 'http://x');
    const query = Object.fromEntries(url.searchParams);
    const record: Recorded = {
      method: req.method!,
      path: url.pathname,
      query,
      body: undefined,
      raw: `${req.url}\n${raw}`,
      status: 0,
    };
    this.requests.push(record);
    const send = (status: number, body: Json, type = 'application/json') => {
      record.status = status;
      res.writeHead(status, { 'content-type': type });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    try {
      if (req.headers.authorization !== `Bearer ${this.token}`) throw new ApiError(401, 'Unauthorized', 'Unauthorized');
      if (raw) {
        try {
          record.body = JSON.parse(raw);
        } catch {
          throw new ApiError(400, 'BadRequest', 'the body is not JSON');
        }
      }
      const m = (re: RegExp) => re.exec(url.pathname);
      let r: RegExpExecArray | null;
      if ((r = m(/^\/apis\/batch\/v1\/namespaces\/([^/]+)\/jobs$/))) {
        if (req.method === 'POST') {
          const job = record.body;
          this.validateJob(job);
          const existing = this.jobs.get(job.metadata.name);
          if (existing) throw new ApiError(409, 'AlreadyExists', `jobs.batch "${job.metadata.name}" already exists`);
          job.metadata = this.stored(job.metadata);
          job.status = {};
          this.jobs.set(job.metadata.name, job);
          return send(201, job);
        }
        if (req.method === 'GET')
          return send(
            200,
            this.list(
              'JobList',
              'batch/v1',
              [...this.jobs.values()].filter((j) => this.matches(j.metadata.labels, query.labelSelector)),
            ),
          );
      }
      if ((r = m(/^\/apis\/batch\/v1\/namespaces\/([^/]+)\/jobs\/([^/]+)$/))) {
        const job = this.jobs.get(r[2]);
        if (!job) throw new ApiError(404, 'NotFound', `jobs.batch "${r[2]}" not found`);
        if (req.method === 'GET') {
          this.advance(job);
          if (!this.jobs.has(r[2])) throw new ApiError(404, 'NotFound', `jobs.batch "${r[2]}" not found`);
          return send(200, job);
        }
        if (req.method === 'DELETE') {
          if (record.body)
            this.strict(
              { kind: 'DeleteOptions', apiVersion: 'v1', ...record.body },
              'V1DeleteOptions',
              'DeleteOptions',
              'v1',
            );
          job.metadata.deletionTimestamp = new Date().toISOString();
          job.deletedWith = query.propagationPolicy ?? record.body?.propagationPolicy;
          return send(200, job);
        }
      }
      if ((r = m(/^\/api\/v1\/namespaces\/([^/]+)\/secrets$/)) && req.method === 'POST') {
        if (this.forbidSecrets)
          throw new ApiError(
            403,
            'Forbidden',
            `secrets is forbidden: User "system:serviceaccount:bulwark:scanning" cannot create resource "secrets" in API group "" in the namespace "${r[1]}"`,
          );
        this.validateSecret(record.body);
        if (this.secrets.has(record.body.metadata.name))
          throw new ApiError(409, 'AlreadyExists', `secrets "${record.body.metadata.name}" already exists`);
        const owner = record.body.metadata.ownerReferences?.[0];
        if (owner && ![...this.jobs.values()].some((j) => j.metadata.uid === owner.uid))
          throw new ApiError(422, 'Invalid', 'owner reference to a Job that does not exist');
        record.body.metadata = this.stored(record.body.metadata);
        this.secrets.set(record.body.metadata.name, record.body);
        return send(201, record.body);
      }
      if ((r = m(/^\/api\/v1\/namespaces\/([^/]+)\/secrets\/([^/]+)$/)) && req.method === 'DELETE') {
        if (!this.secrets.delete(r[2])) throw new ApiError(404, 'NotFound', `secrets "${r[2]}" not found`);
        return send(200, { apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Success' });
      }
      if ((r = m(/^\/api\/v1\/namespaces\/([^/]+)\/configmaps$/)) && req.method === 'POST') {
        this.validateConfigMap(record.body);
        if (this.configMaps.has(record.body.metadata.name))
          throw new ApiError(409, 'AlreadyExists', `configmaps "${record.body.metadata.name}" already exists`);
        record.body.metadata = this.stored(record.body.metadata);
        this.configMaps.set(record.body.metadata.name, record.body);
        return send(201, record.body);
      }
      if ((r = m(/^\/api\/v1\/namespaces\/([^/]+)\/configmaps\/([^/]+)$/))) {
        const cm = this.configMaps.get(r[2]);
        if (!cm) throw new ApiError(404, 'NotFound', `configmaps "${r[2]}" not found`);
        if (req.method === 'GET') return send(200, cm);
        if (req.method === 'PUT') {
          this.validateConfigMap(record.body);
          if (record.body.metadata.resourceVersion !== cm.metadata.resourceVersion)
            throw new ApiError(409, 'Conflict', 'the object has been modified');
          record.body.metadata = { ...cm.metadata, resourceVersion: String(++this.seq) };
          this.configMaps.set(r[2], record.body);
          return send(200, record.body);
        }
      }
      if ((r = m(/^\/api\/v1\/namespaces\/([^/]+)\/pods$/)) && req.method === 'GET') {
        return send(
          200,
          this.list(
            'PodList',
            'v1',
            [...this.pods.values()]
              .filter((p) => this.matches(p.metadata.labels, query.labelSelector))
              .map(({ waitingFor: _waitingFor, log: _log, started: _started, ...p }) => p),
          ),
        );
      }
      if ((r = m(/^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/log$/)) && req.method === 'GET') {
        const pod = this.pods.get(r[2]);
        if (!pod) throw new ApiError(404, 'NotFound', `pods "${r[2]}" not found`);
        const container = query.container ?? 'scanner';
        if (container !== 'scanner')
          throw new ApiError(400, 'BadRequest', `container ${container} is not valid for pod ${r[2]}`);
        if (pod.log === undefined)
          throw new ApiError(
            400,
            'BadRequest',
            `container "${container}" in pod "${r[2]}" is waiting to start: PodInitializing`,
          );
        if (query.follow !== 'true') return send(200, pod.log, 'text/plain');
        // Follow: what is there, then what comes, until the container ends.
        record.status = 200;
        res.writeHead(200, { 'content-type': 'text/plain' });
        let sent = 0;
        const pump = () => {
          if (pod.log.length > sent) {
            res.write(pod.log.slice(sent));
            sent = pod.log.length;
          }
          if (
            this.cutFollow ||
            pod.status.phase === 'Succeeded' ||
            pod.status.phase === 'Failed' ||
            !this.pods.has(r![2])
          )
            res.end();
          else setTimeout(pump, 10);
        };
        return pump();
      }
      throw new ApiError(
        404,
        'NotFound',
        `the server could not find the requested resource (${req.method} ${url.pathname})`,
      );
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return send(err.status, {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: err.message,
        reason: err.reason,
        code: err.status,
        ...(err.causes.length
          ? { details: { causes: err.causes.map((c) => ({ reason: 'FieldValueInvalid', ...c })) } }
          : {}),
      });
    }
  }
}

const RULES_DIR = path.resolve(__dirname, '..', 'rules');
const credentials: ScanCheckout = {
  url: 'https://git.example.test/team/app.git',
  ref: 'main',
  authMethod: 'Login/Password',
  login: 'robot-login-4c1e',
  password: 'pa55-word-9b7f-very-secret',
  timeoutSeconds: 60,
};

describe('Kubernetes Job runner against a Kubernetes API double', function () {
  this.timeout(30000);
  let api: KubeApiDouble;
  let runner: KubernetesJobRunner;
  let logged: string[];
  let dir: string;

  const scanJob = (scanId = randomUUID(), over: Partial<ScanJob> = {}): ScanJob => {
    const root = fs.mkdtempSync(path.join(dir, 'scan-'));
    fs.mkdirSync(path.join(root, 'src'));
    fs.mkdirSync(path.join(root, 'out'));
    return {
      scanId,
      tool: toolType(2)!,
      scanDir: root,
      workspace: path.join(root, 'src'),
      resultDir: path.join(root, 'out'),
      rulesDir: RULES_DIR,
      timeoutMs: 300_000,
      extraArgs: ['--max-target-megabytes', '5'],
      resources: { cpu: '500m', memory: '768Mi' },
      checkout: { ...credentials },
      ...over,
    };
  };
  const created = () => api.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/jobs'));

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-k8s-test-'));
    api = new KubeApiDouble();
    await api.start();
    api.forbidden = [credentials.login!, credentials.password!, credentials.url];
    logged = [];
    const capture = (level: string) => (message: string, meta?: unknown) =>
      logged.push(`${level} ${message} ${JSON.stringify(meta ?? {})}`);
    const log = {
      info: capture('info'),
      warn: capture('warn'),
      error: capture('error'),
      debug: capture('debug'),
    } as unknown as Logger;
    runner = new KubernetesJobRunner(
      {
        namespace: 'scans',
        apiUrl: api.url,
        token: api.token,
        gitImage: 'alpine/git:test',
        ttlSecondsAfterFinished: 600,
        pollMs: 20,
        rulesDir: RULES_DIR,
      },
      log,
    );
  });

  afterEach(async () => {
    await api.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('the double answers like the API server: unknown fields and wrong types 400, invalid values and broken contract 422', async () => {
    const post = async (body: Json) => {
      const res = await fetch(`${api.url}/apis/batch/v1/namespaces/scans/jobs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${api.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: await res.json() };
    };
    const good = runner.jobSpec(
      scanJob('aaaaaaaa-0000-4000-8000-000000000001'),
      { scanId: 'x', name: 'bulwark-scan-x', secretName: 'bulwark-scan-x-git', marker: 'M' },
      [{ key: 'a', path: 'a' }],
    );
    const unknownDeep = structuredClone(good) as Json;
    unknownDeep.spec.template.spec.containers[0].securityContext.runAsRoot = true;
    let res = await post(unknownDeep);
    expect(res.status).to.equal(400);
    expect(res.body).to.include({ kind: 'Status', reason: 'BadRequest' });
    expect(res.body.message).to.include('unknown field "spec.template.spec.containers[0].securityContext.runAsRoot"');
    const wrongType = structuredClone(good) as Json;
    wrongType.spec.backoffLimit = '0';
    res = await post(wrongType);
    expect(res.status).to.equal(400);
    expect(res.body.message).to.include('spec.backoffLimit: expected a number');
    const badQuantity = structuredClone(good) as Json;
    badQuantity.spec.template.spec.containers[0].resources.limits.memory = 'lots';
    res = await post(badQuantity);
    expect(res.status).to.equal(422);
    expect(res.body).to.include({ kind: 'Status', reason: 'Invalid' });
    const retrying = structuredClone(good) as Json;
    retrying.spec.backoffLimit = 6;
    res = await post(retrying);
    expect(res.status).to.equal(422);
    expect(res.body.message).to.include('spec.backoffLimit: bulwark contract');
    const leaky = structuredClone(good) as Json;
    leaky.spec.template.spec.initContainers[0].args = [credentials.password];
    res = await post(leaky);
    expect(res.status).to.equal(422);
    expect(res.body.message).to.include('a credential in command or args');
    res = await post(good);
    expect(res.status).to.equal(201);
  });

  it('runs a scan: the Job succeeds and the report from its log is returned', async () => {
    const report = JSON.stringify(
      [{ RuleID: 'aws-access-token', File: 'config.py', StartLine: 3, Secret: 'REDACTED' }],
      null,
      2,
    );
    api.defaultBehaviour = {
      outcome: 'succeed',
      report,
      exitCode: 0,
      toolOutput: 'INF scan completed in 12ms\nWRN leaks found: 1',
    };
    const job = scanJob();
    const outcome = await runner.run(job, new AbortController().signal);
    expect(outcome.reportPath).to.equal(path.join(job.resultDir, 'gitleaks.json'));
    expect(fs.readFileSync(outcome.reportPath, 'utf8')).to.equal(report);
    expect(outcome.log).to.include('WRN leaks found: 1').and.not.include('BULWARK-REPORT');
    expect(
      api.requests.some((r) => r.path.endsWith('/log') && r.query.follow === 'true' && r.status === 200),
      'the log was followed',
    ).to.equal(true);
    expect(api.secrets.size, 'the checkout Secret is deleted once the Job ended').to.equal(0);
    expect(api.configMaps.get(RULES_CONFIG_MAP)?.data).to.have.property('semgrep__python.yaml');
  });

  it('reads the whole log once the Job ended when the followed stream was cut', async () => {
    api.cutFollow = true;
    api.defaultBehaviour = { outcome: 'succeed', report: '{"late":true}', exitCode: 0, toolOutput: 'tool line' };
    const outcome = await runner.run(scanJob(), new AbortController().signal);
    expect(fs.readFileSync(outcome.reportPath, 'utf8')).to.equal('{"late":true}');
    expect(outcome.log).to.equal('tool line');
    expect(api.requests.filter((r) => r.path.endsWith('/log')).map((r) => r.query.follow)).to.deep.equal([
      'true',
      undefined,
    ]);
  });

  it('creates the Job with every field the scan needs: labels, limits, security context, resources, checkout through a Secret', async () => {
    const job = scanJob();
    await runner.run(job, new AbortController().signal);
    const [request] = created();
    expect(request.status).to.equal(201);
    expect(request.query.fieldValidation).to.equal('Strict');
    const body = request.body;
    expect(body.metadata.name).to.equal(`bulwark-scan-${job.scanId}`).and.have.length.at.most(63);
    const labels = { [MANAGED_BY]: 'bulwark', 'bulwark.io/scan-id': job.scanId, 'bulwark.io/tool': 'gitleaks' };
    expect(body.metadata.labels).to.deep.equal(labels);
    expect(body.spec.template.metadata.labels).to.deep.equal(labels);
    expect(body.spec).to.include({ backoffLimit: 0, activeDeadlineSeconds: 300 + 60, ttlSecondsAfterFinished: 600 });
    const pod = body.spec.template.spec;
    expect(pod).to.include({ restartPolicy: 'Never', automountServiceAccountToken: false });
    expect(pod.securityContext).to.deep.equal({
      runAsNonRoot: true,
      runAsUser: 10001,
      runAsGroup: 10001,
      fsGroup: 10001,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    const [checkout] = pod.initContainers;
    const [scanner] = pod.containers;
    for (const c of [checkout, scanner]) {
      expect(c.securityContext).to.deep.equal({
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        runAsNonRoot: true,
        capabilities: { drop: ['ALL'] },
      });
    }
    expect(checkout.image).to.equal('alpine/git:test');
    expect(scanner.image).to.equal('zricethezav/gitleaks:v8.30.1');
    expect(scanner.resources).to.deep.equal({
      requests: { cpu: '500m', memory: '768Mi' },
      limits: { cpu: '500m', memory: '768Mi' },
    });
    // The tool's argv goes to the script as "$@", the placeholders filled with the mounted paths.
    expect(scanner.command.slice(0, 2)).to.deep.equal(['sh', '-c']);
    expect(scanner.command.slice(3)).to.deep.equal([
      'bulwark-scan',
      'gitleaks',
      ...toolArgv(job, { workspace: job.workspace, resultDir: job.resultDir, rulesDir: '/bulwark/rules' }),
    ]);
    expect(scanner.command).to.include.members([
      '--source',
      job.workspace,
      '--report-path',
      `${job.resultDir}/gitleaks.json`,
      '--max-target-megabytes',
    ]);
    expect(scanner.volumeMounts.map((m: Json) => m.mountPath)).to.include.members([
      job.workspace,
      job.resultDir,
      '/bulwark/rules',
    ]);
    // The scanned code cannot change the source or reach the node: read-only source, bounded scratch, no host namespaces.
    expect(scanner.volumeMounts.find((m: Json) => m.mountPath === job.workspace).readOnly).to.equal(true);
    expect(
      pod.volumes.filter((v: Json) => ['results', 'scratch'].includes(v.name)).map((v: Json) => v.emptyDir.sizeLimit),
    ).to.deep.equal(['1Gi', '1Gi']);
    expect(pod)
      .to.include({ enableServiceLinks: false })
      .and.not.have.any.keys('hostNetwork', 'hostPID', 'hostIPC', 'serviceAccountName');
    const secretName = `bulwark-scan-${job.scanId}-git`;
    const byName = Object.fromEntries(checkout.env.map((e: Json) => [e.name, e]));
    for (const [envName, key] of [
      ['BULWARK_GIT_URL', 'url'],
      ['BULWARK_GIT_USERNAME', 'username'],
      ['BULWARK_GIT_PASSWORD', 'password'],
    ]) {
      expect(byName[envName].valueFrom.secretKeyRef).to.deep.equal({ name: secretName, key });
    }
    expect(byName.BULWARK_GIT_REF.value).to.equal('main');
    expect(scanner.env.map((e: Json) => e.name)).to.not.include.members([
      'BULWARK_GIT_PASSWORD',
      'BULWARK_GIT_USERNAME',
    ]);
    const rules = pod.volumes.find((v: Json) => v.name === 'rules').configMap;
    expect(rules.name).to.equal(RULES_CONFIG_MAP);
    expect(rules.items).to.deep.include({ key: 'semgrep__python.yaml', path: 'semgrep/python.yaml' });
    const secret = api.requests.find((r) => r.method === 'POST' && r.path.endsWith('/secrets'))!.body;
    expect(secret.metadata.ownerReferences).to.have.length(1);
    expect(secret.metadata.ownerReferences[0]).to.include({ kind: 'Job', name: `bulwark-scan-${job.scanId}` });
    expect(Buffer.from(secret.data.password, 'base64').toString()).to.equal(credentials.password);
  });

  it("refuses extra_args outside the tool type's allow-list before anything is created", async () => {
    let failure: Error | undefined;
    await runner
      .run(
        scanJob(randomUUID(), {
          extraArgs: ['--max-target-megabytes', '5', '--config', '/bulwark/source/.gitleaks.toml'],
        }),
        new AbortController().signal,
      )
      .catch((err: Error) => (failure = err));
    expect(failure).to.be.instanceOf(ScanRunError);
    expect(failure!.message).to.contain('extra_args[2]');
    expect(created()).to.deep.equal([]);
    expect(api.secrets.size).to.equal(0);
  });

  it('deploy/kubernetes/scanner-networkpolicy.yaml is a valid NetworkPolicy that selects the scan pods and lets out only DNS and the clone', async () => {
    const k8s = await import('@kubernetes/client-node');
    const file = path.resolve(__dirname, '../../../deploy/kubernetes/scanner-networkpolicy.yaml');
    const policy = k8s.loadYaml<Json>(fs.readFileSync(file, 'utf8'));
    const problems: string[] = [];
    api.decode(policy, 'V1NetworkPolicy', '', problems);
    expect(problems).to.deep.equal([]);
    await runner.run(scanJob(), new AbortController().signal);
    const podLabels = created()[0].body.spec.template.metadata.labels as Record<string, string>;
    const selector = policy.spec.podSelector;
    for (const [key, value] of Object.entries(selector.matchLabels)) expect(podLabels[key], key).to.equal(value);
    for (const e of selector.matchExpressions) expect(podLabels, e.key).to.have.property(e.key);
    expect(policy.spec.policyTypes).to.have.members(['Ingress', 'Egress']);
    expect(policy.spec.ingress).to.deep.equal([]);
    const ports = policy.spec.egress.flatMap((rule: Json) => rule.ports.map((p: Json) => p.port));
    expect([...new Set(ports)]).to.have.members([53, 443, 22]);
    const blocks = policy.spec.egress.flatMap((rule: Json) =>
      rule.to.filter((to: Json) => to.ipBlock).map((to: Json) => to.ipBlock),
    );
    for (const block of blocks) expect(block.except).to.include.members(['169.254.0.0/16', '127.0.0.0/8']);
  });

  it('adopts the Job of a scan handed back at shutdown: the second create gets 409 and follows the same Job', async () => {
    const scanId = randomUUID();
    api.behaviours.set(scanId, { outcome: 'hang' });
    const first = new AbortController();
    const running = runner.run(scanJob(scanId), first.signal);
    while (![...api.pods.values()].some((p) => p.status.phase === 'Running'))
      await new Promise((r) => setTimeout(r, 10));
    first.abort(SHUTDOWN);
    expect(
      await running.then(
        () => undefined,
        (e) => e,
      ),
    ).to.be.instanceOf(ScanRunError);
    expect(api.jobs.has(jobName(scanId)), 'the Job outlives the process that started it').to.equal(true);
    expect(api.requests.some((r) => r.method === 'DELETE' && r.path.includes('/jobs/'))).to.equal(false);

    api.behaviours.set(scanId, { outcome: 'succeed', report: '{"adopted":true}', exitCode: 0 });
    const outcome = await runner.run(scanJob(scanId), new AbortController().signal);
    expect(fs.readFileSync(outcome.reportPath, 'utf8')).to.equal('{"adopted":true}');
    expect(created().map((r) => r.status)).to.deep.equal([201, 409]);
    expect(api.pods.size, 'one pod: the Job was not started twice').to.equal(1);
  });

  it('a failed Job fails the scan with its reason and the log tail', async () => {
    const scanId = randomUUID();
    api.behaviours.set(scanId, { outcome: 'fail', failReason: 'DeadlineExceeded', toolOutput: 'still scanning…' });
    const err = await runner.run(scanJob(scanId, { timeoutMs: 60_000 }), new AbortController().signal).then(
      () => undefined,
      (e) => e,
    );
    expect(err).to.be.instanceOf(ScanRunError);
    expect(err.message)
      .to.match(/^Gitleaks did not finish within 60 s and was stopped/)
      .and.include('still scanning…');

    const oom = randomUUID();
    api.behaviours.set(oom, { outcome: 'fail', failReason: 'OOMKilled' });
    const oomErr = await runner.run(scanJob(oom), new AbortController().signal).then(
      () => undefined,
      (e) => e,
    );
    expect(oomErr.message).to.equal('Gitleaks ran out of memory (limit 768Mi)');
  });

  it('a refused checkout is a checkout failure without git output; a bad exit code or a missing report fails the scan', async () => {
    const auth = randomUUID();
    api.behaviours.set(auth, { outcome: 'succeed', checkoutFailure: 'auth' });
    const err = await runner.run(scanJob(auth), new AbortController().signal).then(
      () => undefined,
      (e) => e,
    );
    expect(err).to.be.instanceOf(GitCheckoutError);
    expect(err.message).to.equal('the repository at git.example.test refused the credentials');

    const crashed = randomUUID();
    api.behaviours.set(crashed, { outcome: 'succeed', exitCode: 2, report: '{}', toolOutput: 'fatal: bad flag' });
    const exitErr = await runner.run(scanJob(crashed), new AbortController().signal).then(
      () => undefined,
      (e) => e,
    );
    expect(exitErr).to.be.instanceOf(ScanRunError);
    expect(exitErr.message).to.equal('Gitleaks failed with exit code 2: fatal: bad flag');

    const silent = randomUUID();
    api.behaviours.set(silent, { outcome: 'succeed', exitCode: 0, report: undefined });
    const missing = await runner.run(scanJob(silent), new AbortController().signal).then(
      () => undefined,
      (e) => e,
    );
    expect(missing.message).to.equal('Gitleaks finished without writing its report (gitleaks.json)');
  });

  it('a refused checkout Secret fails the scan and removes the Job that would wait for it', async () => {
    api.forbidSecrets = true;
    const scanId = randomUUID();
    const err = await runner.run(scanJob(scanId), new AbortController().signal).then(
      () => undefined,
      (e) => e,
    );
    expect(err).to.be.instanceOf(ScanRunError);
    expect(err.message).to.match(/^Kubernetes refused the scan's checkout Secret: secrets is forbidden/);
    expect(
      api.requests.find((r) => r.method === 'DELETE' && r.path.endsWith(`/jobs/${jobName(scanId)}`))?.query
        .propagationPolicy,
    ).to.equal('Foreground');
  });

  it('stop deletes the Job with Foreground propagation', async () => {
    const scanId = randomUUID();
    api.behaviours.set(scanId, { outcome: 'hang' });
    const ctl = new AbortController();
    const running = runner.run(scanJob(scanId), ctl.signal);
    while (![...api.pods.values()].some((p) => p.status.phase === 'Running'))
      await new Promise((r) => setTimeout(r, 10));
    ctl.abort();
    const err = await running.then(
      () => undefined,
      (e) => e,
    );
    expect(err).to.be.instanceOf(ScanRunError);
    expect(err.message).to.equal('Scan stopped');
    const deletion = api.requests.find((r) => r.method === 'DELETE' && r.path.endsWith(`/jobs/${jobName(scanId)}`))!;
    expect(deletion.status).to.equal(200);
    expect(deletion.query.propagationPolicy ?? deletion.body?.propagationPolicy).to.equal('Foreground');
  });

  it('reconcile deletes the Jobs of scans no longer in flight and keeps the others', async () => {
    const live = randomUUID();
    const done = randomUUID();
    const liveJob = api.seedJob(live);
    const doneJob = api.seedJob(done);
    const foreign = api.seedJob(randomUUID(), false);
    let asked: string[] = [];
    const result = await runner.reconcile(async (ids) => {
      asked = ids;
      return new Set(ids.filter((id) => id === live));
    });
    expect(asked).to.have.members([live, done]);
    expect(result).to.deep.equal({ kept: [liveJob], deleted: [doneJob] });
    const deletions = api.requests.filter((r) => r.method === 'DELETE');
    expect(deletions.map((r) => r.path)).to.deep.equal([`/apis/batch/v1/namespaces/scans/jobs/${doneJob}`]);
    expect(deletions[0].query.propagationPolicy).to.equal('Foreground');
    expect(api.jobs.has(foreign), 'Jobs Bulwark does not manage are not touched').to.equal(true);
    expect(api.configMaps.has(RULES_CONFIG_MAP), 'the rules are published at start').to.equal(true);

    // Published again only when they changed.
    api.configMaps.get(RULES_CONFIG_MAP).data['semgrep__python.yaml'] = 'rules: []';
    await new KubernetesJobRunner(
      {
        namespace: 'scans',
        apiUrl: api.url,
        token: api.token,
        gitImage: 'g',
        ttlSecondsAfterFinished: 1,
        pollMs: 20,
        rulesDir: RULES_DIR,
      },
      { info() {}, warn() {} } as unknown as Logger,
    ).reconcile(async () => new Set());
    expect(api.requests.filter((r) => r.method === 'PUT').map((r) => r.status)).to.deep.equal([200]);
    expect(api.configMaps.get(RULES_CONFIG_MAP).data['semgrep__python.yaml']).to.equal(
      fs.readFileSync(path.join(RULES_DIR, 'semgrep', 'python.yaml'), 'utf8'),
    );
  });

  it("the pod's own command lines work: checkout from a real git server with the Secret's credentials, report framed in the log", async () => {
    const auth = { username: 'robot-login-4c1e', password: 'pa55-word-9b7f-very-secret' };
    const git = await startGitServer({ auth });
    try {
      const appPy = 'import os\nos.system(input())  # the scanned code\n';
      const url = git.addRepository('app', { 'app.py': appPy, 'README.md': '# app\n' }, { branches: ['release'] });
      api.localShell = true;
      api.fakeBin = fs.mkdtempSync(path.join(dir, 'bin-'));
      // Stands in for gitleaks: reports what the checkout put in the workspace, exits like the real one.
      fs.writeFileSync(
        path.join(api.fakeBin, 'gitleaks'),
        '#!/bin/sh\nwhile [ $# -gt 0 ]; do case "$1" in --source) src=$2; shift;; --report-path) out=$2; shift;; esac; shift; done\necho "scanning $src: $(ls "$src" | tr \'\\n\' \' \')"\ncat "$src/app.py" > "$out"\n',
        { mode: 0o755 },
      );
      api.forbidden = [auth.username, auth.password];
      const checkout = {
        url,
        ref: 'release',
        authMethod: 'Login/Password',
        login: auth.username,
        password: auth.password,
        timeoutSeconds: 30,
      };
      const outcome = await runner.run(scanJob(randomUUID(), { checkout }), new AbortController().signal);
      expect(fs.readFileSync(outcome.reportPath, 'utf8')).to.equal(appPy);
      expect(outcome.log).to.match(/scanning .*\/src: README\.md app\.py/);
      expect(
        git.requests.some((r) => r.user === auth.username),
        'git sent the credentials from the Secret',
      ).to.equal(true);

      const refused = await runner
        .run(
          scanJob(randomUUID(), { checkout: { ...checkout, password: 'wrong-password' } }),
          new AbortController().signal,
        )
        .then(
          () => undefined,
          (e) => e,
        );
      expect(refused).to.be.instanceOf(GitCheckoutError);
      expect(refused.message).to.equal(`the repository at ${new URL(url).host} refused the credentials`);
      const noBranch = await runner
        .run(scanJob(randomUUID(), { checkout: { ...checkout, ref: 'gone' } }), new AbortController().signal)
        .then(
          () => undefined,
          (e) => e,
        );
      expect(noBranch.message).to.equal('branch or tag "gone" does not exist in the repository');
    } finally {
      await git.close();
    }
  });

  it('credentials appear in no request but the Secret data, and in no log line', async () => {
    const ssh: ScanCheckout = {
      url: 'git@git.example.test:team/app.git',
      authMethod: 'SSH key',
      sshPrivateKey:
        '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA-unique-key-material\n-----END OPENSSH PRIVATE KEY-----',
      timeoutSeconds: 60,
    };
    api.forbidden.push(ssh.url, ssh.sshPrivateKey!);
    await runner.run(scanJob(), new AbortController().signal);
    await runner.run(scanJob(randomUUID(), { checkout: ssh }), new AbortController().signal);
    const secrets = [
      credentials.login!,
      credentials.password!,
      credentials.url,
      ssh.url,
      ssh.sshPrivateKey!,
      'unique-key-material',
    ];
    const encoded = secrets.map((s) => Buffer.from(s).toString('base64'));
    const secretPosts = api.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/secrets'));
    expect(secretPosts).to.have.length(2);
    for (const r of api.requests) {
      const text = secretPosts.includes(r) ? JSON.stringify({ ...r.body, data: undefined }) + r.path : r.raw;
      for (const s of [...secrets, ...encoded]) expect(text, `${r.method} ${r.path}`).to.not.include(s);
    }
    const decoded = secretPosts.flatMap((r) =>
      Object.values<string>(r.body.data).map((v) => Buffer.from(v, 'base64').toString()),
    );
    expect(decoded).to.include.members([credentials.password, credentials.login, ssh.sshPrivateKey]);
    const sshEnv = created()[1].body.spec.template.spec.initContainers[0].env;
    expect(sshEnv.find((e: Json) => e.name === 'BULWARK_GIT_SSH_KEY').valueFrom.secretKeyRef.key).to.equal(
      'ssh-private-key',
    );
    expect(sshEnv.find((e: Json) => e.name === 'BULWARK_GIT_TRANSPORT').value).to.equal('ssh');
    for (const line of logged) for (const s of secrets) expect(line).to.not.include(s);
  });
});
