import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import {
  EgressProxy,
  ErrorRecorder,
  errorMessage,
  extractTrace,
  GitCheckoutError,
  gitCheckout,
  Logger,
  PeriodicTask,
  processAlive,
  runWithContext,
  ServiceData,
  SpanKind,
  startSpan,
} from '@bulwark/platform';
import { ReportParseError } from '@bulwark/findings';
import { decodeJson, SCAN_EVENTS, toolSettingsJson, ToolType, toolType, writeEvent } from '@bulwark/contracts';
import type { catalogV1 } from '@bulwark/proto';
import type { CatalogGate } from '../catalog-client';
import { CheckRecord, checkStore } from '../store/checks';
import { ScanRecord, scanStore, ScanState } from '../store/scans';
import { PGID_FILE } from '../runner/local-process';
import { LEASE_LOST, ScanCheckout, ScanRunError, ScanRunner, SHUTDOWN } from '../runner/scan-runner';
import type { ReportParser } from './report-parser';
import { completeScan, scanRef } from './completion';
import { observeScanRun, ScanRunEnd } from '../scan-metrics';

export interface ScanWorkerOptions {
  /** Checkouts connect through it: the outbound policy decides where. */
  egress: EgressProxy;
  concurrency: number;
  perToolConcurrency: number;
  leaseSeconds: number;
  maxAttempts: number;
  pollMs: number;
  defaultTimeoutSeconds: number;
  checkoutTimeoutSeconds: number;
  workspaceRoot: string;
  rulesDir: string;
}

class Stopped extends Error {}

/** What a run scans with: the check, its tool and the tool's type. */
interface ScanSubject {
  check: CheckRecord;
  tool: catalogV1.Tool;
  type: ToolType;
}

interface ScanDirs {
  workspace: string;
  src: string;
  out: string;
  checkout: ScanCheckout;
}

const OWNER_FILE = '.worker-pid';

/**
 * Takes queued scans from the scanning database and runs them: checkout, scanner, parse, store,
 * announce. Claims are leased: a worker that dies stops renewing, and the reaper of any replica
 * requeues (or, after the last attempt, fails) its scans, so none stays `running` forever.
 */
export class ScanWorker {
  readonly owner = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly active = new Map<string, AbortController>();
  private running = false;
  private loop: Promise<void> | undefined;
  private reaper: PeriodicTask | undefined;
  private wake: (() => void) | undefined;

  constructor(
    private readonly data: ServiceData,
    private readonly catalog: CatalogGate,
    private readonly runner: ScanRunner,
    private readonly parser: ReportParser,
    private readonly opts: ScanWorkerOptions,
    private readonly log: Logger,
    private readonly errors: ErrorRecorder,
  ) {}

  start(): void {
    fs.mkdirSync(this.opts.workspaceRoot, { recursive: true, mode: 0o700 });
    this.killOrphans();
    this.running = true;
    this.loop = this.claimLoop();
    this.reaper = new PeriodicTask(
      'scan reaper',
      Math.max(1000, (this.opts.leaseSeconds * 1000) / 2),
      () => this.reap(),
      this.log,
    );
    this.reaper.start();
  }

  /** Wakes the claim loop (a scan was just queued). */
  nudge(): void {
    this.wake?.();
  }

  /** Stops a scan this process runs; true when it was here. */
  abortLocal(scanId: string): boolean {
    const ctl = this.active.get(scanId);
    ctl?.abort();
    return Boolean(ctl);
  }

  private async claimLoop(): Promise<void> {
    while (this.running) {
      let claimed: ScanRecord | undefined;
      if (this.active.size < this.opts.concurrency) {
        try {
          const busy = await scanStore.busyTools(this.data.db, this.opts.perToolConcurrency);
          claimed = await scanStore.claim(this.data.db, this.owner, this.opts.leaseSeconds, busy);
        } catch (err) {
          this.log.warn('claiming a scan failed', { error: (err as Error).message });
        }
      }
      if (claimed) {
        const scan = claimed;
        const ctl = new AbortController();
        this.active.set(scan.id, ctl);
        const started = process.hrtime.bigint();
        // A child of the request that queued the scan; the events the run publishes carry it on.
        const span = startSpan('scan run', {
          kind: SpanKind.INTERNAL,
          component: 'scanning',
          parent: scan.traceparent ? extractTrace({ traceparent: scan.traceparent }) : undefined,
          attributes: { 'bulwark.tool_type': toolType(scan.toolTypeId)?.name ?? 'unknown' },
        });
        void runWithContext({ requestId: `scan-${scan.id}`, span }, () => this.execute(scan, ctl))
          .then(
            (end) => {
              observeScanRun(scan.toolTypeId, end, Number(process.hrtime.bigint() - started) / 1e9);
              span.setAttribute('bulwark.scan.end', end);
            },
            // execute() ends every scan it can; what escapes it (the workspace cannot be made, the
            // database is gone) leaves the lease to run out, and the scan is claimed again.
            (err) =>
              this.log.error('scan run failed outside its own error handling', {
                scanId: scan.id,
                error: errorMessage(err),
              }),
          )
          .finally(() => {
            span.end();
            this.active.delete(scan.id);
            this.nudge();
          });
        continue;
      }
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, this.opts.pollMs);
        this.wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
      this.wake = undefined;
    }
  }

  private async progress(
    scan: ScanRecord,
    ctl: AbortController,
    progress: number,
    stage: string,
    state?: ScanState,
  ): Promise<void> {
    const beat = await scanStore.heartbeat(this.data.db, scan.id, this.owner, this.opts.leaseSeconds, {
      progress,
      stage,
      state,
    });
    if (!beat.owned || beat.stopRequested) {
      ctl.abort(beat.owned ? undefined : LEASE_LOST);
      throw new Stopped();
    }
  }

  /** One run: the tool and check, the checkout, the scanner, then its report stored and announced. */
  private async execute(scan: ScanRecord, ctl: AbortController): Promise<ScanRunEnd> {
    const workspace = fs.mkdtempSync(path.join(this.opts.workspaceRoot, `scan-${scan.id}-`));
    fs.writeFileSync(path.join(workspace, OWNER_FILE), String(process.pid));
    const heartbeat = this.keepLease(scan, ctl);
    try {
      await this.data.transaction((trx) =>
        writeEvent(trx, SCAN_EVENTS.scanStarted, scan.checkId, { ...scanRef(scan), attempt: scan.attempts }),
      );
      const run = await this.runnable(scan);
      await this.progress(scan, ctl, 5, 'checkout');
      const dirs = await this.checkOut(run.check, workspace, ctl);
      await this.progress(scan, ctl, 20, 'scan');
      const reportPath = await this.runScanner(scan, run, dirs, ctl);
      await this.progress(scan, ctl, 70, 'parse', 'parsing');
      return await this.storeReport(scan, run, reportPath, dirs.src);
    } catch (err) {
      return await this.fail(scan, ctl, err);
    } finally {
      clearInterval(heartbeat);
      fs.rmSync(workspace, { recursive: true, force: true });
    }
  }

  /** Renews the lease while the run lasts; a lost lease or a stop request aborts the run. */
  private keepLease(scan: ScanRecord, ctl: AbortController): NodeJS.Timeout {
    return setInterval(
      () => {
        void scanStore
          .heartbeat(this.data.db, scan.id, this.owner, this.opts.leaseSeconds)
          .then((beat) => {
            if (!beat.owned || beat.stopRequested) ctl.abort(beat.owned ? undefined : LEASE_LOST);
          })
          .catch(() => undefined);
      },
      Math.max(500, (this.opts.leaseSeconds * 1000) / 3),
    );
  }

  /** The scan's check and tool, refusing a check that is gone and a tool Bulwark does not run. */
  private async runnable(scan: ScanRecord): Promise<ScanSubject> {
    const check = await checkStore.get(this.data.db, scan.checkId);
    if (!check) throw new ScanRunError('The check was deleted');
    const tool = await this.catalog.tool(check.securityToolId);
    const type = toolType(tool.typeId);
    if (!type?.execution)
      throw new ScanRunError(
        `Tool type ${tool.typeName || tool.typeId} is not run by Bulwark: upload its reports to POST /api/v1/check/${check.id}/results`,
      );
    return { check, tool, type };
  }

  /** The workspace's source and output folders, the source checked out here unless the runner does it itself. */
  private async checkOut(check: CheckRecord, workspace: string, ctl: AbortController): Promise<ScanDirs> {
    const source = await this.catalog.source(check.scanSourceId, true);
    const src = path.join(workspace, 'src');
    const out = path.join(workspace, 'out');
    fs.mkdirSync(out, { mode: 0o700 });
    const checkout: ScanCheckout = {
      url: source.url,
      authMethod: source.authMethod,
      login: source.login,
      password: source.password,
      sshPrivateKey: source.sshPrivateKey,
      ref:
        check.tag?.tag_name ?? (check.sourceAuth.branch_name as string | undefined) ?? (source.branchName || undefined),
      commit: check.tag?.commit,
      timeoutSeconds: this.opts.checkoutTimeoutSeconds,
    };
    if (this.runner.needsLocalCheckout) {
      await gitCheckout(checkout, { name: checkout.ref, commit: checkout.commit }, src, {
        timeoutMs: checkout.timeoutSeconds * 1000,
        signal: ctl.signal,
        egress: this.opts.egress,
      });
    } else {
      // The runner checks out for itself; the empty folder keeps the report's paths relative to it.
      fs.mkdirSync(src, { mode: 0o700 });
    }
    return { workspace, src, out, checkout };
  }

  /** Runs the scanner with the tool's settings under the check's; answers the path of its report. */
  private async runScanner(
    scan: ScanRecord,
    { tool, type, check }: ScanSubject,
    dirs: ScanDirs,
    ctl: AbortController,
  ): Promise<string> {
    const settings = {
      ...decodeJson(toolSettingsJson, tool.settingsJson || '{}', 'settings_json'),
      ...check.toolSettings,
    } as { timeout_seconds?: number; extra_args?: string[]; resources?: { cpu?: string; memory?: string } };
    const outcome = await this.runner.run(
      {
        scanId: scan.id,
        tool: type,
        scanDir: dirs.workspace,
        workspace: dirs.src,
        resultDir: dirs.out,
        rulesDir: this.opts.rulesDir,
        timeoutMs: (settings.timeout_seconds ?? this.opts.defaultTimeoutSeconds) * 1000,
        extraArgs: settings.extra_args ?? [],
        resources: settings.resources,
        checkout: this.runner.needsLocalCheckout ? undefined : dirs.checkout,
      },
      ctl.signal,
    );
    return outcome.reportPath;
  }

  /** Parses the report into the store with its gzip, completes the scan and announces it, in one transaction. */
  private async storeReport(
    scan: ScanRecord,
    { check, tool, type }: ScanSubject,
    reportPath: string,
    src: string,
  ): Promise<ScanRunEnd> {
    const { report, done } = await this.data.transaction(async (trx) => {
      const report = await this.parser.store(
        trx,
        { id: scan.id, checkId: scan.checkId },
        { path: reportPath, format: type.resultFormat, workspace: src },
        'report',
        { fileName: path.basename(reportPath) },
      );
      const finished = await completeScan(
        trx,
        scan,
        report,
        { id: check.securityToolId, name: tool.name },
        { owner: this.owner },
      );
      return { report, done: finished };
    });
    this.log.info('scan completed', {
      scanId: scan.id,
      checkId: scan.checkId,
      findings: report.findingsCount,
      stored: done,
    });
    return done ? 'completed' : 'abandoned';
  }

  private async fail(scan: ScanRecord, ctl: AbortController, err: unknown): Promise<ScanRunEnd> {
    if (ctl.signal.reason === LEASE_LOST) {
      this.log.warn('scan abandoned: its lease was taken over', { scanId: scan.id });
      return 'abandoned';
    }
    if (ctl.signal.reason === SHUTDOWN) {
      await this.data.transaction(async (trx) => {
        if (await scanStore.release(trx, scan.id, this.owner))
          await writeEvent(trx, SCAN_EVENTS.scanQueued, scan.checkId, {
            ...scanRef(scan),
            reason: 'service shutting down',
          });
      });
      this.log.info('scan handed back to the queue at shutdown', { scanId: scan.id });
      return 'requeued';
    }
    const current = await scanStore.get(this.data.db, scan.id);
    if (ctl.signal.aborted || err instanceof Stopped || current?.stopRequested) {
      await this.data.transaction(async (trx) => {
        if (await scanStore.finish(trx, scan.id, ['running', 'parsing'], 'stopped', { error: null }, this.owner))
          await writeEvent(trx, SCAN_EVENTS.scanStopped, scan.checkId, scanRef(scan));
      });
      this.log.info('scan stopped', { scanId: scan.id });
      return 'stopped';
    }
    const known = err instanceof ScanRunError || err instanceof GitCheckoutError || err instanceof ReportParseError;
    const message =
      err instanceof GitCheckoutError
        ? `Checkout failed: ${err.message}`
        : known
          ? err.message
          : 'Internal error while scanning';
    if (!known)
      this.log.error('scan failed unexpectedly', {
        scanId: scan.id,
        error: (err as Error).message,
        stack: (err as Error).stack,
      });
    else this.log.warn('scan failed', { scanId: scan.id, error: message });
    const checkout = err instanceof GitCheckoutError;
    await this.data.transaction(async (trx) => {
      if (!(await scanStore.finish(trx, scan.id, ['running', 'parsing'], 'failed', { error: message }, this.owner)))
        return;
      await writeEvent(trx, SCAN_EVENTS.scanFailed, scan.checkId, { ...scanRef(scan), error: message });
      await this.errors.recordError(
        {
          code: checkout ? 'scan.checkout_failed' : 'scan.failed',
          level: 'error',
          subject: scan.id,
          message: `Scan ${scan.id} of check ${scan.checkId} (project ${scan.projectCode}) failed: ${message}`,
          message_ru: `Сканирование ${scan.id} проверки ${scan.checkId} (проект ${scan.projectCode}) не удалось: ${checkout ? 'ошибка получения исходного кода' : 'ошибка сканирования'}: ${message}`,
          details: {
            check_id: scan.checkId,
            layer_id: scan.layerId,
            project_code: scan.projectCode,
            tool_type_id: scan.toolTypeId,
          },
        },
        trx,
      );
    });
    return 'failed';
  }

  /**
   * Scanners of a worker process that died (SIGKILL, crash) keep running in their own process group:
   * kill those groups and remove their folders. Folders of live workers (other replicas) are left alone.
   */
  private killOrphans(): void {
    for (const dir of fs.readdirSync(this.opts.workspaceRoot)) {
      if (!dir.startsWith('scan-')) continue;
      const full = path.join(this.opts.workspaceRoot, dir);
      const read = (file: string) => Number(fs.readFileSync(path.join(full, file), 'utf8').trim());
      try {
        if (processAlive(read(OWNER_FILE))) continue;
      } catch {
        // No owner recorded: a folder left half-made; remove it.
      }
      try {
        process.kill(-read(PGID_FILE), 'SIGKILL');
        this.log.warn('killed a scanner left running by a dead worker', { folder: dir });
      } catch {
        // No scanner recorded, or it is gone already.
      }
      fs.rmSync(full, { recursive: true, force: true });
    }
  }

  /** Requeues scans whose worker vanished, or fails them after the last attempt. */
  async reap(): Promise<void> {
    for (const scan of await scanStore.expiredLeases(this.data.db)) {
      if (this.active.has(scan.id)) continue;
      await this.data.transaction(async (trx) => {
        if (scan.attempts < this.opts.maxAttempts && !scan.stopRequested) {
          if (await scanStore.requeue(trx, scan.id)) {
            this.log.warn('scan requeued: its worker stopped renewing the lease', {
              scanId: scan.id,
              attempts: scan.attempts,
            });
            await writeEvent(trx, SCAN_EVENTS.scanQueued, scan.checkId, { ...scanRef(scan), reason: 'worker lost' });
          }
        } else if (
          await scanStore.finish(trx, scan.id, ['running', 'parsing'], scan.stopRequested ? 'stopped' : 'failed', {
            error: scan.stopRequested
              ? null
              : `The worker running this scan stopped responding (after ${scan.attempts} attempt(s))`,
          })
        ) {
          await writeEvent(trx, scan.stopRequested ? SCAN_EVENTS.scanStopped : SCAN_EVENTS.scanFailed, scan.checkId, {
            ...scanRef(scan),
            reason: 'worker lost',
          });
          if (!scan.stopRequested) {
            await this.errors.recordError(
              {
                code: 'scan.worker_lost',
                level: 'error',
                subject: scan.id,
                request_id: null,
                message: `Scan ${scan.id} of check ${scan.checkId} (project ${scan.projectCode}) failed: its worker stopped responding (after ${scan.attempts} attempt(s))`,
                message_ru: `Сканирование ${scan.id} проверки ${scan.checkId} (проект ${scan.projectCode}) не удалось: обработчик перестал отвечать (попыток: ${scan.attempts})`,
                details: {
                  check_id: scan.checkId,
                  layer_id: scan.layerId,
                  project_code: scan.projectCode,
                  attempts: scan.attempts,
                },
              },
              trx,
            );
          }
        }
      });
    }
  }

  /** Stops claiming, stops what runs here (their leases end, so another replica can take them over). */
  async stop(): Promise<void> {
    this.running = false;
    this.nudge();
    await this.reaper?.stop();
    await this.loop;
    for (const [id, ctl] of this.active) {
      this.log.info('releasing a running scan at shutdown', { scanId: id });
      ctl.abort(SHUTDOWN);
    }
    const deadline = Date.now() + 10000;
    while (this.active.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  }
}
