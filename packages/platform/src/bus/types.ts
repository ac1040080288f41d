/** An event as it travels on the bus: the same envelope in Kafka and in-process. */
export interface EventEnvelope<P = unknown> {
  /** Unique per event; consumers record it to ignore redeliveries. */
  id: string;
  type: string;
  topic: string;
  /** The aggregate id: events with one key keep their order. */
  key: string;
  occurredAt: string;
  payload: P;
  headers: Record<string, string>;
}

export type EventHandler = (event: EventEnvelope) => Promise<void>;

/** Told of an event its consumer gave up after the last attempt: the error is the last attempt's. */
export type DeadLetterHandler = (event: EventEnvelope, error: unknown, attempts: number) => Promise<void>;

export interface SubscribeOptions {
  onDeadLetter?: DeadLetterHandler;
}

export interface Subscription {
  /** Stops consuming after the event in hand; the group keeps its position. */
  stop(): Promise<void>;
}

export interface TopicSpec {
  name: string;
  partitions: number;
}

/**
 * The event bus port. `publish` resolves only once the bus holds the events durably (Kafka: all
 * in-sync replicas; in-process: every running consumer group has handled them), so the outbox relay
 * may then mark them published. Delivery is at least once: handlers must be idempotent.
 */
export interface EventBus {
  readonly kind: 'kafka' | 'in-process';
  /** Opens the bus: topics exist, registered consumers begin. Publishing waits for it. */
  start(): Promise<void>;
  publish(events: EventEnvelope[]): Promise<void>;
  subscribe(group: string, topics: string[], handler: EventHandler, options?: SubscribeOptions): Promise<Subscription>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
