import express, { Request, Response } from 'express';
import {
  loginBody,
  loginResponse,
  SESSION_COOKIE,
  CSRF_COOKIE,
  CSRF_HEADER,
  SSO_BROWSER_COOKIE,
} from '@bulwark/contracts';
import type { Authenticator } from './authenticator';
import { CsrfValues, sameBytes } from './csrf';
import {
  AppError,
  CLIENT_IP_HEADER,
  errorMessage,
  forbidden,
  INTERNAL_AUTH_HEADER,
  InternalAuth,
  Logger,
  parseOrThrow,
  REQUEST_ID_HEADER,
  sendError,
} from '@bulwark/platform';
import { clientAddress } from '../http/inner-calls';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const MAX_COOKIE_HEADER = 8192;
const SSO_CALLBACK = '/api/v1/sso/callback';
const SSO_MARK_SECONDS = 600;

/** The cookies of a request by name; a malformed pair is skipped, the first of a repeated name wins. */
export function readCookies(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (!header || header.length > MAX_COOKIE_HEADER) return out;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 1) continue;
    const name = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (!out.has(name)) out.set(name, value);
  }
  return out;
}

/**
 * The token of a request and how it came: the bearer header as before, else the session cookie. A
 * cookie is sent by the browser on its own, so an unsafe method it authenticates must also carry the
 * CSRF cookie's value in the CSRF header (a page of another origin can neither read the one nor set
 * the other), and that value must have been minted for this session's token.
 */
export function sessionToken(req: Request, csrf: CsrfValues): string | undefined {
  if (req.header('authorization') !== undefined) return undefined;
  const cookies = readCookies(req.header('cookie'));
  const token = cookies.get(SESSION_COOKIE);
  if (!token) return undefined;
  if (!SAFE_METHODS.has(req.method)) {
    const expected = cookies.get(CSRF_COOKIE);
    const given = req.header(CSRF_HEADER);
    if (!expected || !given || !sameBytes(expected, given) || !csrf.mintedFor(expected, token))
      throw forbidden(
        `A request authenticated by the session cookie needs the ${CSRF_HEADER} header equal to the ${CSRF_COOKIE} cookie issued with that session`,
      );
  }
  return token;
}

export interface SessionDeps {
  csrf: CsrfValues;
  identityUrl: string;
  authenticator: Authenticator;
  internalAuth: InternalAuth;
  log: Logger;
}

/**
 * POST /api/v1/auth/session logs in through identity's own login (local, directory and its
 * throttling alike) and keeps the token in an HttpOnly cookie; DELETE revokes the token through
 * identity (so a copied cookie value stops working too) and clears the cookies. Secure is set when the request came over HTTPS (with GATEWAY_TRUST_PROXY, as a proxy
 * in front reports it).
 */
export function sessionRouter(deps: SessionDeps): express.Router {
  const router = express.Router();
  const cookieBase = (req: Request) => ({ sameSite: 'strict' as const, secure: req.secure, path: '/' });

  /**
   * Calls identity over HTTP with this gateway's internal token (for the service, or for a caller),
   * the request id and the client's address, as the proxy does.
   */
  const askIdentity = (req: Request, path: string, init: { method?: string; body?: unknown; as?: string } = {}) =>
    fetch(`${deps.identityUrl}${path}`, {
      method: init.method ?? 'GET',
      headers: {
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        [INTERNAL_AUTH_HEADER]: init.as ?? deps.internalAuth.forService(),
        [REQUEST_ID_HEADER]: req.requestId,
        [CLIENT_IP_HEADER]: clientAddress(req),
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: AbortSignal.timeout(30000),
    });

  /** Keeps a login's token in the session cookie, with a CSRF value minted for it (answered). */
  const setSession = (req: Request, res: Response, login: { access_token: string; expires_at: string }): string => {
    const expires = new Date(login.expires_at);
    const csrf = deps.csrf.mint(login.access_token);
    res.cookie(SESSION_COOKIE, login.access_token, { ...cookieBase(req), httpOnly: true, expires });
    res.cookie(CSRF_COOKIE, csrf, { ...cookieBase(req), httpOnly: false, expires });
    res.setHeader('cache-control', 'no-store');
    return csrf;
  };

  // Single sign-on into the browser session: the mark is Lax, as the provider sends the browser back
  // from another site, and limited to the callback's path and to one flow's time.
  const ssoMark = (req: Request) => ({
    sameSite: 'lax' as const,
    secure: req.secure,
    path: SSO_CALLBACK,
    httpOnly: true,
  });
  router.get('/api/v1/auth/session/sso', (req, res) => {
    res.cookie(SSO_BROWSER_COOKIE, '1', { ...ssoMark(req), maxAge: SSO_MARK_SECONDS * 1000 });
    res.redirect(302, '/api/v1/sso/login');
  });

  router.get(SSO_CALLBACK, async (req: Request, res: Response, next) => {
    // Without the mark (API clients, the CLI) the callback is proxied to identity and answers its JSON.
    if (!readCookies(req.header('cookie')).has(SSO_BROWSER_COOKIE)) return next();
    res.clearCookie(SSO_BROWSER_COOKIE, ssoMark(req));
    const failed = (message: string) => res.redirect(302, `/?sso_error=${encodeURIComponent(message)}`);
    try {
      const at = req.originalUrl.indexOf('?');
      const upstream = await askIdentity(req, `${SSO_CALLBACK}${at < 0 ? '' : req.originalUrl.slice(at)}`);
      const answer: unknown = await upstream.json();
      if (upstream.status !== 200)
        return failed((answer as { error?: { message?: string } }).error?.message ?? `HTTP ${upstream.status}`);
      setSession(req, res, loginResponse.parse(answer));
      res.redirect(302, '/');
    } catch (err) {
      deps.log.error('single sign-on into the session failed', { error: errorMessage(err), requestId: req.requestId });
      failed('The identity service is unavailable');
    }
  });

  router.post('/api/v1/auth/session', express.json({ limit: '16kb' }), async (req: Request, res: Response, next) => {
    try {
      const body = parseOrThrow(loginBody, req.body ?? {}, 'body');
      const upstream = await askIdentity(req, '/api/v1/auth/login', { method: 'POST', body });
      const answer: unknown = await upstream.json();
      if (upstream.status !== 200) {
        const retryAfter = upstream.headers.get('retry-after');
        if (retryAfter) res.setHeader('retry-after', retryAfter);
        res.status(upstream.status).json(answer);
        return;
      }
      const login = loginResponse.parse(answer);
      const csrf = setSession(req, res, login);
      res.json({ expires_at: login.expires_at, need_password_change: login.need_password_change, csrf_token: csrf });
    } catch (err) {
      if (err instanceof AppError) return next(err);
      deps.log.error('session login failed', { error: errorMessage(err), requestId: req.requestId });
      sendError(res, new AppError('unavailable', 'The identity service is unavailable'));
    }
  });

  /** Revokes a session's token at identity, as its caller; a token identity no longer accepts is already ended. */
  const revoke = async (req: Request, token: string): Promise<void> => {
    let principal;
    try {
      principal = await deps.authenticator.authenticate(token);
    } catch (err) {
      if (err instanceof AppError && err.code === 'unauthenticated') return;
      throw err;
    }
    const upstream = await askIdentity(req, '/api/v1/auth/logout', {
      method: 'POST',
      as: deps.internalAuth.forPrincipal(principal),
    });
    if (upstream.status !== 200) throw new Error(`identity answered ${upstream.status} to the logout`);
  };

  router.delete('/api/v1/auth/session', async (req: Request, res: Response, next) => {
    let token: string | undefined;
    try {
      // The CSRF check of sessionToken: another site cannot end (or probe) this browser's session.
      token = sessionToken(req, deps.csrf);
    } catch (err) {
      return next(err);
    }
    res.clearCookie(SESSION_COOKIE, { ...cookieBase(req), httpOnly: true });
    res.clearCookie(CSRF_COOKIE, cookieBase(req));
    try {
      if (token) await revoke(req, token);
      res.json({ signed_out: true });
    } catch (err) {
      // The cookies are gone from this browser either way; the caller learns the token may still work.
      deps.log.error('session logout failed', { error: errorMessage(err), requestId: req.requestId });
      sendError(
        res,
        new AppError(
          'unavailable',
          'Signed out in this browser, but the identity service could not revoke the session token',
        ),
      );
    }
  });
  return router;
}
