import * as grpc from '@grpc/grpc-js';
import { HealthImplementation } from 'grpc-health-check';
import CircuitBreaker from 'opossum';
import { InternalAuth } from '../auth';
import { runWithContext, requestIdFrom, currentRequestId, REQUEST_ID_HEADER } from '../context';
import { assertNoOpenTransaction } from '../db/open-transaction';
import { AppError, errorMessage } from '../errors';
import { metadataCarrier, observedCall } from './observed-call';
import { fromServiceError, toServiceError } from './service-errors';
import { createLogger } from '../logging';
import { extractTrace, injectTrace, Span, SpanKind, startSpan } from '../observability/tracing';

/** The shape ts-proto generates for one method of a service definition. */
interface MethodDef {
  path: string;
  requestStream: boolean;
  responseStream: boolean;
  requestSerialize: (value: never) => Buffer;
  requestDeserialize: (bytes: Buffer) => unknown;
  responseSerialize: (value: never) => Buffer;
  responseDeserialize: (bytes: Buffer) => unknown;
}
export type ServiceDef = Record<string, MethodDef>;

type Req<M> = M extends { requestDeserialize(b: Buffer): infer R } ? R : never;
type Res<M> = M extends { responseDeserialize(b: Buffer): infer R } ? R : never;

export interface CallContext {
  /** The calling service, from its verified internal token. */
  caller: string;
  metadata: grpc.Metadata;
}

export type ServiceImpl<D extends ServiceDef> = {
  [K in keyof D]: D[K]['responseStream'] extends true
    ? (req: Req<D[K]>, ctx: CallContext) => AsyncIterable<Res<D[K]>>
    : D[K]['requestStream'] extends true
      ? (reqs: AsyncIterable<Req<D[K]>>, ctx: CallContext) => Promise<Res<D[K]>>
      : (req: Req<D[K]>, ctx: CallContext) => Promise<Res<D[K]>>;
};

export type ServiceClient<D extends ServiceDef> = {
  [K in keyof D]: D[K]['responseStream'] extends true
    ? (req: Req<D[K]>) => AsyncIterable<Res<D[K]>>
    : D[K]['requestStream'] extends true
      ? (reqs: AsyncIterable<Req<D[K]>>) => Promise<Res<D[K]>>
      : (req: Req<D[K]>) => Promise<Res<D[K]>>;
};

const AUTH_METADATA = 'authorization';

/** A gRPC server whose handlers run with the caller's request id and refuse unauthenticated callers. */
export class GrpcServer {
  private readonly server = new grpc.Server();
  private readonly health = new HealthImplementation({ '': 'SERVING' });
  private readonly log;

  constructor(
    private readonly auth: InternalAuth,
    private readonly service: string,
  ) {
    this.log = createLogger(`${service}.grpc`);
    this.health.addToServer(this.server);
  }

  add<D extends ServiceDef>(def: D, name: string, impl: ServiceImpl<D>): void {
    const handlers: grpc.UntypedServiceImplementation = {};
    for (const [method, md] of Object.entries(def)) {
      const fn = (impl as Record<string, (req: unknown, ctx: CallContext) => unknown>)[method];
      handlers[method] = md.responseStream
        ? this.streamHandler(md.path, fn)
        : md.requestStream
          ? this.requestStreamHandler(md.path, fn)
          : this.unaryHandler(md.path, fn);
    }
    // grpc-js refuses a service without methods; such a service is still reported by health.
    if (Object.keys(def).length > 0) this.server.addService(def as unknown as grpc.ServiceDefinition, handlers);
    this.health.setStatus(name, 'SERVING');
  }

  private context(call: { metadata: grpc.Metadata }): { requestId: string; ctx: CallContext } {
    const requestId = requestIdFrom(call.metadata.get(REQUEST_ID_HEADER)[0]);
    const bearer = String(call.metadata.get(AUTH_METADATA)[0] ?? '').replace(/^Bearer /, '');
    const claims = this.auth.verify(bearer || undefined);
    return { requestId, ctx: { caller: claims.svc, metadata: call.metadata } };
  }

  /** A server span for the call, child of the caller's span carried in the metadata. */
  private observe(call: { metadata: grpc.Metadata }, path: string) {
    const span = startSpan(path, {
      kind: SpanKind.SERVER,
      component: this.service,
      parent: extractTrace(metadataCarrier(call.metadata)),
      attributes: { 'rpc.system': 'grpc', 'rpc.method': path },
    });
    return observedCall('server', path.replace(/^\//, ''), span);
  }

  private unaryHandler(
    path: string,
    fn: (req: unknown, ctx: CallContext) => unknown,
  ): grpc.handleUnaryCall<unknown, unknown> {
    return (call, callback) => this.answer(call, path, (ctx) => fn(call.request, ctx) as Promise<unknown>, callback);
  }

  /** A call whose request is a stream (read with back-pressure as the handler iterates it) and whose answer is one message. */
  private requestStreamHandler(
    path: string,
    fn: (reqs: AsyncIterable<unknown>, ctx: CallContext) => unknown,
  ): grpc.handleClientStreamingCall<unknown, unknown> {
    return (call, callback) => this.answer(call, path, (ctx) => fn(call, ctx) as Promise<unknown>, callback);
  }

  private answer(
    call: { metadata: grpc.Metadata },
    path: string,
    run: (ctx: CallContext) => Promise<unknown>,
    callback: grpc.sendUnaryData<unknown>,
  ): void {
    let requestId: string | undefined;
    const observed = this.observe(call, path);
    void (async () => {
      const c = this.context(call);
      requestId = c.requestId;
      return runWithContext({ requestId, span: observed.span }, () => run(c.ctx));
    })()
      .then(
        (res) => {
          observed.end(grpc.status.OK);
          callback(null, res);
        },
        (err) => {
          this.logFailure('grpc handler failed', path, err, requestId);
          const serviceError = toServiceError(err);
          observed.end(serviceError.code ?? grpc.status.UNKNOWN);
          callback(serviceError);
        },
      )
      // The answer itself failed (a closed call): nothing is left to tell the caller, only the log.
      .catch((err) => this.log.error('grpc answer failed', { path, error: errorMessage(err), requestId }));
  }

  private streamHandler(
    path: string,
    fn: (req: unknown, ctx: CallContext) => unknown,
  ): grpc.handleServerStreamingCall<unknown, unknown> {
    return (call) => {
      const observed = this.observe(call, path);
      let requestId: string | undefined;
      void (async () => {
        const c = this.context(call);
        requestId = c.requestId;
        await runWithContext({ requestId, span: observed.span }, async () => {
          for await (const item of fn(call.request, c.ctx) as AsyncIterable<unknown>) {
            if (call.cancelled) return;
            if (!call.write(item)) await new Promise((resolve) => call.once('drain', resolve));
          }
        });
      })()
        .then(
          () => {
            observed.end(call.cancelled ? grpc.status.CANCELLED : grpc.status.OK);
            call.end();
          },
          (err) => {
            this.logFailure('grpc stream failed', path, err, requestId);
            const serviceError = toServiceError(err);
            observed.end(serviceError.code ?? grpc.status.UNKNOWN);
            call.destroy(Object.assign(new Error(errorMessage(err)), serviceError));
          },
        )
        .catch((err) => this.log.error('grpc stream end failed', { path, error: errorMessage(err), requestId }));
    };
  }

  /** Business errors are the caller's to read; anything else is a fault worth a log line. */
  private logFailure(message: string, path: string, err: unknown, requestId: string | undefined): void {
    if (err instanceof AppError) return;
    this.log.error(message, {
      path,
      error: errorMessage(err),
      stack: err instanceof Error ? err.stack : undefined,
      requestId,
    });
  }

  /** Binds host:port (0 picks a free port) and returns the bound port. */
  listen(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.bindAsync(`${host}:${port}`, grpc.ServerCredentials.createInsecure(), (err, bound) =>
        err ? reject(err) : resolve(bound),
      );
    });
  }

  /** Stops taking calls and lets running ones finish, up to `graceMs`. */
  async stop(graceMs = 5000): Promise<void> {
    this.health.setStatus('', 'NOT_SERVING');
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.server.forceShutdown();
        resolve();
      }, graceMs);
      this.server.tryShutdown(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}

export interface GrpcClientOptions {
  /** Per-call deadline. */
  deadlineMs?: number;
  /** Breaker: share of failures in the rolling window that opens it, and how long it stays open. */
  errorThresholdPercentage?: number;
  resetTimeoutMs?: number;
}

export interface GrpcClientHandle<D extends ServiceDef> {
  client: ServiceClient<D>;
  /** Closes the channel; callers take it apart from the handle. */
  close: () => void;
}

/**
 * A promise client for one peer: every call carries this service's internal token and the request
 * id, has a deadline, and goes through one circuit breaker per peer so a dead peer fails fast.
 * Business errors (not found, invalid, ...) arrive as the peer's AppError and do not trip the breaker.
 */
export function createGrpcClient<D extends ServiceDef>(
  def: D,
  target: string,
  address: string,
  auth: InternalAuth,
  opts: GrpcClientOptions = {},
): GrpcClientHandle<D> {
  const channel = new grpc.Client(address, grpc.credentials.createInsecure());
  const deadlineMs = opts.deadlineMs ?? 5000;
  const breaker = new CircuitBreaker((call: () => Promise<unknown>) => call(), {
    timeout: false,
    errorThresholdPercentage: opts.errorThresholdPercentage ?? 50,
    resetTimeout: opts.resetTimeoutMs ?? 5000,
    volumeThreshold: 5,
    errorFilter: (err: unknown) => err instanceof AppError && err.code !== 'unavailable' && err.code !== 'internal',
  });
  const metadata = (span: Span) => {
    const md = new grpc.Metadata();
    md.set(AUTH_METADATA, `Bearer ${auth.forService()}`);
    const requestId = currentRequestId();
    if (requestId) md.set(REQUEST_ID_HEADER, requestId);
    const trace: Record<string, string> = {};
    injectTrace(span, trace);
    for (const [key, value] of Object.entries(trace)) md.set(key, value);
    return md;
  };
  const observe = (path: string) =>
    observedCall(
      'client',
      path.replace(/^\//, ''),
      startSpan(path, {
        kind: SpanKind.CLIENT,
        component: auth.self,
        attributes: { 'rpc.system': 'grpc', 'rpc.method': path, 'server.address': target },
      }),
      target,
    );
  const fire = async <T>(call: () => Promise<T>): Promise<T> => {
    try {
      return (await breaker.fire(call)) as T;
    } catch (err) {
      if (err instanceof AppError) throw err;
      // opossum rejects with its own error while open.
      throw new AppError('unavailable', `${target} is unavailable`);
    }
  };

  const client: Record<string, unknown> = {};
  for (const [method, md] of Object.entries(def)) {
    const serialize = md.requestSerialize as (v: unknown) => Buffer;
    const deserialize = md.responseDeserialize;
    if (md.requestStream && !md.responseStream) {
      client[method] = (reqs: AsyncIterable<unknown>) => {
        assertNoOpenTransaction(`${target}${md.path}`);
        const observed = observe(md.path);
        let code = grpc.status.UNKNOWN;
        // Like the findings stream, no deadline: a large report's stream takes as long as it takes.
        return new Promise((resolve, reject) => {
          const call = channel.makeClientStreamRequest(
            md.path,
            serialize,
            deserialize,
            metadata(observed.span),
            {},
            (err, res) => {
              code = err ? err.code : grpc.status.OK;
              if (err) reject(fromServiceError(err, target));
              else resolve(res);
            },
          );
          void (async () => {
            for await (const item of reqs) {
              if (!call.write(item)) await new Promise((drained) => call.once('drain', drained));
            }
            call.end();
          })().catch((err: unknown) => {
            // The source failed (a report the parser refuses): the peer drops what it received.
            call.cancel();
            code = grpc.status.CANCELLED;
            reject(err instanceof Error ? err : new Error(errorMessage(err)));
          });
        }).finally(() => observed.end(code));
      };
    } else if (md.responseStream) {
      client[method] = (req: unknown) => {
        assertNoOpenTransaction(`${target}${md.path}`);
        const observed = observe(md.path);
        const stream = channel.makeServerStreamRequest(
          md.path,
          serialize,
          deserialize,
          req,
          metadata(observed.span),
          {},
        );
        return (async function* () {
          // A consumer that stops reading early leaves the call cancelled.
          let code = grpc.status.CANCELLED;
          try {
            for await (const item of stream) yield item;
            code = grpc.status.OK;
          } catch (err) {
            code = (err as grpc.ServiceError).code ?? grpc.status.UNKNOWN;
            throw fromServiceError(err as grpc.ServiceError, target);
          } finally {
            observed.end(code);
          }
        })();
      };
    } else {
      client[method] = (req: unknown) => {
        assertNoOpenTransaction(`${target}${md.path}`);
        const observed = observe(md.path);
        // Stays UNAVAILABLE when the open breaker refuses the call before it is made.
        let code = grpc.status.UNAVAILABLE;
        return fire(
          () =>
            new Promise((resolve, reject) => {
              channel.makeUnaryRequest(
                md.path,
                serialize,
                deserialize,
                req,
                metadata(observed.span),
                { deadline: Date.now() + deadlineMs },
                (err, res) => {
                  code = err ? err.code : grpc.status.OK;
                  if (err) reject(fromServiceError(err, target));
                  else resolve(res);
                },
              );
            }),
        ).finally(() => observed.end(code));
      };
    }
  }
  return {
    client: client as ServiceClient<D>,
    close: () => {
      breaker.shutdown();
      channel.close();
    },
  };
}
