import type { RequestHandler } from 'express';
import { AppError, RouteSpec, sendError } from '@bulwark/platform';

/**
 * A request for a known path with a method the route table does not list answers 405 with `Allow`;
 * an unknown path falls through to 404. Paths match as Express routes them: a parameter is one
 * segment, letter case and a trailing slash do not matter.
 */
export function methodNotAllowed(routes: RouteSpec[]): RequestHandler {
  const paths = new Map<string, { pattern: RegExp; methods: Set<string> }>();
  for (const route of routes) {
    let entry = paths.get(route.path);
    if (!entry) {
      const segments = route.path
        .split(/\{[A-Za-z0-9_]+\}/)
        .map((literal) => literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
      entry = { pattern: new RegExp(`^${segments.join('[^/]+')}/?$`, 'i'), methods: new Set() };
      paths.set(route.path, entry);
    }
    entry.methods.add(route.method.toUpperCase());
    // Express answers HEAD with the GET route.
    if (route.method === 'get') entry.methods.add('HEAD');
  }
  return (req, res, next) => {
    const allowed = new Set<string>();
    for (const { pattern, methods } of paths.values())
      if (pattern.test(req.path)) methods.forEach((m) => allowed.add(m));
    if (allowed.size === 0 || allowed.has(req.method)) return next();
    const allow = [...allowed].sort().join(', ');
    res.setHeader('Allow', allow);
    sendError(
      res,
      new AppError('method_not_allowed', `${req.method} is not supported on ${req.path}; allowed: ${allow}`),
    );
  };
}
