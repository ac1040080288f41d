import zlib from 'node:zlib';
import compression from 'compression';
import type { Request, RequestHandler, Response } from 'express';

/** Answers passed on as they are: downloads stream byte for byte, and an event stream must not wait for a compressor's buffer. */
const asIs = (res: Response) =>
  /^\s*attachment/i.test(String(res.getHeader('content-disposition') ?? '')) ||
  /^text\/event-stream/i.test(String(res.getHeader('content-type') ?? ''));

/**
 * gzip or brotli, as the request's Accept-Encoding prefers, for the console's files and the API's
 * JSON. `compression` keeps to compressible types (never images, archives or what already has a
 * Content-Encoding), leaves bodies under 1 kB alone and adds `Vary: Accept-Encoding`. Brotli at
 * quality 5, not the middleware's 4: the console's entry script comes out 6% smaller (4 is larger
 * than gzip) for about 1 ms more per 100 kB.
 *
 * BREACH (a secret's value guessed from compressed sizes of responses that also reflect the
 * attacker's input) needs the victim's browser to send credentialed requests another site chose: the
 * session and CSRF cookies are SameSite=Strict and API tokens travel in the Authorization header, so
 * no cross-site request carries them; and the only answers holding a secret (a login's token, a new
 * API token, shown once) reflect nothing a third party sets. Hence one rule for all JSON.
 */
export function compressResponses(): RequestHandler {
  return compression({
    brotli: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } },
    filter: (req: Request, res: Response) => !asIs(res) && compression.filter(req, res),
  });
}
