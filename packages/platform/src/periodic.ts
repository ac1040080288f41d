import { errorMessage } from './errors';
import type { Logger } from './logging';

/**
 * Background work that runs every `everyMs`: never two runs at once, a failed run is logged and
 * tried again at the next tick, and stop() waits for the run in progress.
 */
export class PeriodicTask {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(private readonly deps: { name: string; everyMs: number; run: () => Promise<unknown>; log: Logger }) {}

  start(): void {
    this.timer = setInterval(() => {
      if (this.running) return;
      // Started inside a promise, so a run that throws before its first await is caught like any other.
      this.running = Promise.resolve()
        .then(() => this.deps.run())
        .then(() => undefined)
        .catch((err: unknown) => {
          this.deps.log.warn(`${this.deps.name} failed; will retry`, { error: errorMessage(err) });
        })
        .finally(() => (this.running = undefined));
    }, this.deps.everyMs);
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }
}
