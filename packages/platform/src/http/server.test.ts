import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { expect } from 'chai';
import { z } from 'zod';
import { spawnSync } from 'node:child_process';
import {
  AppError,
  createServiceApp,
  HandlerInput,
  InternalAuth,
  INTERNAL_AUTH_HEADER,
  listen,
  markRecorded,
  RouteSpec,
  RunningHttpServer,
  ServerErrorAnswer,
  sweepAbandonedUploads,
  UploadedFile,
} from '../index';
import type { Json } from '@bulwark/testkit';

const SECRET = 'a-test-secret-of-at-least-thirty-two-chars';
const BODY_LIMIT = 2048;
const UPLOAD_LIMIT = 4096;

const routes: RouteSpec[] = [
  {
    operationId: 'echo',
    method: 'post',
    path: '/echo/{name}',
    service: 'demo',
    tag: 'Demo',
    summary: 'Echo',
    access: { kind: 'authenticated' },
    request: {
      params: z.object({ name: z.string() }),
      query: z.object({ q: z.string().optional() }).strict(),
      body: z.object({ text: z.string(), tags: z.array(z.string()).optional() }).strict(),
    },
  },
  {
    operationId: 'upload',
    method: 'post',
    path: '/upload',
    service: 'demo',
    tag: 'Demo',
    summary: 'Upload',
    access: { kind: 'authenticated' },
    upload: { maxBytes: UPLOAD_LIMIT },
  },
  {
    operationId: 'explode',
    method: 'get',
    path: '/explode/{how}',
    service: 'demo',
    tag: 'Demo',
    summary: 'Fails',
    access: { kind: 'authenticated' },
    request: { params: z.object({ how: z.string() }) },
  },
];

/** What the `explode` route throws, by its path parameter. */
function explode(how: string): never {
  if (how === 'internal') throw new Error('connect to postgres://bulwark:s3cret-password@db failed');
  if (how === 'unavailable') throw new AppError('unavailable', 'The scanning service is unavailable');
  if (how === 'recorded') throw markRecorded(new AppError('unavailable', 'The directory cannot be reached'));
  throw new AppError('conflict', 'not a server error');
}

/** Sends `chunks` with chunked transfer encoding (no Content-Length), as a client streaming a body does. */
function postChunked(
  url: string,
  token: string,
  chunks: Buffer[],
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Json }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json', [INTERNAL_AUTH_HEADER]: token, ...headers } },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (d: Buffer) => parts.push(d));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(parts).toString('utf8')) }),
        );
      },
    );
    // The server may stop reading once it has refused the body; the answer is what counts.
    req.on('error', (err) => (req.writableEnded ? undefined : reject(err)));
    for (const c of chunks) req.write(c);
    req.end();
  });
}

/**
 * Writes `head` and `body` (latin1: one character per byte) over a TCP connection and reads the
 * answer's status and JSON body; with `abort`, goes away after the body instead, answering nothing.
 */
function overSocket(
  url: string,
  head: string,
  body = '',
  abort = false,
): Promise<{ status: number; body: Json } | undefined> {
  return new Promise((resolve, reject) => {
    const { port } = new URL(url);
    const socket = net.connect(Number(port), '127.0.0.1');
    let text = '';
    socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => {
      const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
      const at = text.indexOf('\r\n\r\n');
      resolve(m ? { status: Number(m[1]), body: JSON.parse(text.slice(at + 4)) } : undefined);
    });
    socket.write(Buffer.from(`${head.replace(/\n/g, '\r\n')}\r\n${body}`, 'latin1'), () => {
      if (abort) socket.destroy();
    });
  });
}

describe('a service HTTP app', () => {
  let server: RunningHttpServer;
  const serverErrors: ServerErrorAnswer[] = [];
  // A token per request: one made when the file loads may have expired by the time a long run reaches these tests.
  const gateway = new InternalAuth(SECRET, 'gateway');
  // Uploads land in the system's temporary folder: this run's own, so what is left there is this test's.
  const previousTmp = process.env.TMPDIR;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'service-app-test-'));
  const leftovers = () => fs.readdirSync(tmp);

  before(async () => {
    process.env.TMPDIR = tmp;
    const app = createServiceApp({
      service: 'demo',
      routes,
      internalAuth: new InternalAuth(SECRET, 'demo'),
      readiness: async () => ({}),
      bodyLimitBytes: BODY_LIMIT,
      exposeMetrics: false,
      handlers: {
        echo: async (input: HandlerInput) => ({ params: input.params, body: input.body }),
        upload: async ({ body: file }: HandlerInput<object, object, UploadedFile>) => {
          return {
            bytes: file.size,
            sha256: file.sha256,
            sameOnDisk: createHash('sha256').update(fs.readFileSync(file.path)).digest('hex') === file.sha256,
          };
        },
        explode: async (input: HandlerInput) => explode(input.params.how),
      },
      onServerError: (answer) => serverErrors.push(answer),
    });
    server = await listen(app, '127.0.0.1', 0);
  });
  after(async () => {
    await server.close(1000);
    // Assigning undefined would set the string "undefined", and every later os.tmpdir() would be a relative path.
    if (previousTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previousTmp;
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('refuses a chunked JSON body over its own limit with 413 in the error model', async () => {
    const res = await postChunked(`${server.url}/echo/a`, gateway.forService(), [
      Buffer.from('{"text":"'),
      Buffer.alloc(BODY_LIMIT, 'x'),
      Buffer.from('"}'),
    ]);
    expect(res.status).to.equal(413);
    expect(res.body.error.code).to.equal('payload_too_large');
  });

  it('refuses a chunked upload over the route\u2019s maxBytes with 413, and takes one within it', async () => {
    const over = await postChunked(`${server.url}/upload`, gateway.forService(), [
      Buffer.alloc(UPLOAD_LIMIT),
      Buffer.alloc(1),
    ]);
    expect(over.status).to.equal(413);
    expect(over.body.error.code).to.equal('payload_too_large');
    const within = await postChunked(`${server.url}/upload`, gateway.forService(), [
      Buffer.alloc(UPLOAD_LIMIT / 2),
      Buffer.alloc(UPLOAD_LIMIT / 2),
    ]);
    const sha256 = createHash('sha256').update(Buffer.alloc(UPLOAD_LIMIT)).digest('hex');
    expect(within).to.deep.equal({ status: 200, body: { bytes: UPLOAD_LIMIT, sha256, sameOnDisk: true } });
    expect(leftovers(), 'temporary files after the answers').to.deep.equal([]);
  });

  it('undoes a gzip Content-Encoding before counting and hashing, and refuses an unknown encoding or a body that does not decode with 400', async () => {
    const text = Buffer.from('{"report":true}');
    const res = await postChunked(`${server.url}/upload`, gateway.forService(), [zlib.gzipSync(text)], {
      'content-encoding': 'gzip',
    });
    expect(res).to.deep.equal({
      status: 200,
      body: { bytes: text.length, sha256: createHash('sha256').update(text).digest('hex'), sameOnDisk: true },
    });
    expect(
      (await postChunked(`${server.url}/upload`, gateway.forService(), [text], { 'content-encoding': 'compress' }))
        .status,
    ).to.equal(400);
    const bad = await postChunked(`${server.url}/upload`, gateway.forService(), [text], { 'content-encoding': 'gzip' });
    expect(bad.status).to.equal(400);
    expect(bad.body.error.details).to.deep.equal([{ field: 'body', problem: 'is not validly encoded' }]);
    expect(leftovers()).to.deep.equal([]);
  });

  it('removes the temporary file of an upload whose client goes away mid-body', async () => {
    const req = http.request(`${server.url}/upload`, {
      method: 'POST',
      headers: { [INTERNAL_AUTH_HEADER]: gateway.forService() },
    });
    req.on('error', () => undefined);
    req.write(Buffer.alloc(UPLOAD_LIMIT / 2));
    // The server has the file open once the first bytes arrived.
    const deadline = Date.now() + 5000;
    while (leftovers().length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(leftovers()).to.have.length(1);
    req.destroy();
    while (leftovers().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(leftovers()).to.deep.equal([]);
  });

  it('sweeps the upload files of processes that are gone, and keeps those of live ones', () => {
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    const files = [
      `bulwark-upload-${gone}-a`,
      'bulwark-upload-0b1e2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d',
      `bulwark-upload-${process.pid}-b`,
      'unrelated',
    ];
    for (const f of files) fs.writeFileSync(path.join(tmp, f), 'x');
    expect(sweepAbandonedUploads()).to.equal(2);
    expect(leftovers().sort()).to.deep.equal([`bulwark-upload-${process.pid}-b`, 'unrelated']);
    for (const f of leftovers()) fs.rmSync(path.join(tmp, f));
  });

  it('refuses the NUL character in a body string, an array item, a key, a query value and a path parameter, naming each field', async () => {
    const send = async (path: string, body: unknown) =>
      postChunked(`${server.url}${path}`, gateway.forService(), [Buffer.from(JSON.stringify(body))]);
    const cases: [string, unknown, string][] = [
      ['/echo/a', { text: 'a\u0000b' }, 'text'],
      ['/echo/a', { text: 'ok', tags: ['fine', '\u0000'] }, 'tags[1]'],
      ['/echo/a', { text: 'ok', ['x\u0000']: 1 }, 'body'],
      ['/echo/a?q=%00', { text: 'ok' }, 'q'],
      ['/echo/a%00b', { text: 'ok' }, 'name'],
    ];
    for (const [path, body, field] of cases) {
      const res = await send(path, body);
      expect(res.status, `${path} ${JSON.stringify(body)}`).to.equal(400);
      expect(res.body.error.code).to.equal('invalid_request');
      expect(res.body.error.details).to.deep.equal([
        {
          field,
          problem:
            field === 'body'
              ? 'has a key with the NUL character (U+0000)'
              : 'must not contain the NUL character (U+0000)',
        },
      ]);
    }
    expect(await send('/echo/a', { text: 'ok' })).to.deep.equal({
      status: 200,
      body: { params: { name: 'a' }, body: { text: 'ok' } },
    });
  });

  it('answers bytes that are not UTF-8 in the path, the query or a header with 400 naming the part, as the router would not', async () => {
    const token = gateway.forService();
    const cases: [string, string][] = [
      [`POST /echo/%ff HTTP/1.1\nHost: x\n${INTERNAL_AUTH_HEADER}: ${token}\nConnection: close\n`, 'path'],
      [`POST /echo/%C0%AF HTTP/1.1\nHost: x\n${INTERNAL_AUTH_HEADER}: ${token}\nConnection: close\n`, 'path'],
      [`POST /echo/a?q=%ED%A0%80 HTTP/1.1\nHost: x\n${INTERNAL_AUTH_HEADER}: ${token}\nConnection: close\n`, 'query'],
      [
        `POST /echo/a HTTP/1.1\nHost: x\nX-Note: \xff\xfe\n${INTERNAL_AUTH_HEADER}: ${token}\nConnection: close\n`,
        'headers.x-note',
      ],
      // Without the internal token as well: the bytes are looked at first.
      ['GET /explode/%ff HTTP/1.1\nHost: x\nConnection: close\n', 'path'],
      ['GET /echo/a HTTP/1.1\nHost: x\nContent-Length: 1e3\nConnection: close\n', 'headers.content-length'],
      [
        `POST /echo/a HTTP/1.1\nHost: x\nContent-Type: application/json\nTransfer-Encoding: chunked\n${INTERNAL_AUTH_HEADER}: ${token}\nConnection: close\n\nzz\r\n`,
        'body',
      ],
    ];
    for (const [head, field] of cases) {
      const res = await overSocket(server.url, head);
      expect(res?.status, head).to.equal(400);
      expect(
        res?.body.error.details.map((d: { field: string }) => d.field),
        head,
      ).to.deep.equal([field]);
    }
    expect(serverErrors, 'nothing of this is a server error').to.deep.equal([]);
  });

  it('takes a body its client cut short as the client\u2019s doing: no 5xx for the error log', async () => {
    const head = `POST /echo/a HTTP/1.1\nHost: x\nContent-Type: application/json\nContent-Length: 100\n${INTERNAL_AUTH_HEADER}: ${gateway.forService()}\n`;
    expect(await overSocket(server.url, head, '{"text":"cut', true)).to.equal(undefined);
    const chunked = `POST /upload HTTP/1.1\nHost: x\nTransfer-Encoding: chunked\n${INTERNAL_AUTH_HEADER}: ${gateway.forService()}\n`;
    expect(await overSocket(server.url, chunked, '5\r\nabcde\r\n', true)).to.equal(undefined);
    // Another request answered after both: the aborts were taken by then.
    const later = await postChunked(`${server.url}/echo/a`, gateway.forService(), [Buffer.from('{"text":"ok"}')]);
    expect(later.status).to.equal(200);
    expect(serverErrors).to.deep.equal([]);
  });

  it('tells the error log of each 5xx with the route-table path, the code and the request id, never the internal text', async () => {
    const get = async (how: string, requestId: string) => {
      const res = await fetch(`${server.url}/explode/${how}`, {
        headers: { [INTERNAL_AUTH_HEADER]: gateway.forService(), 'x-request-id': requestId },
      });
      return { status: res.status, text: await res.text() };
    };
    const internal = await get('internal', 'req-internal-1');
    expect(internal.status).to.equal(500);
    expect(internal.text).not.to.contain('s3cret-password');
    expect((await get('unavailable', 'req-unavailable-1')).status).to.equal(503);
    expect((await get('recorded', 'req-recorded-1')).status).to.equal(503);
    expect((await get('conflict', 'req-conflict-1')).status).to.equal(409);
    expect(serverErrors.map((a) => [a.status, a.error.code, a.route, a.requestId])).to.deep.equal([
      [500, 'internal', 'GET /explode/{how}', 'req-internal-1'],
      [503, 'unavailable', 'GET /explode/{how}', 'req-unavailable-1'],
    ]);
    expect(serverErrors[0].error.message).to.equal('Internal server error');
  });
});
