import { status as GrpcStatus } from '@grpc/grpc-js';

/** One problem with one request field, as returned in `error.details`. */
export interface FieldProblem {
  field: string;
  problem: string;
}

export type ErrorCode =
  | 'invalid_request'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'gone'
  | 'request_timeout'
  | 'payload_too_large'
  | 'headers_too_large'
  | 'rate_limited'
  | 'unavailable'
  | 'internal';

interface CodeMapping {
  http: number;
  grpc: GrpcStatus;
}

const MAPPING: Record<ErrorCode, CodeMapping> = {
  invalid_request: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT },
  unauthenticated: { http: 401, grpc: GrpcStatus.UNAUTHENTICATED },
  forbidden: { http: 403, grpc: GrpcStatus.PERMISSION_DENIED },
  not_found: { http: 404, grpc: GrpcStatus.NOT_FOUND },
  method_not_allowed: { http: 405, grpc: GrpcStatus.UNIMPLEMENTED },
  conflict: { http: 409, grpc: GrpcStatus.FAILED_PRECONDITION },
  gone: { http: 410, grpc: GrpcStatus.UNIMPLEMENTED },
  request_timeout: { http: 408, grpc: GrpcStatus.DEADLINE_EXCEEDED },
  payload_too_large: { http: 413, grpc: GrpcStatus.RESOURCE_EXHAUSTED },
  headers_too_large: { http: 431, grpc: GrpcStatus.RESOURCE_EXHAUSTED },
  rate_limited: { http: 429, grpc: GrpcStatus.RESOURCE_EXHAUSTED },
  unavailable: { http: 503, grpc: GrpcStatus.UNAVAILABLE },
  internal: { http: 500, grpc: GrpcStatus.INTERNAL },
};

/**
 * The one error type of Bulwark. Thrown anywhere, it becomes the same JSON body over HTTP and the
 * same status over gRPC, so a caller sees the original code and field details across a service hop.
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: FieldProblem[];
  /** Extra response headers (Retry-After for 429). */
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, details: FieldProblem[] = [], headers: Record<string, string> = {}) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.details = details;
    this.headers = headers;
  }

  get httpStatus(): number {
    return MAPPING[this.code].http;
  }

  get grpcStatus(): GrpcStatus {
    return MAPPING[this.code].grpc;
  }

  toBody(): ErrorBody {
    return {
      error: {
        code: this.code,
        message: this.message,
        ...(this.details.length > 0 ? { details: this.details } : {}),
      },
    };
  }
}

export interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: FieldProblem[] };
}

export const invalid = (message: string, details: FieldProblem[] = []) =>
  new AppError('invalid_request', message, details);
export const invalidField = (field: string, problem: string) =>
  new AppError('invalid_request', `Invalid ${field}: ${problem}`, [{ field, problem }]);
export const notFound = (what: string) => new AppError('not_found', `${what} not found`);

/**
 * For `.catch` on a peer's call: its "not found" answer becomes undefined, every other failure is
 * thrown on, so "it does not exist" is never confused with "it could not be asked".
 */
export function unlessNotFound(err: unknown): undefined {
  if (err instanceof AppError && err.code === 'not_found') return undefined;
  throw err;
}
export const conflict = (message: string, details: FieldProblem[] = []) => new AppError('conflict', message, details);
export const forbidden = (message = 'Insufficient rights') => new AppError('forbidden', message);
export const unauthenticated = (message = 'Missing or invalid token') => new AppError('unauthenticated', message);

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && value in MAPPING;
}

/** A record or value the code itself has just written or looked up, found absent: a bug, so a 500, not a 404. */
export class MissingValueError extends Error {
  constructor(what: string) {
    super(`${what} is missing`);
    this.name = 'MissingValueError';
  }
}

/** The value, or a {@link MissingValueError} naming it: for what cannot be absent but a type cannot say so. */
export function present<T>(value: T | null | undefined, what: string): T {
  if (value === null || value === undefined) throw new MissingValueError(what);
  return value;
}

/** The text of anything thrown, for a log line: `throw undefined` or a string must not make the logging throw. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  try {
    return String(err);
  } catch {
    return 'unprintable error';
  }
}

/** Anything thrown becomes an AppError; unknown errors become `internal` without leaking their text. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const taken = uniqueKeyTaken(err);
  if (taken) return taken;
  return new AppError('internal', 'Internal server error');
}

/** Words of an index expression that name no column: `lower(username::text)` keys `username`. */
const EXPRESSION_WORDS = new Set(['lower', 'upper', 'coalesce', 'text', 'varchar', 'character', 'varying', 'citext']);

/**
 * PostgreSQL's unique_violation (23505). A use case checks for the key before it inserts, so this
 * reaches here only when a concurrent request took the key between the check and the insert: it
 * answers the check's 409, naming the key's columns, never a 500.
 */
function uniqueKeyTaken(err: unknown): AppError | undefined {
  const e = err as { code?: unknown; detail?: unknown } | null;
  if (!e || e.code !== '23505') return undefined;
  const key = typeof e.detail === 'string' ? (/^Key \((.+?)\)=\(/.exec(e.detail)?.[1] ?? '') : '';
  const columns = [
    ...new Set((key.match(/[a-z_][a-z0-9_]*/gi) ?? []).filter((w) => !EXPRESSION_WORDS.has(w.toLowerCase()))),
  ];
  const fields = columns.length > 0 ? columns : ['body'];
  return new AppError(
    'conflict',
    `A record with the same ${fields.join(', ')} already exists`,
    fields.map((field) => ({ field, problem: 'already exists' })),
  );
}
