import path from 'node:path';
import { z } from 'zod';
import {
  Cache,
  ConfigError,
  createLogger,
  DEFAULT_SESSION_TIMEOUT_MS,
  env,
  EventBus,
  InProcessBus,
  InternalAuth,
  KafkaBus,
  loadConfig,
  loadOrCreateSecret,
  ModuleContext,
  ModuleDefinition,
  ModuleLifecycle,
  openCache,
  readConfigs,
  SERVICE_NAMES,
  ServiceName,
  StartedModule,
  startTracing,
  sweepAbandonedUploads,
  tracingConfigSchema,
} from '@bulwark/platform';
import { TOPIC_SPECS } from '@bulwark/contracts';
import { gatewayModule } from '@bulwark/gateway';
import { identityModule } from '@bulwark/identity';
import { catalogModule } from '@bulwark/catalog';
import { scanningModule } from '@bulwark/scanning';
import { issuesModule } from '@bulwark/issues';
import { reportingModule } from '@bulwark/reporting';
import { notificationsModule } from '@bulwark/notifications';
import { MetricsServer, serveMetrics } from './metrics-server';
import { limitHeapGrowth } from './heap-growth';

/** Every module this binary can run, in no particular order: `dependsOn` decides the start order. */
export const MODULES: ModuleDefinition[] = [
  identityModule,
  catalogModule,
  scanningModule,
  issuesModule,
  reportingModule,
  notificationsModule,
  gatewayModule,
];

const runtimeSchema = z
  .object({
    /** `all` (one process, embedded defaults) or a comma-separated list of module names. */
    TARGET: z.string().default('all'),
    BULWARK_DATA_DIR: z.string().default('./data'),
    /** Shared by every process of a deployment: signs the tokens services trust. */
    BULWARK_INTERNAL_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
    BULWARK_BIND_HOST: z.string().default('127.0.0.1'),
    KAFKA_BROKERS: env.list(),
    KAFKA_CLIENT_ID: z.string().default('bulwark'),
    KAFKA_REPLICATION_FACTOR: env.int(1, 1),
    /** Partitions of each topic at its creation (unset: each topic's declared count); at most one consumer per partition works. */
    KAFKA_PARTITIONS: z.coerce.number().int().min(1).optional(),
    /** A consumer silent for this long loses its partitions to the other replicas; also bounds a rebalance. */
    KAFKA_SESSION_TIMEOUT_MS: env.int(DEFAULT_SESSION_TIMEOUT_MS, 6000),
    /** Prefix of this deployment's topics and consumer groups, for clusters shared by several deployments. */
    KAFKA_NAMESPACE: z
      .string()
      .regex(/^[A-Za-z0-9._-]*$/, 'may contain only letters, digits, ".", "_" and "-"')
      .default(''),
    REDIS_URL: env.url(),
    /** Key prefix in Redis, so several deployments can share one server. */
    REDIS_PREFIX: z.string().default('bulwark:'),
    SHUTDOWN_TIMEOUT_MS: env.int(20000, 1000),
    /** Heap growth past the live set before V8 collects again, in percent; 0 = V8's own choice (see heap-growth.ts). */
    HEAP_GROWTH_PERCENT: env.int(100, 0),
    /**
     * A port of its own for `/metrics` (one per process, never the gateway's public port); unset =
     * `/metrics` is answered on every HTTP port of the process, next to `/healthz`.
     */
    METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  })
  .extend(tracingConfigSchema.shape);

/** Fixed ports of the scaled mode, so peers find each other without configuration on one host. */
const DEFAULT_PORTS: Record<ServiceName, { http: number; grpc: number }> = {
  identity: { http: 7101, grpc: 7201 },
  catalog: { http: 7102, grpc: 7202 },
  scanning: { http: 7103, grpc: 7203 },
  issues: { http: 7104, grpc: 7204 },
  reporting: { http: 7105, grpc: 7205 },
  notifications: { http: 7106, grpc: 7206 },
};

export interface Runtime {
  modules: Map<string, StartedModule>;
  bus: EventBus;
  cache: Cache;
  /** How long a graceful stop may take before the process exits anyway (SHUTDOWN_TIMEOUT_MS). */
  shutdownTimeoutMs: number;
  stop(): Promise<void>;
}

function selectModules(target: string): ModuleDefinition[] {
  if (target === 'all') return MODULES;
  const names = target
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !MODULES.some((m) => m.name === n));
  if (unknown.length > 0 || names.length === 0) {
    throw new ConfigError([
      `TARGET: unknown module(s) ${unknown.join(', ') || '(none)'}; use "all" or a list of ${MODULES.map((m) => m.name).join(', ')}`,
    ]);
  }
  return MODULES.filter((m) => names.includes(m.name));
}

/**
 * Every selected module's configuration, read before any module starts: one ConfigError names every bad
 * variable of every module, with the runtime's own `problems`.
 */
function readModuleConfigs(
  selected: ModuleDefinition[],
  environment: NodeJS.ProcessEnv,
  singleProcess: boolean,
  problems: string[],
): Map<string, unknown> {
  const readers = Object.fromEntries(
    selected.map((m) => [m.name, (e: NodeJS.ProcessEnv) => m.readConfig(e, { singleProcess })]),
  );
  try {
    const configs = readConfigs(environment, readers);
    if (problems.length > 0) throw new ConfigError(problems);
    return new Map(Object.entries(configs));
  } catch (err) {
    if (err instanceof ConfigError) throw new ConfigError([...new Set([...problems, ...err.problems])]);
    throw err;
  }
}

/** Dependencies first; a module whose dependency runs elsewhere simply reaches it over the network. */
function startOrder(selected: ModuleDefinition[]): ModuleDefinition[] {
  const order: ModuleDefinition[] = [];
  const visit = (m: ModuleDefinition) => {
    if (order.includes(m)) return;
    for (const dep of m.dependsOn) {
      const d = selected.find((s) => s.name === dep);
      if (d) visit(d);
    }
    order.push(m);
  };
  selected.forEach(visit);
  return order;
}

export async function startRuntime(environment: NodeJS.ProcessEnv = process.env): Promise<Runtime> {
  const log = createLogger('runtime');
  const cfg = loadConfig(runtimeSchema, environment);
  limitHeapGrowth(cfg.HEAP_GROWTH_PERCENT);
  const selected = selectModules(cfg.TARGET);
  const singleProcess = cfg.TARGET === 'all';
  const dataDir = path.resolve(cfg.BULWARK_DATA_DIR);
  const swept = sweepAbandonedUploads();
  if (swept > 0)
    log.warn('removed upload files left in the temporary folder by processes that are gone', { count: swept });

  const problems: string[] = [];
  if (!singleProcess) {
    if (cfg.KAFKA_BROKERS.length === 0)
      problems.push('KAFKA_BROKERS: required when TARGET is not "all" (processes share events through Kafka)');
    if (!cfg.REDIS_URL)
      problems.push(
        'REDIS_URL: required when TARGET is not "all" (gateways share rate limits and revocations through Redis)',
      );
    if (!cfg.BULWARK_INTERNAL_SECRET)
      problems.push('BULWARK_INTERNAL_SECRET: required when TARGET is not "all" (every process must share it)');
    for (const m of selected) {
      const key = `${m.name.toUpperCase()}_DATABASE_URL`;
      if ((SERVICE_NAMES as string[]).includes(m.name) && !environment[key])
        problems.push(`${key}: required when ${m.name} runs as its own process`);
    }
  }
  const configs = readModuleConfigs(selected, environment, singleProcess, problems);

  const secret = cfg.BULWARK_INTERNAL_SECRET ?? loadOrCreateSecret(dataDir, 'internal');
  const bus: EventBus =
    cfg.KAFKA_BROKERS.length > 0
      ? new KafkaBus({
          brokers: cfg.KAFKA_BROKERS,
          clientId: cfg.KAFKA_CLIENT_ID,
          topics: TOPIC_SPECS,
          replicationFactor: cfg.KAFKA_REPLICATION_FACTOR,
          namespace: cfg.KAFKA_NAMESPACE,
          partitions: cfg.KAFKA_PARTITIONS,
          sessionTimeoutMs: cfg.KAFKA_SESSION_TIMEOUT_MS,
        })
      : new InProcessBus();
  const cache = await openCache(cfg.REDIS_URL, cfg.REDIS_PREFIX);
  const tracing = startTracing(cfg);
  const started = new Map<string, StartedModule>();
  /** Of each module whose start began, in start order: a module that failed halfway is stopped too. */
  const lifecycles: ModuleLifecycle[] = [];

  const shared: Omit<ModuleContext, 'onStop' | 'every'> = {
    singleProcess,
    dataDir,
    bindHost: cfg.BULWARK_BIND_HOST,
    bus,
    cache,
    metricsOnHttpPorts: cfg.METRICS_PORT === undefined,
    internalAuth: (self) => new InternalAuth(secret, self),
    listenPort(module, kind) {
      const configured = environment[`${module.toUpperCase()}_${kind.toUpperCase()}_PORT`];
      if (configured) return Number(configured);
      const defaults = DEFAULT_PORTS[module as ServiceName];
      return singleProcess || !defaults ? 0 : defaults[kind];
    },
    peer(service) {
      const local = started.get(service);
      if (local?.httpUrl && local.grpcAddress) return { httpUrl: local.httpUrl, grpcAddress: local.grpcAddress };
      const upper = service.toUpperCase();
      const defaults = DEFAULT_PORTS[service];
      return {
        httpUrl: environment[`${upper}_HTTP_URL`] ?? `http://127.0.0.1:${defaults.http}`,
        grpcAddress: environment[`${upper}_GRPC_ADDR`] ?? `127.0.0.1:${defaults.grpc}`,
      };
    },
  };

  const order = startOrder(selected);
  let metricsServer: MetricsServer | undefined;
  const stopAll = async () => {
    await metricsServer?.close();
    for (const lifecycle of lifecycles.splice(0).reverse()) await lifecycle.stop();
    started.clear();
    await bus.close().catch(() => undefined);
    await cache.close().catch(() => undefined);
    await tracing.stop().catch((err: Error) => log.warn('flushing trace spans failed', { error: err.message }));
  };

  try {
    for (const m of order) {
      const lifecycle = new ModuleLifecycle(createLogger(m.name));
      lifecycles.push(lifecycle);
      const ctx: ModuleContext = {
        ...shared,
        onStop: (step) => lifecycle.onStop(step),
        every: (name, everyMs, task) => lifecycle.every(name, everyMs, task),
      };
      started.set(m.name, await m.start(ctx, configs.get(m.name)));
    }
    await bus.start();
    if (cfg.METRICS_PORT !== undefined) metricsServer = await serveMetrics(cfg.BULWARK_BIND_HOST, cfg.METRICS_PORT);
  } catch (err) {
    await stopAll();
    throw err;
  }
  log.info('bulwark started', {
    target: cfg.TARGET,
    modules: order.map((m) => m.name),
    bus: bus.kind,
    cache: cache.kind,
    dataDir: singleProcess ? dataDir : undefined,
    tracesTo: tracing.endpoint,
    metricsPort: cfg.METRICS_PORT,
  });
  return { modules: started, bus, cache, shutdownTimeoutMs: cfg.SHUTDOWN_TIMEOUT_MS, stop: stopAll };
}
