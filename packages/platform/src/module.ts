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
  readonly env: NodeJS.ProcessEnv;
  /** True when `/metrics` is answered on each HTTP port; false when the process serves it on METRICS_PORT. */
  readonly metricsOnHttpPorts: boolean;
  internalAuth(self: string): InternalAuth;
  /** Port this module should listen on for `kind` (0 = any free port). */
  listenPort(module: string, kind: 'http' | 'grpc'): number;
  /** Where a peer service answers, whether it runs in this process or elsewhere. */
  peer(service: ServiceName): { httpUrl: string; grpcAddress: string };
}

export interface StartedModule {
  httpUrl?: string;
  grpcAddress?: string;
  /** Dependencies this module needs to serve; used by `/readyz`. */
  ready?(): Promise<Record<string, string>>;
  stop(): Promise<void>;
}

/**
 * One unit the composition root can start, alone or with others (Loki's targets): its name, what it
 * needs started first, and how to start it.
 */
export interface ModuleDefinition {
  name: string;
  dependsOn: string[];
  start(ctx: ModuleContext): Promise<StartedModule>;
}
