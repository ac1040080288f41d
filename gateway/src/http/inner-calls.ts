import { randomBytes } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { CLIENT_IP_HEADER, VIA_HEADER } from '@bulwark/platform';
import { sameBytes } from '../auth/csrf';

/** Carries this process's key on the MCP server's calls to its own gateway; never passed on. */
export const INNER_CALL_HEADER = 'x-bulwark-inner-call';

const carriedAddress = new WeakMap<Request, string>();

/** The address a request counts for: the MCP caller's for an inner call, the connection's (or the trusted proxy's) otherwise. */
export function clientAddress(req: Request): string {
  return carriedAddress.get(req) ?? req.ip ?? 'unknown';
}

/**
 * The MCP server's calls to the gateway that runs it, told apart by a key only this process knows
 * (they go to its own address). Such a call is the MCP caller's own request: it counts against the
 * caller's address in the per-IP limit (not the gateway's, which every assistant would share) and
 * its X-Bulwark-Via reaches the services. From anyone else both headers are dropped: a client can
 * neither charge another address nor mark its own change as an assistant's.
 */
export class InnerCalls {
  private readonly key = randomBytes(32).toString('base64url');

  /** The headers of an inner call made for the request `outer`. */
  headersFor(outer: Request): Record<string, string> {
    return { [INNER_CALL_HEADER]: this.key, [CLIENT_IP_HEADER]: clientAddress(outer) };
  }

  /** First of the chain: recognises an inner call, and strips what only an inner call may carry. */
  recognise(): RequestHandler {
    return (req, _res, next) => {
      const inner = sameBytes(req.header(INNER_CALL_HEADER) ?? '', this.key);
      delete req.headers[INNER_CALL_HEADER];
      if (inner) carriedAddress.set(req, req.header(CLIENT_IP_HEADER) ?? clientAddress(req));
      else delete req.headers[VIA_HEADER];
      next();
    };
  }
}
