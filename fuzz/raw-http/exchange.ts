import net from 'node:net';

/** One request as bytes on the wire, sent in pieces so a chunked body arrives as chunks. */
export interface WireRequest {
  pieces: Buffer[];
  /** The client goes away once the pieces are out, before any answer: an aborted request. */
  abort: boolean;
}

export type Outcome = 'answered' | 'closed' | 'timeout' | 'aborted' | 'refused';

export interface ExchangeResult {
  outcome: Outcome;
  /** The final status (a 100 Continue is read past), when an answer came. */
  status?: number;
  /** The answer's status line, for the report. */
  statusLine?: string;
}

const STATUS_LINE = /^HTTP\/1\.[01] (\d{3})[^\r\n]*\r?\n/;

/** The first final status line in what the server sent so far, reading past interim 1xx answers. */
function finalStatus(text: string): { status: number; line: string } | undefined {
  let rest = text;
  for (;;) {
    const m = STATUS_LINE.exec(rest);
    if (!m) return undefined;
    const status = Number(m[1]);
    if (status >= 200) return { status, line: m[0].trim() };
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) return undefined;
    rest = rest.slice(end + 4);
  }
}

/**
 * Sends one request over a fresh TCP connection and waits for the status of its answer, the
 * connection's end or `timeoutMs`. The connection is never half-closed: Node's server takes a
 * client's FIN as an abort, which would hide how the request itself is answered.
 */
export function exchange(port: number, request: WireRequest, timeoutMs: number): Promise<ExchangeResult> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    let settled = false;
    const settle = (result: ExchangeResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => settle({ outcome: 'timeout' }), timeoutMs);
    socket.on('data', (d: Buffer) => {
      received += d.toString('latin1');
      const answer = finalStatus(received);
      if (answer) settle({ outcome: 'answered', status: answer.status, statusLine: answer.line });
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNREFUSED') settle({ outcome: 'refused' });
      else settle({ outcome: 'closed' });
    });
    socket.on('close', () => settle({ outcome: 'closed' }));
    socket.on('connect', () => {
      const send = (i: number) => {
        if (settled) return;
        if (i === request.pieces.length) {
          if (request.abort) settle({ outcome: 'aborted' });
          return;
        }
        socket.write(request.pieces[i], () => setImmediate(() => send(i + 1)));
      };
      send(0);
    });
  });
}

/**
 * Bytes as one line a shell replays: printable ASCII as is, CR and LF as `\r` and `\n`, everything
 * else (a quote and a backslash too) as `\xNN`, which `printf '%b'` turns back into the bytes.
 */
export function printable(pieces: Buffer[], max = 1500): string {
  const text = Buffer.concat(pieces)
    .toString('latin1')
    .replace(/[^\x20-\x7e]|['\\]/g, (c) =>
      c === '\r' ? '\\r' : c === '\n' ? '\\n' : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
    );
  return text.length > max ? `${text.slice(0, max)}... (${text.length - max} more characters)` : text;
}
