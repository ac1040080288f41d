import http, { type ClientRequest } from 'node:http';
import https from 'node:https';
import type { Request, RequestHandler, Response } from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';
import { clientAddress } from './inner-calls';
import {
  AppError,
  CLIENT_IP_HEADER,
  errorMessage,
  INTERNAL_AUTH_HEADER,
  InternalAuth,
  Logger,
  REQUEST_ID_HEADER,
  sendError,
} from '@bulwark/platform';

export interface Upstream {
  service: string;
  /** Base URL of the service's HTTP server. */
  url: string;
  internalAuth: InternalAuth;
  timeoutMs: number;
  log: Logger;
}

/** What the route's limit step leaves for the proxy of the same request. */
interface ForwardState {
  limitBytes: number;
  /** Refused (body too large, or not received in time): the upstream request is cut on purpose, not failing. */
  refused: boolean;
}

const tooLarge = (limit: number) => new AppError('payload_too_large', `Request body is larger than ${limit} bytes`);

const stateOf = (res: Response) => res.locals.forward as ForwardState | undefined;

/** A body refused for the client's own doing: answered (when it can still be) and logged as a warning, never as a failure. */
function refuseBody(log: Logger, req: Request, res: Response, error: AppError): void {
  log.warn('request body refused', {
    reason: error.message,
    method: req.method,
    path: req.path,
    requestId: req.requestId,
  });
  if (res.headersSent) return;
  res.setHeader('connection', 'close');
  sendError(res, error);
}

/**
 * Headers of one connection, not of the request: they stop here. A caller's `Trailer` passed on
 * would make Node's client throw once the body ends (trailers need a chunked body), ending the process.
 */
const HOP_BY_HOP = ['trailer', 'te', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'upgrade'];

/** Connection errors that say the service is not there, whatever the state of the caller's body. */
const UPSTREAM_DOWN = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'EAI_AGAIN']);

/**
 * The route's body limit, before the proxy: a declared Content-Length over it is refused at once;
 * the streamed count is checked by the proxy as the body passes. `Expect: 100-continue` was answered
 * by Node already; passed on, it would make Node's client send the upstream request's headers at
 * once, before the internal ones are set, so it stops here.
 */
export function bodyLimit(limitBytes: number, log: Logger): RequestHandler {
  return (req, res, next) => {
    if (Number(req.header('content-length') ?? '0') > limitBytes) {
      refuseBody(log, req, res, tooLarge(limitBytes));
      return;
    }
    delete req.headers.expect;
    res.locals.forward = { limitBytes, refused: false } satisfies ForwardState;
    next();
  };
}

/** Counts the body as it streams to the service: a chunked body meets the same limit as a declared one. */
function countBody(req: Request, res: Response, upstreamReq: ClientRequest, log: Logger): void {
  const state = stateOf(res);
  if (!state) return;
  let received = 0;
  req.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (received <= state.limitBytes || state.refused) return;
    state.refused = true;
    req.unpipe(upstreamReq);
    upstreamReq.destroy();
    // What is still coming is read and dropped until the answer is out, then the connection ends.
    req.resume();
    refuseBody(log, req, res, tooLarge(state.limitBytes));
  });
}

/** The proxy to one service: the caller's credentials stop here, the internal token vouches for the caller. */
export function proxyTo(upstream: Upstream): RequestHandler {
  // Without an agent of its own the proxy opens a connection per request and closes it again.
  // Services keep connections for 65 s and say so; the agent retires a socket before that.
  const agentOptions = { keepAlive: true, scheduling: 'lifo' } as const;
  const agent = upstream.url.startsWith('https:') ? new https.Agent(agentOptions) : new http.Agent(agentOptions);
  return createProxyMiddleware<Request, Response>({
    target: upstream.url,
    agent,
    changeOrigin: false,
    proxyTimeout: upstream.timeoutMs,
    on: {
      proxyReq: (proxyReq, req, res) => {
        proxyReq.setHeader(
          INTERNAL_AUTH_HEADER,
          req.principal ? upstream.internalAuth.forPrincipal(req.principal) : upstream.internalAuth.forService(),
        );
        proxyReq.setHeader(REQUEST_ID_HEADER, req.requestId);
        proxyReq.setHeader(CLIENT_IP_HEADER, clientAddress(req));
        proxyReq.removeHeader('authorization');
        proxyReq.removeHeader('cookie');
        for (const name of HOP_BY_HOP) proxyReq.removeHeader(name);
        // Attached here, in the tick the proxy pipes the body, so no chunk passes uncounted.
        countBody(req, res, proxyReq, upstream.log);
      },
      error: (err, req, res) => {
        const response = res as Response;
        // A refused body or a client that went away ends the upstream request on purpose.
        if (stateOf(response)?.refused || req.destroyed) return;
        // The service is there but the caller's body never arrived in full: the caller's time ran out.
        if (!req.complete && !UPSTREAM_DOWN.has((err as NodeJS.ErrnoException).code ?? '')) {
          const state = stateOf(response);
          if (state) state.refused = true;
          refuseBody(
            upstream.log,
            req,
            response,
            new AppError('request_timeout', 'The request body was not received in full in time', [
              { field: 'body', problem: 'was not received in full' },
            ]),
          );
          return;
        }
        upstream.log.error('upstream failed', {
          service: upstream.service,
          error: errorMessage(err),
          requestId: req.requestId,
        });
        if (!response.headersSent)
          sendError(response, new AppError('unavailable', `The ${upstream.service} service is unavailable`));
        else response.destroy();
      },
    },
  });
}
