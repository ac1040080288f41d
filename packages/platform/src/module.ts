import type { Cache } from './cache/cache';
import type { EventBus } from './bus/types';
import type { InternalAuth } from './auth';

export type ServiceName = 'identity' | 'catalog' | 'scanning' | 'issues' | 'reporting' | 'notifications';

export const SERVICE_NAMES: ServiceName[] = ['identity', 'catalog', 'scanning', 'issues', 'reporting', 'notifications'];

/** What the composition root hands a module: shared adapters and where its peers are. */
export interface ModuleContext {
  /** True when every module runs in this one process on embedded defaults. */
  readonly singleProcess: boolean;
  readonly dataDir: string;
  readonly bindHost: string;
  readonly bus: EventBus;
  readonly cache: Cache;
  /** True when `/metrics` is answered on each HTTP port; false when the process serves it on METRICS_PORT. */
  readonly metricsOnHttpPorts: boolean;
  internalAuth(self: string): InternalAuth;
  /** Port this module should listen on for `kind` (0 = any free port). */
  listenPort(module: string, kind: 'http' | 'grpc'): number;
  /** Where a peer service answers, whether it runs in this process or elsewhere. */
  peer(service: ServiceName): { httpUrl: string; grpcAddress: string };
  /** Registers what to undo at stop: steps run in reverse order of registration, each awaited (see ModuleLifecycle). */
  onStop(step: () => unknown): void;
  /** Runs `task` every `everyMs` from now on, never two runs at once; stopped with the module. */
  every(name: string, everyMs: number, task: () => Promise<unknown>): void;
}

export interface StartedModule {
  httpUrl?: string;
  grpcAddress?: string;
  /** Dependencies this module needs to serve; used by `/readyz`. */
  ready?(): Promise<Record<string, string>>;
}

/**
 * One unit the composition root can start, alone or with others (Loki's targets): its name, what it
 * needs started first, how to read its configuration, and how to start it. The composition root reads
 * every selected module's configuration before it starts any, so one bad variable stops the whole
 * start with every problem named; a module stops through what it registered with `ctx.onStop`.
 */
export interface ModuleDefinition<C = unknown> {
  name: string;
  dependsOn: string[];
  /** Reads and checks the module's variables; throws a ConfigError naming each bad one (see `readConfigs`). */
  readConfig(env: NodeJS.ProcessEnv, mode: { singleProcess: boolean }): C;
  start(ctx: ModuleContext, config: C): Promise<StartedModule>;
}

/** A module whose configuration's type is inferred from its `readConfig`. */
export function defineModule<C>(definition: ModuleDefinition<C>): ModuleDefinition<C> {
  return definition;
}
