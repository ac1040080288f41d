import type { Queryable } from '@bulwark/platform';
import { LEASE_LOST } from '../runner/scan-runner';
import type { ScanRecord, ScanState } from '../store/scans';
import { scanLeaseStore } from '../store/scan-leases';

/** A run that must end now: its scan was stopped, or its lease went to another worker. */
export class Stopped extends Error {}

/**
 * A worker's lease on the scans it runs: renewed while a run lasts and with each step's progress; a
 * lost lease or a stop request aborts the run.
 */
export class ScanLease {
  constructor(private readonly deps: { db: Queryable; owner: string; leaseSeconds: number }) {}

  /** Records a step's progress with the lease; throws {@link Stopped} (aborting the run) when the scan is no longer this worker's to run. */
  async progress(
    scan: ScanRecord,
    ctl: AbortController,
    progress: number,
    stage: string,
    state?: ScanState,
  ): Promise<void> {
    const beat = await scanLeaseStore.heartbeat(this.deps.db, scan.id, this.deps.owner, this.deps.leaseSeconds, {
      progress,
      stage,
      state,
    });
    if (!beat.owned || beat.stopRequested) {
      ctl.abort(beat.owned ? undefined : LEASE_LOST);
      throw new Stopped();
    }
  }

  /** Renews the lease while the run lasts; a lost lease or a stop request aborts the run. */
  keep(scan: ScanRecord, ctl: AbortController): NodeJS.Timeout {
    return setInterval(
      () => {
        void scanLeaseStore
          .heartbeat(this.deps.db, scan.id, this.deps.owner, this.deps.leaseSeconds)
          .then((beat) => {
            if (!beat.owned || beat.stopRequested) ctl.abort(beat.owned ? undefined : LEASE_LOST);
          })
          .catch(() => undefined);
      },
      Math.max(500, (this.deps.leaseSeconds * 1000) / 3),
    );
  }
}
