#!/usr/bin/env node
import { ConfigError, createLogger, installLastResortHandlers } from '@bulwark/platform';
import { Runtime, startRuntime } from './runtime';

const log = createLogger('main');
/** Until the runtime has read its configuration (a start that fails early). */
const DEFAULT_SHUTDOWN_TIMEOUT_MS = 20000;

async function main(): Promise<void> {
  // Assigned once the runtime has started; `shutdown` reads it before then too (a signal during the start).
  // eslint-disable-next-line prefer-const
  let runtime: Runtime | undefined;
  let stopping = false;
  const shutdown = (reason: string, exitCode: number) => {
    if (stopping) return;
    stopping = true;
    log.info('shutting down', { reason });
    const force = setTimeout(() => {
      log.error('shutdown timed out; exiting');
      process.exit(1);
    }, runtime?.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS);
    force.unref();
    (runtime ? runtime.stop() : Promise.resolve()).then(
      () => process.exit(exitCode),
      (err) => {
        log.error('shutdown failed', { error: (err as Error).message });
        process.exit(1);
      },
    );
  };
  installLastResortHandlers(log, (reason) => shutdown(reason, 1));
  runtime = await startRuntime();
  process.on('SIGTERM', () => shutdown('SIGTERM', 0));
  process.on('SIGINT', () => shutdown('SIGINT', 0));
}

main().catch((err) => {
  if (err instanceof ConfigError) {
    log.error(err.message, { problems: err.problems });
    process.exit(78);
  }
  log.error('failed to start', { error: (err as Error).message, stack: (err as Error).stack });
  process.exit(1);
});
