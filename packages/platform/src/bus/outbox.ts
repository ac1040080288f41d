import { randomUUID } from 'node:crypto';
import { currentRequestId, REQUEST_ID_HEADER } from '../context';
import type { Db, Queryable } from '../db/database';
import { errorMessage } from '../errors';
import { createLogger } from '../logging';
import { outboxPublished } from '../observability/metrics';
import { traceHeaders } from '../observability/tracing';
import type { EventBus, EventEnvelope } from './types';

export interface NewEvent<P = unknown> {
  topic: string;
  type: string;
  key: string;
  payload: P;
}

interface OutboxRow {
  seq: string;
  id: string;
  topic: string;
  key: string;
  type: string;
  payload: unknown;
  headers: Record<string, string>;
  created_at: Date | string;
}

/**
 * Writes events in the caller's transaction: they exist exactly when the change that caused them is
 * committed. The relay publishes them afterwards. The request id and trace context travel in the
 * headers, so the consumer's work joins the trace of the work that caused the event.
 */
export async function enqueueEvents(trx: Queryable, events: NewEvent[]): Promise<string[]> {
  if (events.length === 0) return [];
  const requestId = currentRequestId();
  const headers = JSON.stringify({ ...(requestId ? { [REQUEST_ID_HEADER]: requestId } : {}), ...traceHeaders() });
  const rows = events.map((e) => ({
    id: randomUUID(),
    topic: e.topic,
    key: e.key,
    type: e.type,
    payload: JSON.stringify(e.payload),
    headers,
  }));
  await trx('bulwark_outbox').insert(rows);
  return rows.map((r) => r.id);
}

export interface OutboxRelayOptions {
  service: string;
  batchSize?: number;
  pollMs?: number;
  leaseMs?: number;
  /** A publish that takes longer is abandoned and retried later (consumers ignore the duplicates). */
  publishTimeoutMs?: number;
  retentionMs?: number;
}

function toEnvelope(row: OutboxRow): EventEnvelope {
  return {
    id: row.id,
    type: row.type,
    topic: row.topic,
    key: row.key,
    occurredAt: new Date(row.created_at).toISOString(),
    payload: typeof row.payload === 'string' ? (JSON.parse(row.payload) as unknown) : row.payload,
    headers: typeof row.headers === 'string' ? (JSON.parse(row.headers) as Record<string, string>) : row.headers,
  };
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
    }),
  ]);
}

/**
 * Publishes committed outbox rows in order. Only the holder of the lease row publishes, so per-key
 * order holds with several replicas; a row is marked published only after the bus accepted it, so a
 * crash between commit and publish (or between publish and mark) means a retry, never a gap.
 */
export class OutboxRelay {
  private readonly holder = randomUUID();
  private readonly log;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = true;
  private lastCleanup = 0;

  constructor(
    private readonly db: Db,
    private readonly bus: EventBus,
    private readonly opts: OutboxRelayOptions,
  ) {
    this.log = createLogger(`${opts.service}.outbox`);
  }

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** Asks for a publish pass now (after a commit that enqueued events). */
  nudge(): void {
    if (this.stopped) return;
    if (this.running) this.again = true;
    else this.schedule(0);
  }

  private schedule(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.running = this.pass().finally(() => {
        this.running = undefined;
        if (this.stopped) return;
        const now = this.again;
        this.again = false;
        this.schedule(now ? 0 : (this.opts.pollMs ?? 250));
      });
    }, ms);
  }

  private async pass(): Promise<void> {
    try {
      while (!this.stopped && (await this.publishBatch()) === (this.opts.batchSize ?? 200));
      await this.cleanup();
    } catch (err) {
      this.log.warn('outbox publish pass failed; will retry', { error: errorMessage(err) });
    }
  }

  private async acquireLease(): Promise<boolean> {
    const leaseMs = this.opts.leaseMs ?? 15000;
    const rows = await this.db('bulwark_outbox_lease')
      .where({ id: 1 })
      .andWhere((q) => {
        q.where('holder', this.holder).orWhereNull('until').orWhere('until', '<', this.db.fn.now());
      })
      .update({ holder: this.holder, until: this.db.raw(`now() + (? * interval '1 millisecond')`, [leaseMs]) })
      .returning('id');
    return rows.length > 0;
  }

  /** Publishes one batch; returns how many rows it published. */
  async publishBatch(): Promise<number> {
    if (!(await this.acquireLease())) return 0;
    const rows = await this.db<OutboxRow>('bulwark_outbox')
      .whereNull('published_at')
      .orderBy('seq')
      .limit(this.opts.batchSize ?? 200);
    if (rows.length === 0) return 0;
    await withTimeout(this.bus.publish(rows.map(toEnvelope)), this.opts.publishTimeoutMs ?? 30000, 'outbox publish');
    await this.db('bulwark_outbox')
      .whereIn(
        'seq',
        rows.map((r) => r.seq),
      )
      .update({ published_at: this.db.fn.now() });
    outboxPublished.inc({ service: this.opts.service }, rows.length);
    return rows.length;
  }

  private async cleanup(): Promise<void> {
    const retentionMs = this.opts.retentionMs ?? 24 * 3600 * 1000;
    if (Date.now() - this.lastCleanup < 60000) return;
    this.lastCleanup = Date.now();
    await this.db('bulwark_outbox')
      .whereNotNull('published_at')
      .andWhere('published_at', '<', new Date(Date.now() - retentionMs))
      .delete();
  }

  /** Publishes what is pending (best effort, bounded), then stops and releases the lease. */
  async stop(flushTimeoutMs = 5000): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    // A pass stuck on an unreachable bus must not hold up shutdown; its rows stay pending.
    await Promise.race([this.running, new Promise((resolve) => setTimeout(resolve, flushTimeoutMs).unref())]);
    try {
      await withTimeout(
        (async () => {
          while ((await this.publishBatch()) > 0);
        })(),
        flushTimeoutMs,
        'outbox flush',
      );
    } catch (err) {
      this.log.warn('outbox not fully flushed at stop; the next start publishes the rest', {
        error: errorMessage(err),
      });
    }
    await this.db('bulwark_outbox_lease')
      .where({ id: 1, holder: this.holder })
      .update({ holder: null, until: null })
      .catch(() => undefined);
  }
}
