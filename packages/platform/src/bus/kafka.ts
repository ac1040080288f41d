import { Kafka, Consumer, Producer, logLevel, Partitioners, LogEntry, IHeaders } from 'kafkajs';
import { createLogger } from '../logging';
import { kafkaConsumerLag } from '../observability/metrics';
import { deliver, RetryPolicy, DEFAULT_RETRY } from './delivery';
import type {
  DeadLetterHandler,
  EventBus,
  EventEnvelope,
  EventHandler,
  SubscribeOptions,
  Subscription,
  TopicSpec,
} from './types';

export interface KafkaBusOptions {
  brokers: string[];
  clientId: string;
  topics: TopicSpec[];
  replicationFactor?: number;
  /**
   * Prefix of every topic and consumer group of this deployment, so several deployments (staging,
   * production, test runs) can share one cluster without reading each other's events.
   */
  namespace?: string;
  /** Partitions of each topic this bus creates, instead of the count its declaration gives. */
  partitions?: number;
  /**
   * How long the broker waits for a consumer's heartbeat before it hands the consumer's partitions to
   * the rest of its group; also the longest a rebalance waits for a member to rejoin.
   */
  sessionTimeoutMs?: number;
  retry?: RetryPolicy;
}

export const DEFAULT_SESSION_TIMEOUT_MS = 15000;
const HEARTBEAT_INTERVAL_MS = 1000;

const LEVELS: Record<number, string> = {
  [logLevel.ERROR]: 'error',
  [logLevel.WARN]: 'warn',
  [logLevel.INFO]: 'info',
  [logLevel.DEBUG]: 'debug',
};

function kafkaLogCreator() {
  const log = createLogger('kafka');
  return () =>
    ({ level, log: entry }: LogEntry) => {
      const { message, ...rest } = entry;
      // kafkajs reports every rebalance at info; keep those at debug so operators see problems, not chatter.
      log.log(level === logLevel.INFO ? 'debug' : (LEVELS[level] ?? 'info'), message, rest);
    };
}

function headerText(headers: IHeaders | undefined, name: string): string | undefined {
  const value = headers?.[name];
  if (value === undefined) return undefined;
  return Buffer.isBuffer(value) ? value.toString('utf8') : Array.isArray(value) ? String(value[0]) : String(value);
}

interface RegisteredConsumer {
  group: string;
  topics: string[];
  handler: EventHandler;
  onDeadLetter?: DeadLetterHandler;
  consumer?: Consumer;
}

/** Kafka adapter: topics created explicitly from the registry, acks from all replicas, key = aggregate id. */
export class KafkaBus implements EventBus {
  readonly kind = 'kafka' as const;
  private readonly kafka: Kafka;
  private readonly producer: Producer;
  private readonly log = createLogger('bus.kafka');
  private readonly pending: RegisteredConsumer[] = [];
  private readonly running = new Set<RegisteredConsumer>();
  private readonly started: Promise<void>;
  private markStarted!: () => void;
  private isStarted = false;

  constructor(private readonly opts: KafkaBusOptions) {
    this.kafka = new Kafka({
      clientId: opts.clientId,
      brokers: opts.brokers,
      logCreator: kafkaLogCreator,
      retry: { retries: 8 },
    });
    this.producer = this.kafka.producer({
      createPartitioner: Partitioners.DefaultPartitioner,
      allowAutoTopicCreation: false,
    });
    this.started = new Promise((resolve) => (this.markStarted = resolve));
  }

  async start(): Promise<void> {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      const existing = new Set(await admin.listTopics());
      const missing = this.opts.topics.filter((t) => !existing.has(this.physical(t.name)));
      if (missing.length > 0) {
        await admin.createTopics({
          waitForLeaders: true,
          topics: missing.map((t) => ({
            topic: this.physical(t.name),
            numPartitions: this.opts.partitions ?? t.partitions,
            replicationFactor: this.opts.replicationFactor ?? 1,
          })),
        });
      }
    } finally {
      await admin.disconnect();
    }
    await this.producer.connect();
    this.isStarted = true;
    this.markStarted();
    for (const c of this.pending.splice(0)) await this.run(c);
  }

  private physical(name: string): string {
    return `${this.opts.namespace ?? ''}${name}`;
  }

  async publish(events: EventEnvelope[]): Promise<void> {
    await this.started;
    const byTopic = new Map<string, EventEnvelope[]>();
    for (const e of events) byTopic.set(e.topic, [...(byTopic.get(e.topic) ?? []), e]);
    await this.producer.sendBatch({
      acks: -1,
      topicMessages: [...byTopic].map(([topic, list]) => ({
        topic: this.physical(topic),
        messages: list.map((e) => ({
          key: e.key,
          value: JSON.stringify(e),
          headers: { 'x-event-id': e.id, 'x-event-type': e.type, ...e.headers },
        })),
      })),
    });
  }

  async subscribe(
    group: string,
    topics: string[],
    handler: EventHandler,
    options: SubscribeOptions = {},
  ): Promise<Subscription> {
    const reg: RegisteredConsumer = { group, topics, handler, onDeadLetter: options.onDeadLetter };
    if (this.isStarted) await this.run(reg);
    else this.pending.push(reg);
    return {
      stop: async () => {
        const i = this.pending.indexOf(reg);
        if (i >= 0) this.pending.splice(i, 1);
        await this.stopConsumer(reg);
      },
    };
  }

  private async run(reg: RegisteredConsumer): Promise<void> {
    const sessionTimeout = this.opts.sessionTimeoutMs ?? DEFAULT_SESSION_TIMEOUT_MS;
    const consumer = this.kafka.consumer({
      groupId: this.physical(reg.group),
      sessionTimeout,
      heartbeatInterval: HEARTBEAT_INTERVAL_MS,
      rebalanceTimeout: sessionTimeout,
      allowAutoTopicCreation: false,
    });
    reg.consumer = consumer;
    await consumer.connect();
    await consumer.subscribe({ topics: reg.topics.map((t) => this.physical(t)), fromBeginning: true });
    let stopping = false;
    consumer.on(consumer.events.STOP, () => (stopping = true));
    // Reported by kafkajs after each batch from the fetch it already made: lag at no extra request.
    consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) => {
      kafkaConsumerLag.set(
        {
          topic: payload.topic.slice((this.opts.namespace ?? '').length),
          group: reg.group,
          partition: String(payload.partition),
        },
        Number(payload.offsetLag),
      );
    });
    await consumer.run({
      eachMessage: async (batch) => {
        const { message, topic } = batch;
        if (!message.value) return;
        let event: EventEnvelope | undefined;
        try {
          event = JSON.parse(message.value.toString('utf8')) as EventEnvelope;
        } catch {
          event = undefined;
        }
        // Valid JSON that is not an envelope (null, a number) is as undecodable as broken JSON.
        if (typeof event !== 'object' || event === null) {
          this.log.error('undecodable message skipped', {
            topic,
            offset: message.offset,
            eventId: headerText(message.headers, 'x-event-id'),
          });
          return;
        }
        // kafkajs heartbeats only between messages: one event handled for longer than the session
        // timeout (a large scan's ingestion) would otherwise cost the member its partitions, and the
        // group would hand the same event to another replica while this one is still at it.
        const beat = setInterval(() => void batch.heartbeat().catch(() => undefined), HEARTBEAT_INTERVAL_MS);
        const outcome = await deliver(
          event,
          reg.handler,
          this.log,
          reg.group,
          this.opts.retry ?? DEFAULT_RETRY,
          () => stopping || !reg.consumer,
          reg.onDeadLetter,
        ).finally(() => clearInterval(beat));
        // Throwing keeps the offset uncommitted, so the group's next run receives this event again.
        if (outcome === 'interrupted') throw new Error('consumer stopping');
      },
    });
    this.running.add(reg);
  }

  private async stopConsumer(reg: RegisteredConsumer): Promise<void> {
    const consumer = reg.consumer;
    if (!consumer) return;
    reg.consumer = undefined;
    this.running.delete(reg);
    await consumer.disconnect();
  }

  async ping(): Promise<void> {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      await admin.describeCluster();
    } finally {
      await admin.disconnect();
    }
  }

  async close(): Promise<void> {
    for (const reg of [...this.running]) await this.stopConsumer(reg);
    await this.producer.disconnect();
  }
}
