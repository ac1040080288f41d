import http, { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable, type Duplex } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import express, { ErrorRequestHandler, Request, RequestHandler } from 'express';
import { CLIENT_IP_HEADER, InternalAuth, INTERNAL_AUTH_HEADER, Principal, VIA_HEADER } from '../auth';
import { runWithContext, requestIdFrom, REQUEST_ID_HEADER, currentRequestId } from '../context';
import { AppError, errorMessage, toAppError } from '../errors';
import { isRecorded } from '../errors-log';
import { env } from '../config';
import { createLogger, Logger } from '../logging';
import { expressPath, HandlerInput, HttpResponse, RouteHandlers, RouteSpec } from './routes';
import { parseOrThrow } from './validation';
import { clientRefusal, unparsableRequest } from './client-errors';
import { requestBytes } from './request-bytes';
import { receiveUpload, removeUpload } from './upload';
import { observeHttp } from '../observability/http';
import { assertRouteScope } from '../project-scope';

declare module 'express-serve-static-core' {
  interface Request {
    requestId: string;
    principal?: Principal;
  }
}

/**
 * Gives every request an id (the caller's when it is sane) and runs the rest inside its context,
 * with the span observeHttp started for it.
 */
export function requestContext(): RequestHandler {
  return (req, res, next) => {
    const requestId = requestIdFrom(req.header(REQUEST_ID_HEADER));
    req.requestId = requestId;
    res.setHeader(REQUEST_ID_HEADER, requestId);
    runWithContext({ requestId, span: req.span }, next);
  };
}

export function accessLog(log: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      log.log(res.statusCode >= 500 ? 'error' : 'info', 'http request', {
        method: req.method,
        path: req.path,
        status: res.statusCode,
        durationMs: Math.round(ms * 10) / 10,
        requestId: req.requestId,
        user: req.principal?.username,
      });
    });
    next();
  };
}

export function sendError(res: express.Response, err: AppError): void {
  for (const [k, v] of Object.entries(err.headers)) res.setHeader(k, v);
  res.status(err.httpStatus).json(err.toBody());
}

/** A 5xx a service answered, as its error log records it: no message of an internal error, no stack. */
export interface ServerErrorAnswer {
  status: number;
  error: AppError;
  /** `METHOD /api/v1/path/{param}`: the route table's path, not the request's (ids stay out of the log's filters). */
  route: string | undefined;
  requestId: string | undefined;
}

/** Where the route table's path of the request being answered is kept for the error handler. */
const ROUTE_LOCAL = 'routeTemplate';

/**
 * Maps anything thrown to the one error body; internals are logged, never sent. A request's own
 * fault that a framework layer raised (an undecodable path, a body cut short or too large) is the
 * caller's error, never an internal one. `onServerError` hears of each 5xx answer (unless its cause
 * was recorded already), for the service's error log.
 */
export function errorHandler(log: Logger, onServerError?: (answer: ServerErrorAnswer) => void): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const refusal = clientRefusal(err);
    const appError = refusal?.error ?? toAppError(err);
    if (refusal?.warn) {
      log.warn('request refused', {
        reason: appError.message,
        method: req.method,
        path: req.path,
        requestId: currentRequestId(),
      });
    }
    if (appError.code === 'internal') {
      log.error('request failed', {
        error: errorMessage(err),
        stack: err instanceof Error ? err.stack : undefined,
        method: req.method,
        path: req.path,
        requestId: currentRequestId(),
      });
    }
    if (res.headersSent) return;
    sendError(res, appError);
    if (onServerError && appError.httpStatus >= 500 && !isRecorded(err)) {
      onServerError({
        status: appError.httpStatus,
        error: appError,
        route: res.locals[ROUTE_LOCAL] as string | undefined,
        requestId: req.requestId ?? currentRequestId(),
      });
    }
  };
}

export function notFoundHandler(): RequestHandler {
  return (req, res) => sendError(res, new AppError('not_found', `No route for ${req.method} ${req.path}`));
}

/** `/healthz` says the process is alive; `/readyz` checks what it depends on. */
export function healthRoutes(readiness: () => Promise<Record<string, string>>): express.Router {
  const router = express.Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    try {
      res.json({ status: 'ready', checks: await readiness() });
    } catch (err) {
      res.status(503).json({ status: 'not_ready', error: errorMessage(err) });
    }
  });
  return router;
}

/** BODY_LIMIT_BYTES, read by the gateway and by every service, so both ends refuse the same bodies. */
export const bodyLimitSetting = () => env.int(1024 * 1024, 1024);

export interface ServiceAppOptions {
  service: string;
  routes: RouteSpec[];
  handlers: RouteHandlers;
  internalAuth: InternalAuth;
  readiness: () => Promise<Record<string, string>>;
  bodyLimitBytes: number;
  /** Answer `/metrics` on this app's port (see ModuleContext.metricsOnHttpPorts). */
  exposeMetrics: boolean;
  /** Hears of each 5xx answer (the ServiceHost records it in the error log). */
  onServerError?: (answer: ServerErrorAnswer) => void;
}

/**
 * The HTTP side of a service: it answers only requests the gateway vouched for, validates each with
 * its route's schemas, and calls the handler with typed input.
 */
export function createServiceApp(opts: ServiceAppOptions): express.Express {
  const log = createLogger(`${opts.service}.http`);
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  app.use(
    observeHttp(
      opts.service,
      opts.routes.filter((r) => r.service === opts.service),
      { exposeMetrics: opts.exposeMetrics },
    ),
  );
  app.use(requestContext());
  app.use(healthRoutes(opts.readiness));
  app.use(accessLog(log));
  app.use(requestBytes());
  app.use((req, _res, next) => {
    const claims = opts.internalAuth.verify(req.header(INTERNAL_AUTH_HEADER));
    req.principal = claims.principal;
    next();
  });
  const json = express.json({ limit: opts.bodyLimitBytes, strict: false });

  const router = express.Router();
  for (const route of opts.routes) {
    if (route.service !== opts.service || route.gone) continue;
    const handler = opts.handlers[route.operationId];
    if (!handler) throw new Error(`${opts.service}: no handler for ${route.operationId}`);
    // An upload streams into a temporary file (never held whole); the file is the handler's body and is removed after it.
    const bodyParser = route.upload ? receiveUpload(route.upload.maxBytes) : json;
    router[route.method](expressPath(route.path), bodyParser, async (req: Request, res, next) => {
      res.locals[ROUTE_LOCAL] = `${route.method.toUpperCase()} ${route.path}`;
      try {
        // The gateway checked this already; a service holds its own line for calls that reach it directly.
        if (req.principal) assertRouteScope(req.principal, route.access);
        const params = route.request?.params ? parseOrThrow(route.request.params, req.params, 'params') : req.params;
        const query = route.request?.query ? parseOrThrow(route.request.query, req.query, 'query') : {};
        const rawBody: unknown = req.body === undefined ? {} : req.body;
        const body = route.upload
          ? req.uploaded
          : route.request?.body
            ? parseOrThrow(route.request.body, rawBody, 'body')
            : undefined;
        const clientIp = req.header(CLIENT_IP_HEADER) ?? req.socket.remoteAddress ?? 'unknown';
        // An upload's file is removed before the answer leaves, whatever the handler did.
        const input: HandlerInput<unknown, unknown, unknown> = {
          params,
          query,
          body,
          principal: req.principal,
          requestId: req.requestId,
          clientIp,
          via: req.header(VIA_HEADER),
        };
        // The input is what this route's own schemas parsed, the type its handler was written against.
        const result = await handler(input as never).finally(() => removeUpload(req.uploaded));
        if (result instanceof HttpResponse && isAsyncIterable(result.body)) {
          await sendStream(res, result, result.body, log);
        } else if (result instanceof HttpResponse) {
          res.status(result.status).set(result.headers);
          if (Buffer.isBuffer(result.body) || typeof result.body === 'string') res.send(result.body);
          else res.json(result.body);
        } else {
          res.status(200).json(result);
        }
      } catch (err) {
        next(err);
      }
    });
  }
  app.use(router);
  app.use(notFoundHandler());
  app.use(errorHandler(log, opts.onServerError));
  return app;
}

const isAsyncIterable = (v: unknown): v is AsyncIterable<string | Buffer> =>
  typeof v === 'object' && v !== null && Symbol.asyncIterator in v;

/**
 * Streams a large body (an export) as it is produced. The first piece is awaited before the status is
 * sent, so a failure at the start still answers a JSON error; a failure later can only cut the
 * transfer short, which the client sees as an incomplete response, never as a complete file.
 */
async function sendStream(
  res: express.Response,
  head: HttpResponse,
  body: AsyncIterable<string | Buffer>,
  log: Logger,
): Promise<void> {
  const pieces = body[Symbol.asyncIterator]();
  const first = await pieces.next();
  res.status(head.status).set(head.headers);
  async function* rest() {
    if (!first.done) yield first.value;
    for (let next = await pieces.next(); !next.done; next = await pieces.next()) yield next.value;
  }
  await pipeline(Readable.from(rest()), res).catch((err: unknown) => {
    // A client that went away mid-transfer is its own doing; anything else failed here.
    const clientGone = (err as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE';
    log.log(
      clientGone ? 'warn' : 'error',
      clientGone ? 'streamed response cut short by the client' : 'streamed response failed',
      {
        error: errorMessage(err),
        requestId: currentRequestId(),
      },
    );
    res.destroy();
  });
}

export interface RunningHttpServer {
  port: number;
  url: string;
  close(graceMs?: number): Promise<void>;
}

/**
 * Largest request line and headers a service accepts: above Node's 16 KiB, which the gateway keeps,
 * because the gateway adds its internal headers to every request it accepted. The gateway's limit
 * is then the only one a caller meets.
 */
export const SERVICE_MAX_HEADER_BYTES = 64 * 1024;

const parserLog = createLogger('http');

/**
 * What Node would answer a request it cannot parse, in the error shape instead of an empty body and
 * naming the part it could not parse. A response already under way on the connection is not
 * written over: the connection ends instead.
 */
function answerUnparsable(err: NodeJS.ErrnoException, socket: Duplex, answering: ServerResponse | undefined): void {
  if (err.code === 'ECONNRESET' || !socket.writable || answering?.headersSent) {
    socket.destroy();
    return;
  }
  const error = unparsableRequest(err.code);
  parserLog.warn('malformed HTTP request', { parserCode: err.code, status: error.httpStatus });
  const body = JSON.stringify(error.toBody());
  socket.end(
    `HTTP/1.1 ${error.httpStatus} ${http.STATUS_CODES[error.httpStatus]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** Listens and returns a close that stops accepting, lets in-flight requests finish, then cuts the rest. */
export function listen(
  app: express.Express,
  host: string,
  port: number,
  options: { maxHeaderBytes?: number } = {},
): Promise<RunningHttpServer> {
  const server = http.createServer({ maxHeaderSize: options.maxHeaderBytes }, app);
  server.keepAliveTimeout = 65000;
  // The response in progress on each connection, so a parse error later in its request does not write over it.
  const answering = new WeakMap<Duplex, ServerResponse>();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    answering.set(req.socket, res);
    res.once('finish', () => {
      if (answering.get(req.socket) === res) answering.delete(req.socket);
    });
  });
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) =>
    answerUnparsable(err, socket, answering.get(socket)),
  );
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const bound = (server.address() as AddressInfo).port;
      resolve({
        port: bound,
        url: `http://${host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host}:${bound}`,
        close: (graceMs = 10000) =>
          new Promise<void>((done) => {
            const timer = setTimeout(() => {
              server.closeAllConnections();
            }, graceMs);
            server.close(() => {
              clearTimeout(timer);
              done();
            });
            server.closeIdleConnections();
          }),
      });
    });
  });
}
