import { createLogger } from '../logging';
import { deliver, RetryPolicy, DEFAULT_RETRY } from './delivery';
import type { DeadLetterHandler, EventBus, EventEnvelope, EventHandler, SubscribeOptions, Subscription } from './types';

interface Pending {
  event: EventEnvelope;
  done: () => void;
}

class Group {
  readonly queue: Pending[] = [];
  handler: EventHandler | undefined;
  onDeadLetter: DeadLetterHandler | undefined;
  private draining = false;
  private current: Promise<void> = Promise.resolve();

  constructor(
    readonly name: string,
    readonly topics: Set<string>,
    private readonly retry: RetryPolicy,
  ) {}

  get running(): boolean {
    return this.handler !== undefined;
  }

  kick(): void {
    if (this.draining || !this.handler) return;
    this.draining = true;
    this.current = this.drain().finally(() => {
      this.draining = false;
    });
  }

  /** One worker per group handles events in publish order, so per-key order holds. */
  private async drain(): Promise<void> {
    const log = createLogger('bus.in-process');
    while (this.handler && this.queue.length > 0) {
      const item = this.queue[0];
      const outcome = await deliver(
        item.event,
        this.handler,
        log,
        this.name,
        this.retry,
        () => !this.handler,
        this.onDeadLetter,
      );
      if (outcome === 'interrupted') break;
      this.queue.shift();
      item.done();
    }
  }

  async stop(): Promise<void> {
    this.handler = undefined;
    await this.current;
  }
}

/**
 * The bus of the single-process mode. Groups keep their queue while stopped (delivery resumes when
 * they subscribe again), and `publish` resolves only after every running group has handled the
 * events: the outbox row is marked published only then, so a crash loses nothing in this mode either.
 */
export class InProcessBus implements EventBus {
  readonly kind = 'in-process' as const;
  private readonly groups = new Map<string, Group>();
  private opened!: () => void;
  private readonly openedPromise = new Promise<void>((resolve) => (this.opened = resolve));
  private closed = false;

  constructor(private readonly retry: RetryPolicy = DEFAULT_RETRY) {}

  async start(): Promise<void> {
    this.opened();
    for (const g of this.groups.values()) g.kick();
  }

  async publish(events: EventEnvelope[]): Promise<void> {
    await this.openedPromise;
    if (this.closed) throw new Error('event bus is closed');
    const waits: Promise<void>[] = [];
    for (const event of events) {
      for (const group of this.groups.values()) {
        if (!group.topics.has(event.topic)) continue;
        const handled = new Promise<void>((resolve) => group.queue.push({ event, done: resolve }));
        if (group.running) waits.push(handled);
      }
    }
    for (const group of this.groups.values()) group.kick();
    await Promise.all(waits);
  }

  async subscribe(
    groupName: string,
    topics: string[],
    handler: EventHandler,
    options: SubscribeOptions = {},
  ): Promise<Subscription> {
    let group = this.groups.get(groupName);
    if (!group) {
      group = new Group(groupName, new Set(topics), this.retry);
      this.groups.set(groupName, group);
    } else {
      if (group.running) throw new Error(`consumer group ${groupName} is already running in this process`);
      for (const t of topics) group.topics.add(t);
    }
    group.handler = handler;
    group.onDeadLetter = options.onDeadLetter;
    const g = group;
    let isOpen = false;
    void this.openedPromise.then(() => {
      isOpen = true;
      g.kick();
    });
    if (isOpen) g.kick();
    return { stop: () => g.stop() };
  }

  async ping(): Promise<void> {
    if (this.closed) throw new Error('event bus is closed');
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.groups.values()].map((g) => g.stop()));
  }
}
