import { errorMessage } from './errors';
import type { Logger } from './logging';
import { PeriodicTask } from './periodic';

export type StopStep = () => unknown;

/**
 * What a module must undo when it stops, registered as it builds each part: stopped in reverse order
 * of registration (last started, first stopped), each awaited; a step that fails is logged and the
 * rest still run, so one broken client never leaves a database or a port open.
 */
export class ModuleLifecycle {
  private readonly steps: StopStep[] = [];

  constructor(private readonly log: Logger) {}

  onStop(step: StopStep): void {
    this.steps.push(step);
  }

  /** Starts `task` every `everyMs` now (see PeriodicTask) and stops it, awaiting its run in progress, at stop. */
  every(name: string, everyMs: number, task: () => Promise<unknown>): void {
    const periodic = new PeriodicTask({ name, everyMs, run: task, log: this.log });
    periodic.start();
    this.onStop(() => periodic.stop());
  }

  async stop(): Promise<void> {
    for (const step of this.steps.splice(0).reverse()) {
      try {
        await step();
      } catch (err) {
        this.log.error('a part of the module failed to stop cleanly', { error: errorMessage(err) });
      }
    }
  }
}
