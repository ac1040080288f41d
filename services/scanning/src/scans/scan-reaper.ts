import fs from 'node:fs';
import path from 'node:path';
import { ErrorRecorder, Logger, processAlive, ServiceData } from '@bulwark/platform';
import { SCAN_EVENTS, writeEvent } from '@bulwark/contracts';
import { scanStore } from '../store/scans';
import { scanLeaseStore } from '../store/scan-leases';
import { PGID_FILE } from '../runner/local-process';
import { scanRef } from './completion';
import { OWNER_FILE } from './scan-run';

/** Cleans up after workers that died: their scans (by lease) and their scanners and folders (by process). */
export class ScanReaper {
  constructor(
    private readonly deps: {
      data: ServiceData;
      log: Logger;
      errors: ErrorRecorder;
      opts: { maxAttempts: number; workspaceRoot: string };
    },
  ) {}

  /**
   * Scanners of a worker process that died (SIGKILL, crash) keep running in their own process group:
   * kill those groups and remove their folders. Folders of live workers (other replicas) are left alone.
   */
  killOrphans(): void {
    for (const dir of fs.readdirSync(this.deps.opts.workspaceRoot)) {
      if (!dir.startsWith('scan-')) continue;
      const full = path.join(this.deps.opts.workspaceRoot, dir);
      const read = (file: string) => Number(fs.readFileSync(path.join(full, file), 'utf8').trim());
      try {
        if (processAlive(read(OWNER_FILE))) continue;
      } catch {
        // No owner recorded: a folder left half-made; remove it.
      }
      try {
        process.kill(-read(PGID_FILE), 'SIGKILL');
        this.deps.log.warn('killed a scanner left running by a dead worker', { folder: dir });
      } catch {
        // No scanner recorded, or it is gone already.
      }
      fs.rmSync(full, { recursive: true, force: true });
    }
  }

  /** Requeues scans whose worker vanished, or fails them after the last attempt. */
  async reap(isRunningHere: (scanId: string) => boolean): Promise<void> {
    for (const scan of await scanLeaseStore.expiredLeases(this.deps.data.db)) {
      if (isRunningHere(scan.id)) continue;
      await this.deps.data.transaction(async (trx) => {
        if (scan.attempts < this.deps.opts.maxAttempts && !scan.stopRequested) {
          if (await scanLeaseStore.requeue(trx, scan.id)) {
            this.deps.log.warn('scan requeued: its worker stopped renewing the lease', {
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
            await this.deps.errors.recordError(
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
}
