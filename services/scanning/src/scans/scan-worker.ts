import fs from 'node:fs';
import os from 'node:os';
import { randomUUID } from 'node:crypto';
import {
  EgressProxy,
  ErrorRecorder,
  errorMessage,
  extractTrace,
  Logger,
  PeriodicTask,
  runWithContext,
  ServiceData,
  SpanKind,
  startSpan,
} from '@bulwark/platform';
import { toolType } from '@bulwark/contracts';
import type { CatalogGate } from '../catalog-client';
import type { ScanRecord } from '../store/scans';
import { scanLeaseStore } from '../store/scan-leases';
import { SHUTDOWN, ScanRunner } from '../runner/scan-runner';
import { observeScanRun } from '../scan-metrics';
import type { ReportParser } from './report-parser';
import { ScanLease } from './scan-lease';
import { ScanReaper } from './scan-reaper';
import { ScanRun } from './scan-run';

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
  private reaping: PeriodicTask | undefined;
  private wake: (() => void) | undefined;
  private readonly run: ScanRun;
  private readonly reaper: ScanReaper;

  constructor(
    private readonly deps: {
      data: ServiceData;
      catalog: CatalogGate;
      runner: ScanRunner;
      parser: ReportParser;
      opts: ScanWorkerOptions;
      log: Logger;
      errors: ErrorRecorder;
    },
  ) {
    const { data, catalog, runner, parser, opts, log, errors } = deps;
    const lease = new ScanLease({ db: data.db, owner: this.owner, leaseSeconds: opts.leaseSeconds });
    this.run = new ScanRun({ data, catalog, runner, parser, lease, opts, owner: this.owner, log, errors });
    this.reaper = new ScanReaper({ data, log, errors, opts });
  }

  start(): void {
    fs.mkdirSync(this.deps.opts.workspaceRoot, { recursive: true, mode: 0o700 });
    this.reaper.killOrphans();
    this.running = true;
    this.loop = this.claimLoop();
    this.reaping = new PeriodicTask({
      name: 'scan reaper',
      everyMs: Math.max(1000, (this.deps.opts.leaseSeconds * 1000) / 2),
      run: () => this.reaper.reap((scanId) => this.active.has(scanId)),
      log: this.deps.log,
    });
    this.reaping.start();
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
      if (this.active.size < this.deps.opts.concurrency) {
        try {
          const busy = await scanLeaseStore.busyTools(this.deps.data.db, this.deps.opts.perToolConcurrency);
          claimed = await scanLeaseStore.claim(this.deps.data.db, this.owner, this.deps.opts.leaseSeconds, busy);
        } catch (err) {
          this.deps.log.warn('claiming a scan failed', { error: (err as Error).message });
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
        void runWithContext({ requestId: `scan-${scan.id}`, span }, () => this.run.execute(scan, ctl))
          .then(
            (end) => {
              observeScanRun(scan.toolTypeId, end, Number(process.hrtime.bigint() - started) / 1e9);
              span.setAttribute('bulwark.scan.end', end);
            },
            // execute() ends every scan it can; what escapes it (the workspace cannot be made, the
            // database is gone) leaves the lease to run out, and the scan is claimed again.
            (err) =>
              this.deps.log.error('scan run failed outside its own error handling', {
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
        const t = setTimeout(resolve, this.deps.opts.pollMs);
        this.wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
      this.wake = undefined;
    }
  }

  /** Stops claiming, stops what runs here (their leases end, so another replica can take them over). */
  async stop(): Promise<void> {
    this.running = false;
    this.nudge();
    await this.reaping?.stop();
    await this.loop;
    for (const [id, ctl] of this.active) {
      this.deps.log.info('releasing a running scan at shutdown', { scanId: id });
      ctl.abort(SHUTDOWN);
    }
    const deadline = Date.now() + 10000;
    while (this.active.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  }
}
