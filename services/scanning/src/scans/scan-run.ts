import fs from 'node:fs';
import path from 'node:path';
import { EgressProxy, ErrorRecorder, GitCheckoutError, gitCheckout, Logger, ServiceData } from '@bulwark/platform';
import { ReportParseError } from '@bulwark/findings';
import { decodeJson, SCAN_EVENTS, toolSettingsJson, ToolType, toolType, writeEvent } from '@bulwark/contracts';
import type { catalogV1 } from '@bulwark/proto';
import type { CatalogGate } from '../catalog-client';
import { CheckRecord, checkStore } from '../store/checks';
import { ScanRecord, scanStore } from '../store/scans';
import { scanLeaseStore } from '../store/scan-leases';
import { LEASE_LOST, ScanCheckout, ScanRunError, ScanRunner, SHUTDOWN } from '../runner/scan-runner';
import type { ScanRunEnd } from '../scan-metrics';
import type { ReportParser } from './report-parser';
import { completeScan, scanRef } from './completion';
import { ScanLease, Stopped } from './scan-lease';

/** What a worker runs scans with. */
export interface ScanRunOptions {
  /** Checkouts connect through it: the outbound policy decides where. */
  egress: EgressProxy;
  defaultTimeoutSeconds: number;
  checkoutTimeoutSeconds: number;
  workspaceRoot: string;
  rulesDir: string;
}

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

/** The file in a run's workspace naming the worker process that made it (see ScanReaper.killOrphans). */
export const OWNER_FILE = '.worker-pid';

/**
 * One scan run, start to end: the tool and check, the checkout, the scanner, then its report parsed,
 * stored and announced; or the scan stopped, handed back at shutdown, or failed with a message.
 */
export class ScanRun {
  constructor(
    private readonly deps: {
      data: ServiceData;
      catalog: CatalogGate;
      runner: ScanRunner;
      parser: ReportParser;
      lease: ScanLease;
      opts: ScanRunOptions;
      owner: string;
      log: Logger;
      errors: ErrorRecorder;
    },
  ) {}

  /** One run: the tool and check, the checkout, the scanner, then its report stored and announced. */
  async execute(scan: ScanRecord, ctl: AbortController): Promise<ScanRunEnd> {
    const workspace = fs.mkdtempSync(path.join(this.deps.opts.workspaceRoot, `scan-${scan.id}-`));
    fs.writeFileSync(path.join(workspace, OWNER_FILE), String(process.pid));
    const heartbeat = this.deps.lease.keep(scan, ctl);
    try {
      await this.deps.data.transaction((trx) =>
        writeEvent(trx, SCAN_EVENTS.scanStarted, scan.checkId, { ...scanRef(scan), attempt: scan.attempts }),
      );
      const run = await this.runnable(scan);
      await this.deps.lease.progress(scan, ctl, 5, 'checkout');
      const dirs = await this.checkOut(run.check, workspace, ctl);
      await this.deps.lease.progress(scan, ctl, 20, 'scan');
      const reportPath = await this.runScanner(scan, run, dirs, ctl);
      await this.deps.lease.progress(scan, ctl, 70, 'parse', 'parsing');
      return await this.storeReport(scan, run, reportPath, dirs.src);
    } catch (err) {
      return await this.fail(scan, ctl, err);
    } finally {
      clearInterval(heartbeat);
      fs.rmSync(workspace, { recursive: true, force: true });
    }
  }

  /** The scan's check and tool, refusing a check that is gone and a tool Bulwark does not run. */
  private async runnable(scan: ScanRecord): Promise<ScanSubject> {
    const check = await checkStore.get(this.deps.data.db, scan.checkId);
    if (!check) throw new ScanRunError('The check was deleted');
    const tool = await this.deps.catalog.tool(check.securityToolId);
    const type = toolType(tool.typeId);
    if (!type?.execution)
      throw new ScanRunError(
        `Tool type ${tool.typeName || tool.typeId} is not run by Bulwark: upload its reports to POST /api/v1/check/${check.id}/results`,
      );
    return { check, tool, type };
  }

  /** The workspace's source and output folders, the source checked out here unless the runner does it itself. */
  private async checkOut(check: CheckRecord, workspace: string, ctl: AbortController): Promise<ScanDirs> {
    const source = await this.deps.catalog.source(check.scanSourceId, true);
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
      timeoutSeconds: this.deps.opts.checkoutTimeoutSeconds,
    };
    if (this.deps.runner.needsLocalCheckout) {
      await gitCheckout(checkout, { name: checkout.ref, commit: checkout.commit }, src, {
        timeoutMs: checkout.timeoutSeconds * 1000,
        signal: ctl.signal,
        egress: this.deps.opts.egress,
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
    const outcome = await this.deps.runner.run(
      {
        scanId: scan.id,
        tool: type,
        scanDir: dirs.workspace,
        workspace: dirs.src,
        resultDir: dirs.out,
        rulesDir: this.deps.opts.rulesDir,
        timeoutMs: (settings.timeout_seconds ?? this.deps.opts.defaultTimeoutSeconds) * 1000,
        extraArgs: settings.extra_args ?? [],
        resources: settings.resources,
        checkout: this.deps.runner.needsLocalCheckout ? undefined : dirs.checkout,
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
    const { report, done } = await this.deps.data.transaction(async (trx) => {
      const report = await this.deps.parser.store(
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
        { owner: this.deps.owner },
      );
      return { report, done: finished };
    });
    this.deps.log.info('scan completed', {
      scanId: scan.id,
      checkId: scan.checkId,
      findings: report.findingsCount,
      stored: done,
    });
    return done ? 'completed' : 'abandoned';
  }

  private async fail(scan: ScanRecord, ctl: AbortController, err: unknown): Promise<ScanRunEnd> {
    if (ctl.signal.reason === LEASE_LOST) {
      this.deps.log.warn('scan abandoned: its lease was taken over', { scanId: scan.id });
      return 'abandoned';
    }
    if (ctl.signal.reason === SHUTDOWN) {
      await this.deps.data.transaction(async (trx) => {
        if (await scanLeaseStore.release(trx, scan.id, this.deps.owner))
          await writeEvent(trx, SCAN_EVENTS.scanQueued, scan.checkId, {
            ...scanRef(scan),
            reason: 'service shutting down',
          });
      });
      this.deps.log.info('scan handed back to the queue at shutdown', { scanId: scan.id });
      return 'requeued';
    }
    const current = await scanStore.get(this.deps.data.db, scan.id);
    if (ctl.signal.aborted || err instanceof Stopped || current?.stopRequested) {
      await this.deps.data.transaction(async (trx) => {
        if (await scanStore.finish(trx, scan.id, ['running', 'parsing'], 'stopped', { error: null }, this.deps.owner))
          await writeEvent(trx, SCAN_EVENTS.scanStopped, scan.checkId, scanRef(scan));
      });
      this.deps.log.info('scan stopped', { scanId: scan.id });
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
      this.deps.log.error('scan failed unexpectedly', {
        scanId: scan.id,
        error: (err as Error).message,
        stack: (err as Error).stack,
      });
    else this.deps.log.warn('scan failed', { scanId: scan.id, error: message });
    const checkout = err instanceof GitCheckoutError;
    await this.deps.data.transaction(async (trx) => {
      if (
        !(await scanStore.finish(trx, scan.id, ['running', 'parsing'], 'failed', { error: message }, this.deps.owner))
      )
        return;
      await writeEvent(trx, SCAN_EVENTS.scanFailed, scan.checkId, { ...scanRef(scan), error: message });
      await this.deps.errors.recordError(
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
}
