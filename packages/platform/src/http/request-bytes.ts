import { isUtf8 } from 'node:buffer';
import type { RequestHandler } from 'express';
import { AppError, FieldProblem } from '../errors';

const NOT_UTF8_URL = 'is not valid percent-encoded UTF-8';

/** Whether percent-decoding gives UTF-8: every `%` starts two hex digits, and the bytes are neither overlong nor surrogates. */
function decodesAsUtf8(text: string): boolean {
  try {
    decodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * What is wrong with a request's bytes before any schema reads it: a path or query that does not
 * percent-decode to UTF-8, a header value whose bytes are not UTF-8. Node hands header values over
 * as latin1, one character per byte, so their bytes are at hand. A `%00` decodes and is left to the
 * route's schemas, which name the parameter.
 */
export function requestByteProblems(url: string, rawHeaders: string[]): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const at = url.indexOf('?');
  if (!decodesAsUtf8(at < 0 ? url : url.slice(0, at))) problems.push({ field: 'path', problem: NOT_UTF8_URL });
  if (at >= 0 && !decodesAsUtf8(url.slice(at + 1))) problems.push({ field: 'query', problem: NOT_UTF8_URL });
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if (!isUtf8(Buffer.from(rawHeaders[i + 1], 'latin1')))
      problems.push({ field: `headers.${rawHeaders[i].toLowerCase()}`, problem: 'is not valid UTF-8' });
  }
  return problems;
}

/** Refuses a request whose path, query or headers are not UTF-8 (400 naming each part), before routing reads them. */
export function requestBytes(): RequestHandler {
  return (req, _res, next) => {
    const problems = requestByteProblems(req.originalUrl, req.rawHeaders);
    if (problems.length === 0) return next();
    next(
      new AppError(
        'invalid_request',
        `Malformed request: ${problems.map((p) => `${p.field} ${p.problem}`).join('; ')}`,
        problems,
      ),
    );
  };
}
