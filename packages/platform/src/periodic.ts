import type { Logger } from './logging';

/**
 * Background work that runs every `everyMs`: never two runs at once, a failed run is logged and
 * tried again at the next tick, and stop() waits for the run in progress.
 */
export class PeriodicTask {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly name: string,
    private readonly everyMs: number,
    private readonly run: () => Promise<unknown>,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.run()
        .then(() => undefined)
        .catch((err: Error) => {
          this.log.warn(`${this.name} failed; will retry`, { error: err.message });
        })
        .finally(() => (this.running = undefined));
    }, this.everyMs);
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }
}
