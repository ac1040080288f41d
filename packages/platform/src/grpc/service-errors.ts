import * as grpc from '@grpc/grpc-js';
import { AppError, isErrorCode, toAppError } from '../errors';

// Error bodies carry caller text (a project code, a name): a `-bin` key takes any bytes, where a
// plain key refuses anything outside printable ASCII (and grpc-js throws, from inside a callback).
const ERROR_METADATA = 'x-bulwark-error-bin';

/** Printable ASCII for the status text: every other UTF-16 unit (lone surrogates too) as \uXXXX. */
function asciiOnly(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export function toServiceError(err: unknown): Partial<grpc.StatusObject> {
  const appError = toAppError(err);
  const metadata = new grpc.Metadata();
  metadata.set(ERROR_METADATA, Buffer.from(JSON.stringify(appError.toBody().error), 'utf8'));
  return { code: appError.grpcStatus, details: asciiOnly(appError.message), metadata };
}

export function fromServiceError(err: grpc.ServiceError, target: string): AppError {
  const carried = err.metadata?.get(ERROR_METADATA)?.[0];
  if (Buffer.isBuffer(carried)) {
    try {
      const body = JSON.parse(carried.toString('utf8')) as { code: unknown; message: string; details?: [] };
      if (isErrorCode(body.code)) return new AppError(body.code, body.message, body.details ?? []);
    } catch {
      // Not ours: fall through to the status code.
    }
  }
  if (err.code === grpc.status.UNAVAILABLE || err.code === grpc.status.DEADLINE_EXCEEDED) {
    return new AppError('unavailable', `${target} is unavailable`);
  }
  return new AppError('internal', 'Internal server error');
}
