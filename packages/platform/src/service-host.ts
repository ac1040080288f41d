import { z } from 'zod';
import { InternalAuth } from './auth';
import { loadConfig } from './config';
import { handleOnce } from './bus/inbox';
import { OutboxRelay } from './bus/outbox';
import type { EventEnvelope, Subscription } from './bus/types';
import { Db, Migration, openDatabase, pingDatabase, Trx } from './db/database';
import { GrpcServer } from './grpc/grpc';
import { bodyLimitSetting, createServiceApp, listen, RunningHttpServer, SERVICE_MAX_HEADER_BYTES } from './http/server';
import type { RouteHandlers, RouteSpec } from './http/routes';
import { createLogger, Logger } from './logging';
import { observeServiceStores } from './observability/service-metrics';
import type { ModuleContext, ServiceName, StartedModule } from './module';

export interface ServiceHostOptions {
  name: ServiceName;
  migrations: Migration[];
  /** Real PostgreSQL URL; absent = embedded PostgreSQL under the data directory. */
  databaseUrl?: string;
}

const hostConfigSchema = z.object({ BODY_LIMIT_BYTES: bodyLimitSetting() });

/**
 * The parts every service has, wired once: its own database with outbox and inbox, the relay, a gRPC
 * server with health, consumers that handle each event once, and an HTTP app behind the gateway.
 * A service's module.ts adds only what is its own.
 */
export class ServiceHost {
  readonly grpc: GrpcServer;
  readonly auth: InternalAuth;
  readonly relay: OutboxRelay;
  readonly log: Logger;
  private readonly subscriptions: Subscription[] = [];

  private constructor(readonly ctx: ModuleContext, readonly name: ServiceName, readonly db: Db) {
    this.log = createLogger(name);
    this.auth = ctx.internalAuth(name);
    this.grpc = new GrpcServer(this.auth, name);
    this.relay = new OutboxRelay(db, ctx.bus, { service: name });
  }

  static async open(ctx: ModuleContext, opts: ServiceHostOptions): Promise<ServiceHost> {
    const db = await openDatabase({ service: opts.name, url: opts.databaseUrl, dataDir: ctx.dataDir, migrations: opts.migrations });
    return new ServiceHost(ctx, opts.name, db);
  }

  /** Runs `effect` once per event id, in one transaction with the inbox record. */
  async consume(consumer: string, topics: string[], effect: (event: EventEnvelope, trx: Trx) => Promise<void>): Promise<void> {
    const group = `${this.name}.${consumer}`;
    this.subscriptions.push(await this.ctx.bus.subscribe(group, topics, handleOnce(this.db, group, effect)));
  }

  /** Commits `work` and wakes the relay for the events it enqueued. */
  async transaction<T>(work: (trx: Trx) => Promise<T>): Promise<T> {
    const result = await this.db.transaction(work);
    this.relay.nudge();
    return result;
  }

  async serve(routes: RouteSpec[], handlers: RouteHandlers): Promise<StartedModule> {
    const ready = async () => {
      await pingDatabase(this.db);
      await this.ctx.bus.ping();
      return { database: 'ok', bus: this.ctx.bus.kind };
    };
    const app = createServiceApp({
      service: this.name,
      routes,
      handlers,
      internalAuth: this.auth,
      readiness: ready,
      bodyLimitBytes: loadConfig(hostConfigSchema, this.ctx.env).BODY_LIMIT_BYTES,
      exposeMetrics: this.ctx.metricsOnHttpPorts,
    });
    const unobserve = observeServiceStores(this.name, this.db);
    const grpcPort = await this.grpc.listen(this.ctx.bindHost, this.ctx.listenPort(this.name, 'grpc'));
    const http: RunningHttpServer = await listen(app, this.ctx.bindHost, this.ctx.listenPort(this.name, 'http'), { maxHeaderBytes: SERVICE_MAX_HEADER_BYTES });
    this.relay.start();
    const grpcHost = this.ctx.bindHost === '0.0.0.0' ? '127.0.0.1' : this.ctx.bindHost;
    this.log.info('service started', { http: http.url, grpc: `${grpcHost}:${grpcPort}` });
    return {
      httpUrl: http.url,
      grpcAddress: `${grpcHost}:${grpcPort}`,
      ready,
      stop: async () => {
        await http.close();
        await this.grpc.stop();
        for (const s of this.subscriptions.splice(0)) await s.stop();
        await this.relay.stop();
        unobserve();
        await this.db.destroy();
        this.log.info('service stopped');
      },
    };
  }
}
