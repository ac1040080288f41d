import type * as K8s from '@kubernetes/client-node' with { 'resolution-mode': 'import' };

/** Where the cluster's API is and how to log in to it. */
export interface KubeConnection {
  /** Unset: the namespace of the kubeconfig context (in-cluster: the pod's own), else `default`. */
  namespace?: string;
  /** Unset: in-cluster configuration, else the default kubeconfig. */
  apiUrl?: string;
  token?: string;
  caFile?: string;
}

export interface KubeClients {
  k8s: typeof K8s;
  kc: K8s.KubeConfig;
  namespace: string;
  batch: K8s.BatchV1Api;
  core: K8s.CoreV1Api;
}

/** The API clients, made once on first use. */
export class KubeApi {
  private connected: Promise<KubeClients> | undefined;

  constructor(private readonly connection: KubeConnection) {}

  clients(): Promise<KubeClients> {
    this.connected ??= this.connect();
    return this.connected;
  }

  private async connect(): Promise<KubeClients> {
    const { apiUrl, caFile, token, namespace } = this.connection;
    // ESM-only package: a real dynamic import, kept as such by TypeScript in this CommonJS build.
    const k8s = await import('@kubernetes/client-node');
    const kc = new k8s.KubeConfig();
    if (apiUrl) {
      kc.loadFromOptions({
        // Plain http (allowed by the config to loopback only, e.g. kubectl proxy) has no TLS to verify;
        // the client refuses http unless told so.
        clusters: [{ name: 'bulwark', server: apiUrl, caFile, skipTLSVerify: apiUrl.startsWith('http:') }],
        users: [{ name: 'bulwark', token }],
        contexts: [{ name: 'bulwark', cluster: 'bulwark', user: 'bulwark', namespace }],
        currentContext: 'bulwark',
      });
    } else if (process.env.KUBERNETES_SERVICE_HOST) {
      kc.loadFromCluster();
    } else {
      kc.loadFromDefault();
    }
    return {
      k8s,
      kc,
      namespace: namespace ?? kc.getContextObject(kc.getCurrentContext())?.namespace ?? 'default',
      batch: kc.makeApiClient(k8s.BatchV1Api),
      core: kc.makeApiClient(k8s.CoreV1Api),
    };
  }
}

/** Waits between two reads of the API; a stop ends the wait at once. */
export const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
