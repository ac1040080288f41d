import http, { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import { AppError, CLIENT_IP_HEADER, errorMessage, INTERNAL_AUTH_HEADER, InternalAuth, Logger, REQUEST_ID_HEADER, sendError } from '@bulwark/platform';

export interface Upstream {
  service: string;
  /** Base URL of the service's HTTP server. */
  url: string;
  internalAuth: InternalAuth;
  timeoutMs: number;
  log: Logger;
}

/** Headers of one hop (RFC 9110 7.6.1): each side of the gateway has its own. */
const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade'];

function withoutHopHeaders(headers: IncomingHttpHeaders, alsoDrop: string[]): OutgoingHttpHeaders {
  const named = String(headers.connection ?? '').split(',').map((h) => h.trim().toLowerCase());
  const drop = new Set([...HOP_BY_HOP, ...named, ...alsoDrop]);
  return Object.fromEntries(Object.entries(headers).filter(([name, value]) => value !== undefined && !drop.has(name)));
}

const tooLarge = (limit: number) => new AppError('payload_too_large', `Request body is larger than ${limit} bytes`);

/**
 * Proxies one request to its service. The internal headers are part of the request from its first
 * byte (a client's `Expect: 100-continue` makes Node send headers at once, so headers set later are
 * lost). `Expect` itself is answered here by Node and not passed on. The body is counted as it
 * streams, so a chunked body without Content-Length meets the same limit as a declared one.
 */
export function forward(upstream: Upstream, limitBytes: number): RequestHandler {
  const base = new URL(upstream.url);
  return (req: Request, res: Response) => {
    if (Number(req.header('content-length') ?? '0') > limitBytes) {
      res.setHeader('connection', 'close');
      sendError(res, tooLarge(limitBytes));
      return;
    }
    const headers = withoutHopHeaders(req.headers, ['expect', 'authorization', INTERNAL_AUTH_HEADER, CLIENT_IP_HEADER]);
    headers[INTERNAL_AUTH_HEADER] = req.principal ? upstream.internalAuth.forPrincipal(req.principal) : upstream.internalAuth.forService();
    headers[REQUEST_ID_HEADER] = req.requestId;
    headers[CLIENT_IP_HEADER] = req.ip ?? 'unknown';

    // Refused (body too large) or abandoned (client gone): the upstream is cut on purpose, not failing.
    let cut = false;
    const proxied = http.request({ protocol: base.protocol, hostname: base.hostname, port: base.port, method: req.method, path: req.originalUrl, headers });
    proxied.setTimeout(upstream.timeoutMs, () => proxied.destroy(new Error(`no answer within ${upstream.timeoutMs} ms`)));
    proxied.on('error', (err) => {
      if (cut) return;
      upstream.log.error('upstream failed', { service: upstream.service, error: errorMessage(err), requestId: req.requestId });
      if (!res.headersSent) sendError(res, new AppError('unavailable', `The ${upstream.service} service is unavailable`));
      else res.destroy();
    });
    proxied.on('response', (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, withoutHopHeaders(answer.headers, []));
      answer.pipe(res);
      answer.on('error', () => res.destroy());
    });
    const abandon = () => {
      cut = true;
      proxied.destroy();
    };
    res.on('close', () => {
      if (!res.writableFinished) abandon();
    });

    let received = 0;
    req.on('data', (chunk: Buffer) => {
      if (cut) return;
      received += chunk.length;
      if (received > limitBytes) {
        abandon();
        // What is still coming is read and dropped until the answer is out, then the connection ends.
        req.resume();
        if (!res.headersSent) {
          res.setHeader('connection', 'close');
          sendError(res, tooLarge(limitBytes));
        }
        return;
      }
      if (!proxied.write(chunk)) req.pause();
    });
    proxied.on('drain', () => req.resume());
    req.on('end', () => {
      if (!cut) proxied.end();
    });
    req.on('error', abandon);
  };
}
