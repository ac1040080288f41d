import { errorMessage } from './errors';
import type { Logger } from './logging';

/**
 * The process's last line of defence. Every unit of work (HTTP request, gRPC call, consumed event,
 * periodic run) ends in its own error path, so reaching these handlers is a bug: it is logged as one
 * structured line instead of Node's raw dump.
 *
 * - An unhandled rejection keeps the process running: the async chain that rejected has already
 *   unwound, nothing is left half-done by the rejection itself, and exiting would end every other
 *   request and service of the process for one forgotten `catch`.
 * - An uncaught exception stops the process (cleanly, through `stop`): it was thrown from inside an
 *   event callback that may have left a socket, a stream or in-memory state half-updated, and Node
 *   gives no way to know; a supervisor starts a clean process instead of one in an unknown state.
 */
export function installLastResortHandlers(log: Logger, stop: (reason: string) => void): void {
  process.on('unhandledRejection', (reason) => {
    log.error('unhandled promise rejection; process keeps running', {
      error: errorMessage(reason),
      stack: reason instanceof Error ? reason.stack : undefined,
    });
  });
  process.on('uncaughtException', (err) => {
    log.error('uncaught exception; process stops', {
      error: errorMessage(err),
      stack: err instanceof Error ? err.stack : undefined,
    });
    stop('uncaughtException');
  });
}
