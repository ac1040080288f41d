import express, { NextFunction, Request, Response } from 'express';
import {
  accessLog,
  AppError,
  assertRouteScope,
  errorHandler,
  expressPath,
  forbidden,
  hasPermission,
  scopedTo,
  healthRoutes,
  InternalAuth,
  Logger,
  notFoundHandler,
  observeHttp,
  RateLimiter,
  requestBytes,
  requestContext,
  RouteSpec,
  sendError,
} from '@bulwark/platform';
import { Authenticator } from '../auth/authenticator';
import type { GatewayConfig } from '../config';
import { CsrfValues } from '../auth/csrf';
import { sessionRouter, sessionToken } from '../auth/session';
import { consoleRouter } from './console';
import { docsRouter } from './docs';
import { compressResponses } from './compress';
import { bodyLimit, proxyTo } from './forward';
import { methodNotAllowed } from './method-not-allowed';
import { mcpRouter } from '../mcp/endpoint';
import { clientAddress, InnerCalls } from './inner-calls';

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
  /** The built console's directory, served at `/`; absent when it was not built. */
  consoleDir?: string;
}

const wrap =
  (fn: (req: Request, res: Response) => Promise<void>) => (req: Request, res: Response, next: NextFunction) => {
    fn(req, res).then(() => next(), next);
  };

/**
 * Every /api/v1 request passes, in order: request id, the MCP server's inner calls told apart (./inner-calls), the request's bytes (400 for a path, query or
 * header that is not UTF-8), per-IP rate limit, the route table (404/405/410), authentication (401),
 * per-token rate limit, the route's permission and its project scope (403), the body size limit
 * (413), and is then proxied to its service with an internal token that vouches for the caller.
 */
export function createGatewayApp(deps: GatewayDeps): express.Express {
  const { config, log } = deps;
  const app = express();
  app.disable('x-powered-by');
  if (config.GATEWAY_TRUST_PROXY) app.set('trust proxy', config.GATEWAY_TRUST_PROXY);
  app.use(observeHttp('gateway', deps.routes, { exposeMetrics: deps.exposeMetrics }));
  app.use(requestContext());
  const innerCalls = new InnerCalls();
  app.use(innerCalls.recognise());
  app.use(healthRoutes(deps.readiness));
  app.use(compressResponses());
  app.use(accessLog(log));
  app.use(requestBytes());
  app.use(
    '/api',
    wrap(async (req) => deps.perIp.consume(clientAddress(req))),
  );
  app.use(docsRouter(deps.version));
  const csrf = new CsrfValues(deps.internalAuth.derivedKey('csrf'));
  app.use(
    sessionRouter({
      csrf,
      identityUrl: deps.upstreams.identity,
      authenticator: deps.authenticator,
      internalAuth: deps.internalAuth,
      log,
    }),
  );

  const proxies = new Map<string, express.RequestHandler>();
  const proxyFor = (service: string) => {
    let proxy = proxies.get(service);
    if (!proxy) {
      const url = deps.upstreams[service];
      if (!url) throw new Error(`gateway: no upstream for service ${service}`);
      proxy = proxyTo({ service, url, internalAuth: deps.internalAuth, timeoutMs: config.UPSTREAM_TIMEOUT_MS, log });
      proxies.set(service, proxy);
    }
    return proxy;
  };

  app.use(
    mcpRouter({
      authenticator: deps.authenticator,
      perToken: deps.perToken,
      innerCalls,
      bodyLimitBytes: config.BODY_LIMIT_BYTES,
      timeoutMs: config.UPSTREAM_TIMEOUT_MS,
      version: deps.version,
      log,
    }),
  );

  const router = express.Router();
  for (const route of deps.routes) {
    if (route.service === 'gateway') continue;
    const handlers: express.RequestHandler[] = [];
    const gone = route.gone;
    if (gone) {
      router[route.method](expressPath(route.path), (_req, res) => sendError(res, new AppError('gone', gone)));
      continue;
    }
    if (route.access.kind !== 'public') {
      const access = route.access;
      handlers.push(
        wrap(async (req) => {
          const token = sessionToken(req, csrf) ?? Authenticator.bearerToken(req.header('authorization'));
          req.principal = await deps.authenticator.authenticate(token);
          await deps.perToken.consume(req.principal.tokenId);
          if (access.kind === 'permission') {
            if (!hasPermission(req.principal, access.key, access.letter))
              throw forbidden(`Requires permission ${access.key}:${access.letter}`);
            // Services apply one project list: the projects of the permission this route requires.
            req.principal = scopedTo(req.principal, access.key, access.letter);
            assertRouteScope(req.principal, access);
          }
        }),
      );
    }
    handlers.push(bodyLimit(route.upload?.maxBytes ?? config.BODY_LIMIT_BYTES, log), proxyFor(route.service));
    router[route.method](expressPath(route.path), ...handlers);
  }
  app.use(router);
  if (deps.consoleDir) app.use(consoleRouter(deps.consoleDir));
  app.use(methodNotAllowed(deps.routes));
  app.use(notFoundHandler());
  app.use(errorHandler(log));
  return app;
}
