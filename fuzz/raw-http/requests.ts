import zlib from 'node:zlib';
import type { WireRequest } from './exchange';
import type { Random } from './random';

/**
 * Hostile HTTP/1.1 requests as bytes. Text here is a latin1 string, one character per byte, so a
 * raw `\xff` is one byte on the wire and UTF-8 text is written out as its bytes (`utf8`).
 */

/** What one target takes: the route templates to fill in and the headers that authenticate there. */
export interface FuzzTarget {
  name: string;
  port: number;
  paths: string[];
  /** Header lines (`Name: value`) of one way to call the target, valid or not. */
  credentials(r: Random): string[];
}

/** UTF-8 bytes of `text` as a latin1 string. */
export const utf8 = (text: string) => Buffer.from(text, 'utf8').toString('latin1');

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'];
const BAD_METHODS = ['FOO', 'get', 'G\x00T', 'GE T', 'TRACE', 'CONNECT', 'PRI', 'M'.repeat(64), ''];
const VERSIONS: [number, string][] = [
  [40, 'HTTP/1.1'],
  [4, 'HTTP/1.0'],
  [1, 'HTTP/2.0'],
  [1, 'HTTP/9.9'],
  [1, 'HTTP/1'],
  [1, 'HTTPS/1.1'],
  [1, 'http/1.1'],
  [1, ''],
];

/** Path segments and query values that are not what a schema expects, percent-encoded or raw. */
const HOSTILE_TEXT = [
  '%ff',
  '%FF%FE',
  '%C0%AF',
  '%C0%80',
  '%E0%80%AF',
  '%F0%80%80%AF',
  '%ED%A0%80',
  '%F4%90%80%80',
  '%C3',
  '%00',
  'a%00b',
  '%2500',
  '%252e%252e%252f',
  '%252F',
  '%2e%2e',
  '..',
  '..%2f..%2f',
  '%2F',
  '%',
  '%%',
  '%zz',
  '%f',
  '%C3%A9',
  '%F0%9F%92%A9',
  '%E2%80%AE',
  '%20',
  '+',
  ';',
  '%3F',
  '%23',
  '\xff',
  '\x80',
  utf8('\u00e9'),
  ' ',
  '\t',
  '\x00',
  '\x7f',
  '-1',
  '0',
  '99999999999999999999',
  '1e309',
  'NaN',
  'null',
  '__proto__',
  'constructor',
  '00000000-0000-4000-8000-000000000000',
];
const QUERY_KEYS = [
  'page',
  'limit',
  'sort',
  'cursor',
  'format',
  'search',
  'filter[project_code]',
  'filter%5Bseverity%5D',
  'search[name]',
  'filter[',
  'a[b][c]',
  '__proto__',
  '%ff',
  'page[]',
  '',
];

const HEADER_NAMES = [
  'X-Foo',
  'Accept',
  'Accept-Language',
  'Accept-Encoding',
  'User-Agent',
  'Origin',
  'Referer',
  'Cookie',
  'X-Request-Id',
  'X-Forwarded-For',
  'X-Forwarded-Proto',
  'Forwarded',
  'traceparent',
  'tracestate',
  'If-None-Match',
  'Range',
  'Expect',
  'Upgrade',
  'TE',
  'Trailer',
  'X-CSRF-Token',
  'X-Bulwark-Client-Ip',
  'X\xffBad',
  'X Bad',
  ':path',
  'X-' + 'n'.repeat(300),
];
const HEADER_VALUES = [
  '\xff\xfe',
  '\xc3\x28',
  '\xed\xa0\x80',
  utf8('caf\u00e9 \u65e5\u672c'),
  'a'.repeat(9000),
  'x'.repeat(20000),
  '\x00',
  '\x7f',
  '\x01',
  ' leading and trailing ',
  'folded\r\n continuation',
  '100-continue',
  'websocket',
  '00-' + '0'.repeat(32) + '-' + '0'.repeat(16) + '-01',
  '00-zz-zz-zz',
  '127.0.0.1, \xff',
  'bytes=0-,-1',
  '%ff',
  '<script>alert(1)</script>',
  '',
];
const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'application/json; charset=\xff',
  'application/json;;;charset',
  'text/plain',
  'multipart/form-data; boundary=x',
  'application/x-www-form-urlencoded',
  '\xff/\xfe',
  '*/*',
];
const CONTENT_ENCODINGS = ['gzip', 'deflate', 'br', 'identity', 'gzip, gzip', 'x-unknown', '\xff', 'GZIP'];

const JSON_KEYS = ['name', 'code', 'ids', 'username', 'password', 'settings', 'url', 'value', 'tags', 'type', 'filter'];
const JSON_VALUES: unknown[] = [
  'text',
  '\u0000',
  '\ud800',
  '\u202e',
  'x'.repeat(70000),
  -1,
  0,
  2147483648,
  1e308,
  true,
  null,
  [],
  {},
  ['\u0000'],
  { url: 'http://127.0.0.1:1/' },
];

/** A body: JSON of hostile values, JSON that does not parse, or bytes that are not text. */
function body(r: Random): string {
  return r.weighted<() => string>([
    [
      6,
      () => {
        const o: Record<string, unknown> = {};
        for (let i = r.int(4); i >= 0; i--) o[r.pick(JSON_KEYS)] = r.pick(JSON_VALUES);
        if (r.chance(0.1)) Object.defineProperty(o, '__proto__', { value: { admin: true }, enumerable: true });
        return utf8(JSON.stringify(o));
      },
    ],
    [1, () => '{"name":'],
    [1, () => '{"a":}'],
    [1, () => '\xef\xbb\xbf{"name":"bom"}'],
    [1, () => '{"name":"\xff\xfe"}'],
    [1, () => '\xff\xfe{\x00"\x00}\x00'],
    [1, () => '['.repeat(50000) + ']'.repeat(50000)],
    [1, () => '{"a":'.repeat(20000) + '1' + '}'.repeat(20000)],
    [1, () => ''],
    [1, () => zlib.gzipSync('{"name":"gzipped"}').toString('latin1')],
  ])();
}

function fillPath(r: Random, template: string): string {
  let path = template.replace(/\{[^}]+\}/g, () =>
    r.weighted<() => string>([
      [3, () => r.pick(HOSTILE_TEXT)],
      [1, () => `${r.hex(4)}-${r.hex(2)}-4${r.hex(2).slice(1)}-8${r.hex(2).slice(1)}-${r.hex(6)}`],
      [1, () => 'x'.repeat(r.pick([300, 3000]))],
    ])(),
  );
  if (r.chance(0.05)) path = path.replace(/\/[^/]*$/, `/${r.pick(HOSTILE_TEXT)}`);
  if (r.chance(0.03)) path = r.pick(['*', '', 'http://evil.example/api/v1/users', '//api/v1/users', path + '#x']);
  if (r.chance(0.4)) {
    const params = Array.from({ length: 1 + r.int(3) }, () => `${r.pick(QUERY_KEYS)}=${r.pick(HOSTILE_TEXT)}`);
    path += `?${params.join(r.pick(['&', '&', ';', '&&']))}`;
  }
  return path;
}

/** How the body goes on the wire: its framing headers and the pieces after the head. */
function framing(r: Random, payload: string): { headers: string[]; pieces: string[]; abort: boolean } {
  const chunk = (s: string) => `${s.length.toString(16)}\r\n${s}\r\n`;
  return r.weighted<() => { headers: string[]; pieces: string[]; abort: boolean }>([
    [10, () => ({ headers: [`Content-Length: ${payload.length}`], pieces: [payload], abort: false })],
    [3, () => ({ headers: [], pieces: [], abort: false })],
    [
      4,
      () => ({
        headers: ['Transfer-Encoding: chunked'],
        pieces: [chunk(payload.slice(0, 7)), chunk(payload.slice(7)), '0\r\n\r\n'],
        abort: false,
      }),
    ],
    [
      2,
      () => ({
        headers: [
          `Content-Length: ${r.pick(['99999999999999999999', '-1', '1e3', '0x10', ' 5', '5, 6', '+5', 'abc', '', '1000000000'])}`,
        ],
        pieces: [payload],
        abort: false,
      }),
    ],
    [1, () => ({ headers: ['Content-Length: 5', 'Content-Length: 6'], pieces: ['abcdef'], abort: false })],
    [
      1,
      () => ({
        headers: ['Content-Length: 4', 'Transfer-Encoding: chunked'],
        pieces: ['0\r\n\r\n'],
        abort: false,
      }),
    ],
    [
      2,
      () => ({
        headers: ['Transfer-Encoding: chunked'],
        pieces: [
          r.pick([
            'zz\r\nab\r\n0\r\n\r\n',
            '-1\r\n',
            'ffffffffffffffffffff\r\n',
            `5;${'e'.repeat(20000)}\r\n`,
            '5\r\nabcdeXX0\r\n\r\n',
            '0\r\nX-Trailer: \xff\r\n\r\n',
          ]),
        ],
        abort: false,
      }),
    ],
    [
      1,
      () => ({
        headers: [
          `Transfer-Encoding: ${r.pick(['gzip, chunked', 'chunked, gzip', 'identity', 'chunked\xff', 'Chunked'])}`,
        ],
        pieces: [chunk(payload), '0\r\n\r\n'],
        abort: false,
      }),
    ],
    // Cut short: a declared length never reached, or a chunked body without its last chunk, the client waiting.
    [1, () => ({ headers: [`Content-Length: ${payload.length + 100}`], pieces: [payload], abort: false })],
    [1, () => ({ headers: ['Transfer-Encoding: chunked'], pieces: [chunk(payload)], abort: false })],
    // Cut short by a client that goes away.
    [2, () => ({ headers: [`Content-Length: ${payload.length + 100}`], pieces: [payload], abort: true })],
    [1, () => ({ headers: ['Transfer-Encoding: chunked'], pieces: [chunk(payload)], abort: true })],
    // Over every body limit, streamed in chunks.
    [
      1,
      () => ({
        headers: ['Transfer-Encoding: chunked'],
        pieces: [...Array.from({ length: 18 }, () => chunk('x'.repeat(64 * 1024))), '0\r\n\r\n'],
        abort: false,
      }),
    ],
  ])();
}

/** One hostile request for `target`: a method, a path from its routes, headers and a body, each perhaps malformed. */
export function fuzzRequest(r: Random, target: FuzzTarget): WireRequest {
  const method = r.chance(0.05) ? r.pick(BAD_METHODS) : r.pick(METHODS);
  const path = fillPath(r, r.pick(target.paths));
  const eol = r.chance(0.03) ? r.pick(['\n', '\r', '\r\r\n']) : '\r\n';
  const headers: string[] = [];
  if (!r.chance(0.05)) headers.push(`Host: ${r.chance(0.95) ? 'localhost' : r.pick(HEADER_VALUES)}`);
  if (r.chance(0.7)) headers.push(...target.credentials(r));
  const hasBody = method !== 'GET' && method !== 'HEAD' ? r.chance(0.8) : r.chance(0.1);
  let abort = false;
  let pieces: string[] = [];
  if (hasBody) {
    let payload = body(r);
    if (r.chance(0.8)) headers.push(`Content-Type: ${r.chance(0.7) ? 'application/json' : r.pick(CONTENT_TYPES)}`);
    if (r.chance(0.08)) {
      const encoding = r.pick(CONTENT_ENCODINGS);
      headers.push(`Content-Encoding: ${encoding}`);
      if (encoding === 'gzip' && r.chance(0.5))
        payload = zlib.gzipSync(Buffer.from(payload, 'latin1')).toString('latin1');
    }
    const f = framing(r, payload);
    headers.push(...f.headers);
    pieces = f.pieces;
    abort = f.abort;
  }
  for (let i = r.chance(0.4) ? r.int(4) : 0; i > 0; i--)
    headers.push(`${r.pick(HEADER_NAMES)}: ${r.pick(HEADER_VALUES)}`);
  if (r.chance(0.05)) headers.push('Expect: 100-continue');
  if (r.chance(0.3)) headers.push('Connection: close');
  const order = r.chance(0.1) ? r.shuffle(headers) : headers;
  const head = `${method} ${path}${r.chance(0.03) ? '' : ' '}${r.weighted(VERSIONS)}${eol}${order.map((h) => `${h}${eol}`).join('')}${eol}`;
  // The head sometimes arrives in two pieces, as a slow client sends it.
  const split = r.chance(0.1) ? 1 + r.int(Math.max(1, head.length - 1)) : head.length;
  return {
    pieces: [head.slice(0, split), head.slice(split), ...pieces]
      .filter((p) => p.length > 0)
      .map((p) => Buffer.from(p, 'latin1')),
    abort,
  };
}
