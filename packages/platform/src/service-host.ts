import { z } from 'zod';
import { InternalAuth } from './auth';
import { env as platformEnv, loadConfig, readConfigs } from './config';
import { handleOnce, InboxEffect, InboxWrite } from './bus/inbox';
import { AppError, errorMessage } from './errors';
import { ERROR_RECORDED, ErrorRecorder, OperationalError, recordError } from './errors-log';
import { OutboxRelay } from './bus/outbox';
import type { EventEnvelope, Subscription } from './bus/types';
import { Db, Migration, openDatabase, pingDatabase, Queryable, Trx } from './db/database';
import { GrpcServer } from './grpc/grpc';
import {
  bodyLimitSetting,
  createServiceApp,
  listen,
  RunningHttpServer,
  ServerErrorAnswer,
  SERVICE_MAX_HEADER_BYTES,
} from './http/server';
import type { RouteHandlers, RouteSpec } from './http/routes';
import { createLogger, Logger } from './logging';
import { observeServiceStores } from './observability/service-metrics';
import type { ModuleContext, ServiceName, StartedModule } from './module';
import type { ServiceData } from './service-data';
import { readOutboundPolicy } from './outbound/policy';
import { readMasterKeys } from './crypto';

/** What the host of one service reads from the environment, before anything starts (`readServiceConfig`). */
export interface ServiceHostConfig {
  name: ServiceName;
  /** Real PostgreSQL URL (`<SERVICE>_DATABASE_URL`); absent = embedded PostgreSQL under the data directory. */
  databaseUrl?: string;
  bodyLimitBytes: number;
}

type Reader = (env: NodeJS.ProcessEnv) => unknown;

/** The host's variables alone, for a service that reads no outbound policy. */
export function readServiceHostConfig(env: NodeJS.ProcessEnv, name: ServiceName): ServiceHostConfig {
  const urlKey = `${name.toUpperCase()}_DATABASE_URL`;
  const config = readConfigs(env, {
    databaseUrl: (e) => loadConfig(z.object({ [urlKey]: platformEnv.url() }), e)[urlKey],
    bodyLimitBytes: (e) => loadConfig(z.object({ BODY_LIMIT_BYTES: bodyLimitSetting() }), e).BODY_LIMIT_BYTES,
  });
  return { name, ...config };
}

/**
 * A service module's configuration: its own variables (`config`), the outbound policy, its host's
 * settings, the master keys of its SecretBox and any `more` it needs, with every bad variable of them
 * all in one ConfigError.
 */
export function readServiceConfig<C, M extends Record<string, Reader> = Record<never, Reader>>(
  env: NodeJS.ProcessEnv,
  mode: { singleProcess: boolean },
  name: ServiceName,
  own: (env: NodeJS.ProcessEnv) => C,
  more?: M,
) {
  return readConfigs(env, {
    ...more,
    config: own,
    outbound: readOutboundPolicy,
    host: (e: NodeJS.ProcessEnv) => readServiceHostConfig(e, name),
    masterKeys: (e: NodeJS.ProcessEnv) => readMasterKeys(e, mode, name),
  });
}

/** A route's 5xx of one code is recorded at most this often per process. */
const SERVER_ERROR_RECORD_EVERY_MS = 10_000;

/**
 * The parts every service has, wired once: its own database with outbox and inbox, the relay, a gRPC
 * server with health, consumers that handle each event once, and an HTTP app behind the gateway.
 * A service's module.ts adds only what is its own, and hands its application classes the narrow ports
 * they use (`ServiceData`, `ErrorRecorder`, the logger, `auth` for the clients it builds), never the host.
 */
export class ServiceHost implements ServiceData, ErrorRecorder {
  readonly grpc: GrpcServer;
  readonly auth: InternalAuth;
  readonly relay: OutboxRelay;
  readonly log: Logger;
  private readonly subscriptions: Subscription[] = [];
  /** When each route and code's 5xx was last recorded. */
  private readonly lastServerErrors = new Map<string, number>();

  private constructor(
    readonly ctx: ModuleContext,
    readonly name: ServiceName,
    readonly db: Db,
    private readonly bodyLimitBytes: number,
  ) {
    this.log = createLogger(name);
    this.auth = ctx.internalAuth(name);
    this.grpc = new GrpcServer(this.auth, name);
    this.relay = new OutboxRelay(db, ctx.bus, { service: name });
  }

  static async open(ctx: ModuleContext, config: ServiceHostConfig, migrations: Migration[]): Promise<ServiceHost> {
    const db = await openDatabase({ service: config.name, url: config.databaseUrl, dataDir: ctx.dataDir, migrations });
    const host = new ServiceHost(ctx, config.name, db, config.bodyLimitBytes);
    // Registered first, so it runs last: every client and task of the module is stopped before its database closes.
    ctx.onStop(async () => {
      await host.stopSubscriptions();
      await db.destroy();
      host.log.info('service stopped');
    });
    return host;
  }

  private async stopSubscriptions(): Promise<void> {
    for (const s of this.subscriptions.splice(0)) await s.stop();
  }

  /**
   * Runs `effect` once per event id: its reads from other services first, then its writes in one
   * transaction with the inbox record (`handleOnce`). An event given up after its last attempt is
   * recorded in the error log.
   */
  async consume<R>(consumer: string, topics: string[], effect: InboxEffect<R> | InboxWrite): Promise<void> {
    const group = `${this.name}.${consumer}`;
    this.subscriptions.push(
      await this.ctx.bus.subscribe(group, topics, handleOnce(this.db, group, effect), {
        onDeadLetter: (event, err, attempts) => this.deadLettered(group, event, err, attempts),
      }),
    );
  }

  /**
   * Records an operational error in the error log (see `recordError`): in `trx` when given, so it
   * exists exactly when the failure it describes is committed; else at once, where a database that
   * cannot take the record is logged, not thrown, so the caller's own failure handling goes on.
   */
  async recordError(e: OperationalError, trx?: Queryable): Promise<void> {
    if (trx) {
      await recordError(trx, this.name, e);
      return;
    }
    try {
      await recordError(this.db, this.name, e);
      this.relay.nudge();
    } catch (err) {
      this.log.error('an operational error could not be recorded in the error log', {
        code: e.code,
        error: errorMessage(err),
      });
    }
  }

  private async deadLettered(group: string, event: EventEnvelope, err: unknown, attempts: number): Promise<void> {
    // The error log's own consumer failing must not feed itself an endless chain of records.
    if (event.type === ERROR_RECORDED) return;
    // Only an AppError's text is written for callers; anything else may hold SQL or internals.
    const cause = err instanceof AppError ? err.message : `see the ${this.name} service's log`;
    await this.recordError({
      code: 'event.dead_lettered',
      level: 'critical',
      subject: event.id,
      message: `Consumer ${group} gave up event ${event.type} (${event.id}) of ${event.topic} after ${attempts} attempts: ${cause}`,
      message_ru: `Обработчик ${group} отказался от события ${event.type} (${event.id}) из ${event.topic} после попыток: ${attempts}; причина: ${err instanceof AppError ? err.message : `см. журнал сервиса ${this.name}`}`,
      details: { group, topic: event.topic, type: event.type, attempts },
    });
  }

  private serverError(answer: ServerErrorAnswer): void {
    // A dependency that is down makes every request of a route fail alike (and some routes are
    // public): one record per route and code every few seconds tells the administrator as much.
    const key = `${answer.error.code} ${answer.route}`;
    const now = Date.now();
    if (now - (this.lastServerErrors.get(key) ?? -Infinity) < SERVER_ERROR_RECORD_EVERY_MS) return;
    this.lastServerErrors.set(key, now);
    const internal = answer.error.code === 'internal';
    const where = answer.route ?? 'a request';
    void this.recordError({
      code: `http.${answer.error.code}`,
      level: internal ? 'error' : 'warning',
      route: answer.route,
      request_id: answer.requestId,
      // An internal error's text stays in the service's log under the record's request id; an AppError's is
      // written for callers. The request id may be the caller's own (X-Request-Id), so it stays out of the text.
      message: internal
        ? `Internal error answering ${where}; the ${this.name} service's log has the details under this record's request id`
        : `${answer.status} answering ${where}: ${answer.error.message}`,
      message_ru: internal
        ? `Внутренняя ошибка при ответе на ${where}; подробности в журнале сервиса ${this.name} по идентификатору запроса этой записи`
        : `Ответ ${answer.status} на ${where}: ${answer.error.message}`,
      details: { status: answer.status },
    });
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
      bodyLimitBytes: this.bodyLimitBytes,
      exposeMetrics: this.ctx.metricsOnHttpPorts,
      onServerError: (answer) => this.serverError(answer),
    });
    const unobserve = observeServiceStores(this.name, this.db);
    const grpcPort = await this.grpc.listen(this.ctx.bindHost, this.ctx.listenPort(this.name, 'grpc'));
    const http: RunningHttpServer = await listen(app, this.ctx.bindHost, this.ctx.listenPort(this.name, 'http'), {
      maxHeaderBytes: SERVICE_MAX_HEADER_BYTES,
    });
    this.relay.start();
    const grpcHost = this.ctx.bindHost === '0.0.0.0' ? '127.0.0.1' : this.ctx.bindHost;
    this.log.info('service started', { http: http.url, grpc: `${grpcHost}:${grpcPort}` });
    // One step, in this order: no request or event may arrive once the relay and the metrics are stopped.
    this.ctx.onStop(async () => {
      await http.close();
      await this.grpc.stop();
      await this.stopSubscriptions();
      await this.relay.stop();
      unobserve();
    });
    return { httpUrl: http.url, grpcAddress: `${grpcHost}:${grpcPort}`, ready };
  }
}
