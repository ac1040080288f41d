import { currentRequestId } from './context';
import type { Queryable } from './db/database';
import { enqueueEvents } from './bus/outbox';

/**
 * The error log's wire names. They live here, not in the contracts package, because the platform
 * itself records errors (5xx answers, dead-lettered events) and the contracts package depends on the
 * platform; `@bulwark/contracts` re-exports them beside the payload's schema.
 */
export const ERRORS_TOPIC = 'bulwark.errors.v1';
export const ERROR_RECORDED = 'error.recorded';

export const ERROR_LEVELS = ['critical', 'error', 'warning'] as const;
export type ErrorLevel = (typeof ERROR_LEVELS)[number];

/** Context an administrator can act on: ids, counts, names. Never a secret, a stack or a raw exception text. */
export type ErrorDetails = Record<string, string | number | boolean | null>;

/**
 * One operational error an administrator must see, as the service that met it describes it. The
 * message is written for the administrator in English and in Russian (the log searches both).
 */
export interface OperationalError {
  /** Dotted, stable, area first: `http.internal`, `scan.checkout_failed`, `webhook.given_up`. */
  code: string;
  level: ErrorLevel;
  message: string;
  message_ru: string;
  /** The id of what failed (a scan result, a report, a delivery), when there is one. */
  subject?: string | null;
  /** `METHOD /api/v1/path/{param}` of an HTTP request, when the error answered one. */
  route?: string | null;
  /** Defaults to the request id of the work in progress. */
  request_id?: string | null;
  details?: ErrorDetails;
}

/** The payload of an `error.recorded` event (the schema in `@bulwark/contracts` checks it against this). */
export interface ErrorRecordedPayload {
  service: string;
  code: string;
  level: ErrorLevel;
  message: string;
  message_ru: string;
  subject: string | null;
  route: string | null;
  request_id: string | null;
  details: ErrorDetails;
  occurred_at: string;
}

/** Longest message kept: a failure's own text (a scanner's stderr line) must not make one row huge. */
const MAX_MESSAGE = 2000;
const MAX_DETAIL = 500;

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

export function errorPayload(service: string, e: OperationalError, at = new Date()): ErrorRecordedPayload {
  const details: ErrorDetails = {};
  for (const [k, v] of Object.entries(e.details ?? {})) details[k] = typeof v === 'string' ? clip(v, MAX_DETAIL) : v;
  return {
    service,
    code: e.code,
    level: e.level,
    message: clip(e.message, MAX_MESSAGE),
    message_ru: clip(e.message_ru, MAX_MESSAGE),
    subject: e.subject ?? null,
    route: e.route ?? null,
    request_id: e.request_id ?? currentRequestId() ?? null,
    details,
    occurred_at: at.toISOString(),
  };
}

/**
 * Records an operational error through the service's outbox, in `trx`: with the change that failed
 * (a scan marked failed and its error commit together), or alone on the service's database. The
 * relay publishes it on the errors topic, so nothing recorded is lost while the error log's owner
 * (notifications) or the bus is down. Services call it through `ServiceHost.recordError`.
 */
export async function recordError(trx: Queryable, service: string, e: OperationalError): Promise<void> {
  await enqueueEvents(trx, [
    { topic: ERRORS_TOPIC, type: ERROR_RECORDED, key: service, payload: errorPayload(service, e) },
  ]);
}

/** Something that records operational errors of one service: the ServiceHost, or a test's stand-in. */
export interface ErrorRecorder {
  /**
   * In `trx` when given: recorded exactly when it commits (a failed write fails the transaction like
   * any other). Without: written at once, and a failure to write it is logged, never thrown.
   */
  recordError(e: OperationalError, trx?: Queryable): Promise<void>;
}

const alreadyRecorded = new WeakSet<object>();

/**
 * Marks an error whose cause was recorded with more detail than its HTTP answer would give (a
 * directory that cannot be reached, answered as 503), so the answer is not recorded a second time.
 */
export function markRecorded<E extends object>(err: E): E {
  alreadyRecorded.add(err);
  return err;
}

export function isRecorded(err: unknown): boolean {
  return typeof err === 'object' && err !== null && alreadyRecorded.has(err);
}
