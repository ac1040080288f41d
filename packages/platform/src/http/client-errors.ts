import { AppError, ErrorCode } from '../errors';

/** What a framework layer raised about the request itself, as the caller is told it. */
export interface ClientRefusal {
  error: AppError;
  /**
   * A client that went away or a body too large: the client's doing, logged as a warning (a client
   * that went away has no answer to read, and a body limit is hit on purpose by whoever sends one).
   */
  warn: boolean;
}

/**
 * body-parser's (raw-body's) `type` of each error about the request body: the code, the message,
 * the problem of the field `body`, and whether it is worth a warning (the client's doing: a body cut
 * short or too large).
 */
const BODY_ERRORS: Record<string, [ErrorCode, string, string, boolean]> = {
  'entity.too.large': ['payload_too_large', 'Request body is too large', 'is too large', true],
  'request.aborted': [
    'invalid_request',
    'Request body was cut short: the client stopped sending it',
    'was cut short',
    true,
  ],
  'request.size.invalid': [
    'invalid_request',
    'Request body is not as long as its Content-Length says',
    'does not match Content-Length',
    true,
  ],
  'entity.parse.failed': ['invalid_request', 'Request body is not valid JSON', 'is not valid JSON', false],
  'encoding.unsupported': [
    'invalid_request',
    'Unsupported body encoding',
    'has an unsupported Content-Encoding',
    false,
  ],
  'charset.unsupported': ['invalid_request', 'Unsupported body encoding', 'has an unsupported charset', false],
};

/** The error code of each 4xx status a framework layer may raise; any other is `invalid_request`. */
const STATUS_CODES: Record<number, ErrorCode> = {
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  408: 'request_timeout',
  413: 'payload_too_large',
  431: 'headers_too_large',
};

/**
 * The request's own fault, told apart from an internal error: body-parser's errors by their `type`,
 * the router's undecodable path parameter (a URIError it marks 400), and any other error a framework
 * layer marks as a client error it may show (http-errors' `expose` with a 4xx status).
 */
export function clientRefusal(err: unknown): ClientRefusal | undefined {
  if (typeof err !== 'object' || err === null || err instanceof AppError) return undefined;
  const e = err as { type?: unknown; status?: unknown; expose?: unknown; message?: unknown };
  const body = typeof e.type === 'string' ? BODY_ERRORS[e.type] : undefined;
  if (body) {
    const [code, message, problem, warn] = body;
    return { error: new AppError(code, message, [{ field: 'body', problem }]), warn };
  }
  // Express's sendFile when the connection closed before the file was out.
  if ((err as { code?: unknown }).code === 'ECONNABORTED')
    return { error: new AppError('invalid_request', 'The client went away before the answer was sent'), warn: true };
  if (err instanceof URIError)
    return {
      error: new AppError('invalid_request', 'Malformed request: path is not valid percent-encoded UTF-8', [
        { field: 'path', problem: 'is not valid percent-encoded UTF-8' },
      ]),
      warn: false,
    };
  if (typeof e.status === 'number' && e.status >= 400 && e.status < 500 && e.expose === true) {
    return {
      error: new AppError(
        STATUS_CODES[e.status] ?? 'invalid_request',
        typeof e.message === 'string' ? e.message : 'Malformed request',
      ),
      warn: false,
    };
  }
  return undefined;
}

/** The part of the request each of Node's HTTP parser errors is about. */
const PARSER_ERROR_PARTS: Record<string, string> = {
  HPE_INVALID_METHOD: 'method',
  HPE_INVALID_URL: 'path',
  HPE_INVALID_CONSTANT: 'version',
  HPE_INVALID_VERSION: 'version',
  HPE_INVALID_HEADER_TOKEN: 'headers',
  HPE_UNEXPECTED_SPACE: 'headers',
  HPE_CR_EXPECTED: 'headers',
  HPE_LF_EXPECTED: 'headers',
  HPE_INVALID_CONTENT_LENGTH: 'headers.content-length',
  HPE_UNEXPECTED_CONTENT_LENGTH: 'headers.content-length',
  HPE_INVALID_TRANSFER_ENCODING: 'headers.transfer-encoding',
  HPE_INVALID_CHUNK_SIZE: 'body',
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 'body',
  HPE_INVALID_EOF_STATE: 'body',
};

/**
 * The answer to a request Node's parser refused (`clientError`), in the error model and naming the
 * part it could not parse; Node's own answer would be an empty 400.
 */
export function unparsableRequest(code: string | undefined): AppError {
  if (code === 'HPE_HEADER_OVERFLOW')
    return new AppError(
      'headers_too_large',
      'Request line and headers are too large (a query string this long cannot be taken)',
    );
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return new AppError('request_timeout', 'The request was not received in full in time');
  const part = code ? PARSER_ERROR_PARTS[code] : undefined;
  return part
    ? new AppError(
        'invalid_request',
        `Malformed HTTP request: the ${part.replace('headers.', 'header ')} cannot be parsed`,
        [{ field: part, problem: 'cannot be parsed' }],
      )
    : new AppError('invalid_request', 'Malformed HTTP request');
}
