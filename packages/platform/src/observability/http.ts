import type { RequestHandler } from 'express';
import type { Span } from '@opentelemetry/api';
import { expressPath, RouteSpec } from '../http/routes';
import { httpRequestDuration, httpRequests, METRICS_CONTENT_TYPE, metricsText } from './metrics';
import { extractTrace, injectTrace, SpanKind, SpanStatusCode, startSpan } from './tracing';

declare module 'express-serve-static-core' {
  interface Request {
    /** The request's server span, started by observeHttp. */
    span?: Span;
  }
}

/** Paths answered outside the route table that are worth their own label. */
const FIXED_PATHS = ['/healthz', '/readyz'];

/**
 * Finds the route template of a request (`/api/v1/projects/{id}`), the way express matches it: first
 * row of the table wins. Anything else is `unmatched`, so raw paths never become label values.
 */
export function routeMatcher(routes: RouteSpec[]): (method: string, path: string) => string {
  const table = routes.map((r) => ({
    method: r.method.toUpperCase(),
    template: r.path,
    pattern: new RegExp(
      `^${expressPath(r.path)
        .split('/')
        .map((seg) => (seg.startsWith(':') ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
        .join('/')}/?$`,
      'i',
    ),
  }));
  return (method, path) => {
    if (FIXED_PATHS.includes(path)) return path;
    const m = method === 'HEAD' ? 'GET' : method;
    return table.find((r) => r.method === m && r.pattern.test(path))?.template ?? 'unmatched';
  };
}

export interface ObserveHttpOptions {
  /** Answer `GET /metrics` on this listener (false when the process serves metrics on a port of their own). */
  exposeMetrics: boolean;
}

/**
 * First middleware of every HTTP app: counts and times each request by route template and status,
 * runs it in a server span whose parent is the caller's `traceparent`, and answers `/metrics`.
 * The request's `traceparent` header is replaced by this span's, so whatever forwards the request
 * (the gateway's proxy) passes this span on as the parent.
 */
export function observeHttp(component: string, routes: RouteSpec[], opts: ObserveHttpOptions): RequestHandler {
  const routeOf = routeMatcher(routes);
  return (req, res, next) => {
    if (req.path === '/metrics' && opts.exposeMetrics && (req.method === 'GET' || req.method === 'HEAD')) {
      metricsText().then(
        (text) => res.status(200).type(METRICS_CONTENT_TYPE).send(text),
        (err: Error) => res.status(500).type('text/plain').send(err.message),
      );
      return;
    }
    const route = routeOf(req.method, req.path);
    const started = process.hrtime.bigint();
    const span = startSpan(`${req.method} ${route}`, {
      kind: SpanKind.SERVER,
      component,
      parent: extractTrace(req.headers),
      attributes: { 'http.request.method': req.method, 'http.route': route },
    });
    req.span = span;
    delete req.headers.traceparent;
    delete req.headers.tracestate;
    injectTrace(span, req.headers as Record<string, string>);
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      // A client that went away before the answer was complete: nginx's 499.
      const status = res.writableFinished ? String(res.statusCode) : '499';
      const labels = { component, method: req.method, route, status };
      httpRequests.inc(labels);
      httpRequestDuration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
      span.setAttribute('http.response.status_code', res.statusCode);
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    };
    res.on('finish', finish);
    res.on('close', finish);
    next();
  };
}
