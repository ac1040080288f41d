import type { ClientRequest } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';
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
  /** Refused (body too large): the upstream request is cut on purpose, not failing. */
  refused: boolean;
}

const tooLarge = (limit: number) => new AppError('payload_too_large', `Request body is larger than ${limit} bytes`);

const stateOf = (res: Response) => res.locals.forward as ForwardState | undefined;

/**
 * The route's body limit, before the proxy: a declared Content-Length over it is refused at once;
 * the streamed count is checked by the proxy as the body passes. `Expect: 100-continue` was answered
 * by Node already; passed on, it would make Node's client send the upstream request's headers at
 * once, before the internal ones are set, so it stops here.
 */
export function bodyLimit(limitBytes: number): RequestHandler {
  return (req, res, next) => {
    if (Number(req.header('content-length') ?? '0') > limitBytes) {
      res.setHeader('connection', 'close');
      sendError(res, tooLarge(limitBytes));
      return;
    }
    delete req.headers.expect;
    res.locals.forward = { limitBytes, refused: false } satisfies ForwardState;
    next();
  };
}

/** Counts the body as it streams to the service: a chunked body meets the same limit as a declared one. */
function countBody(req: Request, res: Response, upstreamReq: ClientRequest): void {
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
    if (!res.headersSent) {
      res.setHeader('connection', 'close');
      sendError(res, tooLarge(state.limitBytes));
    }
  });
}

/** The proxy to one service: the caller's credentials stop here, the internal token vouches for the caller. */
export function proxyTo(upstream: Upstream): RequestHandler {
  return createProxyMiddleware<Request, Response>({
    target: upstream.url,
    changeOrigin: false,
    proxyTimeout: upstream.timeoutMs,
    on: {
      proxyReq: (proxyReq, req, res) => {
        proxyReq.setHeader(
          INTERNAL_AUTH_HEADER,
          req.principal ? upstream.internalAuth.forPrincipal(req.principal) : upstream.internalAuth.forService(),
        );
        proxyReq.setHeader(REQUEST_ID_HEADER, req.requestId);
        proxyReq.setHeader(CLIENT_IP_HEADER, req.ip ?? 'unknown');
        proxyReq.removeHeader('authorization');
        proxyReq.removeHeader('cookie');
        // Attached here, in the tick the proxy pipes the body, so no chunk passes uncounted.
        countBody(req, res, proxyReq);
      },
      error: (err, req, res) => {
        const response = res as Response;
        // A refused body or a client that went away ends the upstream request on purpose.
        if (stateOf(response)?.refused || req.destroyed) return;
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
