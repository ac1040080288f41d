import type { RequestHandler } from 'express';

/**
 * A page's Content-Security-Policy: its own script and style sources, and for everything else what
 * every page the gateway serves allows: nothing from elsewhere, never framed, forms only to itself.
 */
export const pagePolicy = (scriptAndStyle: string[]) =>
  [
    "default-src 'self'",
    ...scriptAndStyle,
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    "form-action 'self'",
  ].join('; ');

/** The headers of a page and its files: the page's policy, no sniffing, no referrer, never framed, its own window. */
export function pageSecurityHeaders(csp: string): RequestHandler {
  return (_req, res, next) => {
    res.setHeader('Content-Security-Policy', csp);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
    res.setHeader('Permissions-Policy', 'camera=(), microphone=(), geolocation=()');
    next();
  };
}
