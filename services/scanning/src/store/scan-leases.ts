import type { Queryable } from '@bulwark/platform';
import { ScanRecord, ScanRow, ScanState, toScanRecord } from './scans';

/** A scan handed back to the queue, as if never started: its worker's lease and progress gone. */
const BACK_IN_QUEUE = {
  state: 'queued',
  stage: null,
  progress: 0,
  lease_owner: null,
  lease_until: null,
  started_at: null,
} as const;

/**
 * The leases of scans in work: a worker claims a queued scan and renews its lease while it runs; the
 * reaper requeues or fails the scans whose worker stopped renewing it (crash, kill).
 */
export const scanLeaseStore = {
  /**
   * Claims the oldest queued scan whose tool is under its concurrency limit, with a lease. SKIP LOCKED
   * lets several workers (and processes) claim in parallel without taking the same scan.
   */
  async claim(
    db: Queryable,
    owner: string,
    leaseSeconds: number,
    busyTools: string[],
  ): Promise<ScanRecord | undefined> {
    const rows = await db('scans')
      .whereIn(
        'id',
        db('scans')
          .select('id')
          .where({ state: 'queued', kind: 'scan', stop_requested: false })
          .whereNotIn('security_tool_id', busyTools.length > 0 ? busyTools : ['00000000-0000-0000-0000-000000000000'])
          .orderBy('created_at')
          .limit(1)
          .forUpdate()
          .skipLocked(),
      )
      .update({
        state: 'running',
        stage: 'starting',
        lease_owner: owner,
        lease_until: db.raw(`now() + (? * interval '1 second')`, [leaseSeconds]),
        attempts: db.raw('attempts + 1'),
        started_at: db.fn.now(),
        updated_at: db.fn.now(),
      })
      .returning<ScanRow[]>('*');
    return rows[0] ? toScanRecord(rows[0]) : undefined;
  },

  /** Extends the lease and records progress; false when the scan is no longer this worker's. */
  async heartbeat(
    db: Queryable,
    id: string,
    owner: string,
    leaseSeconds: number,
    progress?: { progress: number; stage: string; state?: ScanState },
  ): Promise<{ owned: boolean; stopRequested: boolean }> {
    const rows: { stop_requested: boolean }[] = await db('scans')
      .where({ id, lease_owner: owner })
      .whereIn('state', ['running', 'parsing'])
      .update({
        lease_until: db.raw(`now() + (? * interval '1 second')`, [leaseSeconds]),
        updated_at: db.fn.now(),
        ...(progress
          ? { progress: progress.progress, stage: progress.stage, ...(progress.state ? { state: progress.state } : {}) }
          : {}),
      })
      .returning('stop_requested');
    return { owned: rows.length > 0, stopRequested: rows[0]?.stop_requested ?? false };
  },

  /** Scans whose worker stopped renewing its lease (crash, kill): requeued while attempts remain, else failed. */
  async expiredLeases(db: Queryable): Promise<ScanRecord[]> {
    const rows = await db('scans').whereIn('state', ['running', 'parsing']).where('lease_until', '<', db.fn.now());
    return rows.map(toScanRecord);
  },

  async requeue(db: Queryable, id: string): Promise<boolean> {
    const n = await db('scans')
      .where({ id })
      .whereIn('state', ['running', 'parsing'])
      .where('lease_until', '<', db.fn.now())
      .update({ ...BACK_IN_QUEUE, updated_at: db.fn.now() });
    return n > 0;
  },

  /** Hands a scan this worker holds back to the queue (graceful shutdown). */
  async release(db: Queryable, id: string, owner: string): Promise<boolean> {
    const n = await db('scans')
      .where({ id, lease_owner: owner })
      .whereIn('state', ['running', 'parsing'])
      .update({ ...BACK_IN_QUEUE, attempts: db.raw('greatest(attempts - 1, 0)'), updated_at: db.fn.now() });
    return n > 0;
  },

  async busyTools(db: Queryable, limitPerTool: number): Promise<string[]> {
    const rows: { security_tool_id: string }[] = await db('scans')
      .select('security_tool_id')
      .whereIn('state', ['running', 'parsing'])
      .groupBy('security_tool_id')
      .havingRaw('count(*) >= ?', [limitPerTool]);
    return rows.map((r) => r.security_tool_id);
  },
};
