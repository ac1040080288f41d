#!/usr/bin/env node
import { ConfigError, createLogger } from '@bulwark/platform';
import { startRuntime } from './runtime';

const log = createLogger('main');

async function main(): Promise<void> {
  const runtime = await startRuntime();
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info('shutting down', { signal });
    const force = setTimeout(() => {
      log.error('shutdown timed out; exiting');
      process.exit(1);
    }, Number(process.env.SHUTDOWN_TIMEOUT_MS ?? 20000));
    force.unref();
    runtime.stop().then(
      () => process.exit(0),
      (err) => {
        log.error('shutdown failed', { error: (err as Error).message });
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((err) => {
  if (err instanceof ConfigError) {
    log.error(err.message, { problems: err.problems });
    process.exit(78);
  }
  log.error('failed to start', { error: (err as Error).message, stack: (err as Error).stack });
  process.exit(1);
});
