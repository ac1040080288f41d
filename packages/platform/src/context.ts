import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { Span } from '@opentelemetry/api';

/** What travels with one unit of work (an HTTP request, a gRPC call, a consumed event). */
export interface WorkContext {
  requestId: string;
  /** This unit of work's trace span: the parent of what it calls or publishes. */
  span?: Span;
}

const storage = new AsyncLocalStorage<WorkContext>();

export function runWithContext<T>(ctx: WorkContext, fn: () => T): T {
  return storage.run(ctx, fn);
}

export function currentContext(): WorkContext | undefined {
  return storage.getStore();
}

export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

export function currentSpan(): Span | undefined {
  return storage.getStore()?.span;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Accepts a caller's request id only when it is short and printable, so it is safe to log and forward. */
export function requestIdFrom(value: unknown): string {
  return typeof value === 'string' && REQUEST_ID.test(value) ? value : randomUUID();
}

export const REQUEST_ID_HEADER = 'x-request-id';
