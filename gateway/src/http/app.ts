import type { ClientRequest, IncomingMessage } from 'node:http';
import express, { NextFunction, Request, Response } from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';
import {
  accessLog, AppError, CLIENT_IP_HEADER, errorHandler, expressPath, forbidden, hasPermission, healthRoutes, INTERNAL_AUTH_HEADER,
  InternalAuth, Logger, notFoundHandler, observeHttp, RateLimiter, REQUEST_ID_HEADER, requestContext, RouteSpec, sendError,
} from '@bulwark/platform';
import { Authenticator } from '../auth/authenticator';
import type { GatewayConfig } from '../config';
import { docsRouter } from './docs';

export interface GatewayDeps {
  config: GatewayConfig;
  routes: RouteSpec[];
  /** Base URL of each service's HTTP server. */
  upstreams: Record<string, string>;
  authenticator: Authenticator;
  internalAuth: InternalAuth;
  perIp: RateLimiter;
  perToken: RateLimiter;
  readiness: () => Promise<Record<string, string>>;
  version: string;
  log: Logger;
  /** Answer `/metrics` on the gateway's port (false when METRICS_PORT serves it elsewhere). */
  exposeMetrics: boolean;
}

const wrap = (fn: (req: Request, res: Response) => Promise<void>) => (req: Request, res: Response, next: NextFunction) => {
  fn(req, res).then(() => next(), next);
};

/**
 * Every /api/v1 request passes, in order: request id, per-IP rate limit, the route table (404/410),
 * authentication (401), per-token rate limit, the route's permission (403), the body size limit
 * (413), and is then proxied to its service with an internal token that vouches for the caller.
 */
export function createGatewayApp(deps: GatewayDeps): express.Express {
  const { config, log } = deps;
  const app = express();
  app.disable('x-powered-by');
  if (config.GATEWAY_TRUST_PROXY) app.set('trust proxy', config.GATEWAY_TRUST_PROXY);
  app.use(observeHttp('gateway', deps.routes, { exposeMetrics: deps.exposeMetrics }));
  app.use(requestContext());
  app.use(healthRoutes(deps.readiness));
  app.use(accessLog(log));
  app.use('/api', wrap(async (req) => deps.perIp.consume(req.ip ?? 'unknown')));
  app.use(docsRouter(deps.version));

  const proxies = new Map<string, express.RequestHandler>();
  const proxyFor = (service: string) => {
    let proxy = proxies.get(service);
    if (!proxy) {
      const target = deps.upstreams[service];
      if (!target) throw new Error(`gateway: no upstream for service ${service}`);
      proxy = createProxyMiddleware<Request, Response>({
        target,
        changeOrigin: false,
        proxyTimeout: config.UPSTREAM_TIMEOUT_MS,
        on: {
          proxyReq: (proxyReq: ClientRequest, req: Request) => {
            proxyReq.setHeader(INTERNAL_AUTH_HEADER, req.principal ? deps.internalAuth.forPrincipal(req.principal) : deps.internalAuth.forService());
            proxyReq.setHeader(REQUEST_ID_HEADER, req.requestId);
            proxyReq.setHeader(CLIENT_IP_HEADER, req.ip ?? 'unknown');
            // The caller's credentials stop here: services trust only the internal token.
            proxyReq.removeHeader('authorization');
          },
          error: (err: Error, req: IncomingMessage, res) => {
            log.error('upstream failed', { service, error: err.message, requestId: (req as Request).requestId });
            if ('headersSent' in res && !res.headersSent) sendError(res as Response, new AppError('unavailable', `The ${service} service is unavailable`));
            else res.destroy();
          },
        },
      });
      proxies.set(service, proxy);
    }
    return proxy;
  };

  const router = express.Router();
  for (const route of deps.routes) {
    if (route.service === 'gateway') continue;
    const handlers: express.RequestHandler[] = [];
    if (route.gone) {
      router[route.method](expressPath(route.path), (_req, res) => sendError(res, new AppError('gone', route.gone!)));
      continue;
    }
    if (route.access.kind !== 'public') {
      const access = route.access;
      handlers.push(
        wrap(async (req) => {
          const token = Authenticator.bearerToken(req.header('authorization'));
          req.principal = await deps.authenticator.authenticate(token);
          await deps.perToken.consume(req.principal.tokenId);
          if (access.kind === 'permission' && !hasPermission(req.principal, access.key, access.letter)) {
            throw forbidden(`Requires permission ${access.key}:${access.letter}`);
          }
        }),
      );
    }
    const limit = route.upload?.maxBytes ?? config.BODY_LIMIT_BYTES;
    handlers.push((req, _res, next) => {
      const length = Number(req.header('content-length') ?? '0');
      next(length > limit ? new AppError('payload_too_large', `Request body is larger than ${limit} bytes`) : undefined);
    });
    handlers.push(proxyFor(route.service));
    router[route.method](expressPath(route.path), ...handlers);
  }
  app.use(router);
  app.use(notFoundHandler());
  app.use(errorHandler(log));
  return app;
}
