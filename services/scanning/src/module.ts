import path from 'node:path';
import {
  defineModule,
  EgressProxy,
  identityLicenseGate,
  lazyPeerClient,
  Logger,
  openSecretBox,
  peerClient,
  readServiceConfig,
  ServiceHost,
} from '@bulwark/platform';
import { routesOf, TOPICS } from '@bulwark/contracts';
import { catalogV1, issuesV1, scanningV1 } from '@bulwark/proto';
import { CatalogGate } from './catalog-client';
import { Checks } from './checks';
import { keepGateVerdicts } from './events/gate-verdicts';
import { copyTemplateChecks } from './events/layer-templates';
import { readScanningConfig } from './config';
import { scanningGrpc } from './grpc/scanning-grpc';
import { scanningHandlers } from './http/handlers';
import { migrations } from './migrations';
import { KubernetesJobRunner } from './runner/kubernetes-job';
import { LocalProcessRunner } from './runner/local-process';
import { ScannerSandbox } from './runner/sandbox';
import { Sboms } from './sboms';
import { observeScanQueue } from './scan-metrics';
import { ScanStats } from './scan-stats';
import { Scans } from './scans/scans';
import { ReportParser } from './scans/report-parser';
import { ScanWorker } from './scans/scan-worker';
import { UploadDryRun } from './scans/upload-dry-run';
import { scanStore } from './store/scans';

/** The local runner's scanner sandbox, probed once: a scan fails with the reason when it does not work. */
async function openSandbox(
  config: ReturnType<typeof readScanningConfig>,
  dataDir: string,
  log: Logger,
): Promise<ScannerSandbox> {
  const sandbox = await ScannerSandbox.open(
    { ...config.sandbox, hiddenPaths: [path.resolve(dataDir)] },
    config.SCAN_WORKSPACE_DIR,
  );
  if (!sandbox.enabled)
    log.warn(
      "SCAN_SANDBOX=none: scanners run without the sandbox, with this service's file system, network and user; scanned repositories are untrusted code",
    );
  else if (sandbox.problem)
    log.error('the scanner sandbox does not work: every local scan will fail until it does', {
      problem: sandbox.problem,
    });
  return sandbox;
}

export const scanningModule = defineModule({
  name: 'scanning',
  dependsOn: ['catalog'],
  readConfig: (e, mode) => readServiceConfig(e, mode, 'scanning', readScanningConfig),
  async start(ctx, { config, outbound, host: hostConfig, masterKeys }) {
    const host = await ServiceHost.open(ctx, hostConfig, migrations);
    const secrets = openSecretBox(masterKeys, ctx.dataDir);
    const catalog = new CatalogGate(peerClient(ctx, catalogV1.CatalogServiceService, 'catalog', host.auth));
    const runner =
      config.SCAN_RUNNER === 'kubernetes'
        ? new KubernetesJobRunner(
            {
              namespace: config.SCAN_K8S_NAMESPACE,
              apiUrl: config.SCAN_K8S_API_URL,
              token: config.SCAN_K8S_TOKEN,
              caFile: config.SCAN_K8S_CA_FILE,
              gitImage: config.SCAN_K8S_GIT_IMAGE,
              ttlSecondsAfterFinished: config.SCAN_K8S_TTL_SECONDS,
              pollMs: config.SCAN_K8S_POLL_MS,
              rulesDir: config.SCANNER_RULES_DIR,
            },
            host.log,
          )
        : new LocalProcessRunner(
            config.scannerPath,
            config.SCAN_OUTPUT_LIMIT_BYTES,
            await openSandbox(config, ctx.dataDir, host.log),
          );
    const egress = await EgressProxy.start(outbound);
    ctx.onStop(() => egress.close());
    const parser = new ReportParser({ threads: config.REPORT_PARSE_THREADS, memoryMb: config.REPORT_PARSE_MEMORY_MB });
    ctx.onStop(() => parser.close());
    const worker = new ScanWorker({
      data: host,
      catalog,
      runner,
      parser,
      opts: {
        egress,
        concurrency: config.SCAN_CONCURRENCY,
        perToolConcurrency: config.SCAN_CONCURRENCY_PER_TOOL,
        leaseSeconds: config.SCAN_LEASE_SECONDS,
        maxAttempts: config.SCAN_MAX_ATTEMPTS,
        pollMs: config.SCAN_POLL_MS,
        defaultTimeoutSeconds: config.SCAN_TIMEOUT_SECONDS,
        checkoutTimeoutSeconds: config.SCAN_CHECKOUT_TIMEOUT_SECONDS,
        workspaceRoot: config.SCAN_WORKSPACE_DIR,
        rulesDir: config.SCANNER_RULES_DIR,
      },
      log: host.log,
      errors: host,
    });
    const checks = new Checks(host, catalog, secrets);
    const license = identityLicenseGate(ctx, host.auth);
    // The issues service starts after this one (it reads scans from here): its client is made at the first dry run.
    const dryRun = new UploadDryRun({
      parser,
      issues: lazyPeerClient(ctx, issuesV1.IssuesServiceService, 'issues', host.auth),
    });
    const scans = new Scans({ data: host, catalog, checks, worker, parser, license, dryRun });
    await host.consume('layer-templates', [TOPICS.catalog], copyTemplateChecks(host.db, catalog, host.log));
    await host.consume('gate-verdicts', [TOPICS.issues], keepGateVerdicts());
    host.grpc.add(scanningV1.ScanningServiceService, 'bulwark.scanning.v1.ScanningService', scanningGrpc(host.db));
    const started = await host.serve(
      routesOf('scanning'),
      scanningHandlers(checks, scans, new ScanStats(host.db, checks), new Sboms(host, catalog)),
    );
    if (runner instanceof KubernetesJobRunner) {
      // In the background: an unreachable cluster must not keep the API down; runs retry on their own.
      void runner
        .reconcile((ids) => scanStore.inFlightIds(host.db, ids))
        .catch((err) => host.log.warn('reconciling kubernetes scan jobs failed', { error: (err as Error).message }));
    }
    worker.start();
    ctx.onStop(() => worker.stop());
    ctx.onStop(observeScanQueue(host.db));
    return started;
  },
});
