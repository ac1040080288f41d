import client from 'prom-client';
import { createLogger } from '../logging';

/**
 * The process's one metrics registry: in TARGET=all every module reports here and one `/metrics`
 * shows them all; in the scaled mode each process has its own. Labels carry only bounded values
 * (route templates, method names, topics, outcomes), never ids or user data.
 */
export const metricsRegistry = new client.Registry();
client.collectDefaultMetrics({ register: metricsRegistry });

const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export const httpRequests = new client.Counter({
  name: 'bulwark_http_requests_total',
  help: 'HTTP requests answered, by component (gateway or service), method, route template and status',
  labelNames: ['component', 'method', 'route', 'status'] as const,
  registers: [metricsRegistry],
});

export const httpRequestDuration = new client.Histogram({
  name: 'bulwark_http_request_duration_seconds',
  help: 'Time to answer an HTTP request, by component, method, route template and status',
  labelNames: ['component', 'method', 'route', 'status'] as const,
  buckets: SECONDS_BUCKETS,
  registers: [metricsRegistry],
});

export const grpcServerHandled = new client.Counter({
  name: 'bulwark_grpc_server_handled_total',
  help: 'gRPC calls a service answered, by method and status code',
  labelNames: ['method', 'code'] as const,
  registers: [metricsRegistry],
});

export const grpcServerDuration = new client.Histogram({
  name: 'bulwark_grpc_server_handling_seconds',
  help: 'Time a service took to answer a gRPC call (a stream: until its end), by method and status code',
  labelNames: ['method', 'code'] as const,
  buckets: SECONDS_BUCKETS,
  registers: [metricsRegistry],
});

export const grpcClientHandled = new client.Counter({
  name: 'bulwark_grpc_client_handled_total',
  help: 'gRPC calls made to a peer, by peer, method and status code',
  labelNames: ['target', 'method', 'code'] as const,
  registers: [metricsRegistry],
});

export const grpcClientDuration = new client.Histogram({
  name: 'bulwark_grpc_client_handling_seconds',
  help: 'Time a gRPC call to a peer took (a stream: until its end), by peer, method and status code',
  labelNames: ['target', 'method', 'code'] as const,
  buckets: SECONDS_BUCKETS,
  registers: [metricsRegistry],
});

export const busEventsHandled = new client.Counter({
  name: 'bulwark_bus_events_handled_total',
  help: 'Events a consumer group finished with, by topic, group and outcome (handled, dead-lettered, interrupted)',
  labelNames: ['topic', 'group', 'outcome'] as const,
  registers: [metricsRegistry],
});

export const busEventDuration = new client.Histogram({
  name: 'bulwark_bus_event_handling_seconds',
  help: 'Time from the start of handling an event to its outcome, retries included, by topic and group',
  labelNames: ['topic', 'group'] as const,
  buckets: SECONDS_BUCKETS,
  registers: [metricsRegistry],
});

export const kafkaConsumerLag = new client.Gauge({
  name: 'bulwark_kafka_consumer_lag',
  help: 'Messages of a partition not yet consumed by the group, as of the last batch it fetched',
  labelNames: ['topic', 'group', 'partition'] as const,
  registers: [metricsRegistry],
});

export const outboxPublished = new client.Counter({
  name: 'bulwark_outbox_published_total',
  help: 'Outbox events the relay handed to the bus, by service',
  labelNames: ['service'] as const,
  registers: [metricsRegistry],
});

export const outboxBacklog = new client.Gauge({
  name: 'bulwark_outbox_backlog',
  help: 'Committed outbox events not yet published, by service (read at scrape time)',
  labelNames: ['service'] as const,
  registers: [metricsRegistry],
});

export const outboxOldestAge = new client.Gauge({
  name: 'bulwark_outbox_oldest_unpublished_age_seconds',
  help: 'Age of the oldest unpublished outbox event, 0 when none waits, by service (read at scrape time)',
  labelNames: ['service'] as const,
  registers: [metricsRegistry],
});

export const dbPoolConnections = new client.Gauge({
  name: 'bulwark_db_pool_connections',
  help: 'Database pool connections by service and state (used, free)',
  labelNames: ['service', 'state'] as const,
  registers: [metricsRegistry],
});

export const dbPoolPendingAcquires = new client.Gauge({
  name: 'bulwark_db_pool_pending_acquires',
  help: 'Queries waiting for a database connection, by service',
  labelNames: ['service'] as const,
  registers: [metricsRegistry],
});

export const dbPoolMax = new client.Gauge({
  name: 'bulwark_db_pool_max_connections',
  help: 'Size limit of the database pool, by service',
  labelNames: ['service'] as const,
  registers: [metricsRegistry],
});

/**
 * Metrics a service defines for itself (at module level, so once per process), in the process
 * registry. A module may still be loaded twice in one process (a test importing its source while the
 * runtime loads its build): both then share the metric registered first under that name.
 */
function registered<M>(name: string, create: () => M): M {
  return (metricsRegistry.getSingleMetric(name) as M | undefined) ?? create();
}

export function counter<L extends string>(
  name: string,
  help: string,
  labelNames: readonly L[] = [],
): client.Counter<L> {
  return registered(name, () => new client.Counter({ name, help, labelNames, registers: [metricsRegistry] }));
}

export function gauge<L extends string>(name: string, help: string, labelNames: readonly L[] = []): client.Gauge<L> {
  return registered(name, () => new client.Gauge({ name, help, labelNames, registers: [metricsRegistry] }));
}

export function histogram<L extends string>(
  name: string,
  help: string,
  buckets: number[],
  labelNames: readonly L[] = [],
): client.Histogram<L> {
  return registered(
    name,
    () => new client.Histogram({ name, help, buckets, labelNames, registers: [metricsRegistry] }),
  );
}

type ScrapeHook = () => Promise<void> | void;
const scrapeHooks = new Set<ScrapeHook>();
const SCRAPE_HOOK_TIMEOUT_MS = 2000;

/**
 * Runs `refresh` at each scrape to set gauges that are read, not counted (backlogs, pool use): no
 * work happens while nobody scrapes. Returns the function that removes the hook.
 */
export function onScrape(refresh: ScrapeHook): () => void {
  scrapeHooks.add(refresh);
  return () => scrapeHooks.delete(refresh);
}

/** The text exposition of every metric of this process, after the scrape hooks ran (bounded in time). */
export async function metricsText(): Promise<string> {
  const log = createLogger('metrics');
  await Promise.all(
    [...scrapeHooks].map(async (hook) => {
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          hook(),
          new Promise(
            (_, reject) =>
              (timer = setTimeout(
                () => reject(new Error(`timed out after ${SCRAPE_HOOK_TIMEOUT_MS} ms`)),
                SCRAPE_HOOK_TIMEOUT_MS,
              )),
          ),
        ]);
      } catch (err) {
        // A gauge keeps its last value; the scrape itself must still answer.
        log.warn('a metrics refresh failed', { error: (err as Error).message });
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  return metricsRegistry.metrics();
}

export const METRICS_CONTENT_TYPE = metricsRegistry.contentType;
