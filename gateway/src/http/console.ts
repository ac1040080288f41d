import fs from 'node:fs';
import path from 'node:path';
import express from 'express';
import { AppError, sendError } from '@bulwark/platform';
import { pagePolicy, pageSecurityHeaders } from './security-headers';

/**
 * The console's policy: scripts and styles of its own origin only. The built bundle has no inline
 * script or style, so 'self' is all it needs.
 */
const CONSOLE_CSP = pagePolicy(["script-src 'self'", "style-src 'self'"]);

/** Paths the console never answers, even for a client route: the API and the operational endpoints. */
const NOT_CONSOLE = /^\/(api|healthz|readyz|metrics)(\/|$)/;

/** Where the built console is: CONSOLE_DIR, else the @bulwark/console package's dist next to this one. */
export function findConsoleDir(configured: string | undefined): string | undefined {
  if (configured) return configured;
  try {
    return path.join(path.dirname(require.resolve('@bulwark/console/package.json')), 'dist');
  } catch {
    return undefined;
  }
}

/**
 * The console's files at `/`: hashed assets cached for a year as immutable, everything else (the
 * page, and any client route such as /issues?...) answered with index.html, never cached, so a new
 * release is picked up at the next load.
 */
export function consoleRouter(dir: string): express.Router {
  const index = path.join(dir, 'index.html');
  const router = express.Router();
  const headers = pageSecurityHeaders(CONSOLE_CSP);
  router.use((req, res, next) => {
    if (NOT_CONSOLE.test(req.path)) return next('router');
    headers(req, res, next);
  });
  router.use(
    '/assets',
    express.static(path.join(dir, 'assets'), { index: false, immutable: true, maxAge: '365d' }),
    // A missing asset is a 404, not the page: HTML under a script's name would only confuse.
    (req, res) => sendError(res, new AppError('not_found', `No asset ${req.path}`)),
  );
  router.use(express.static(dir, { index: false, setHeaders: (res) => res.setHeader('Cache-Control', 'no-cache') }));
  router.get(/.*/, (_req, res, next) => {
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(index, (err) => {
      if (err && !res.headersSent) next(err);
    });
  });
  return router;
}

export const consoleBuilt = (dir: string | undefined): dir is string =>
  !!dir && fs.existsSync(path.join(dir, 'index.html'));
