import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { AppError } from '../errors';
import { processAlive } from '../process';

/**
 * An uploaded body as the handler receives it: a file of its own (owner-only, in the system's
 * temporary folder), removed once the handler has answered; its size and sha256 were counted as it
 * streamed in, so nothing ever holds the body whole.
 */
export interface UploadedFile {
  path: string;
  size: number;
  /** Hex sha256 of the bytes (after any Content-Encoding was undone). */
  sha256: string;
}

declare module 'express-serve-static-core' {
  interface Request {
    uploaded?: UploadedFile;
  }
}

const tooLarge = () => new AppError('payload_too_large', 'Request body is too large');

/** Content-Encoding as body-parser undoes it; anything else is refused as express.raw did. */
function decoderFor(encoding: string): zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress | null | undefined {
  switch (encoding) {
    case '':
    case 'identity':
      return null;
    case 'gzip':
      return zlib.createGunzip();
    case 'deflate':
      return zlib.createInflate();
    case 'br':
      return zlib.createBrotliDecompress();
    default:
      return undefined;
  }
}

const UPLOAD_PREFIX = 'bulwark-upload-';

/**
 * Removes the upload files a killed process left in the temporary folder (a SIGKILL mid-upload
 * skips every cleanup): those named after a process that is gone. Files of live processes, this
 * one's included, stay. Answers how many were removed.
 */
export function sweepAbandonedUploads(): number {
  const dir = os.tmpdir();
  let removed = 0;
  for (const name of fs.readdirSync(dir)) {
    if (!name.startsWith(UPLOAD_PREFIX)) continue;
    const pid = Number(name.slice(UPLOAD_PREFIX.length).split('-')[0]);
    if (processAlive(pid)) continue;
    try {
      fs.rmSync(path.join(dir, name), { force: true });
      removed++;
    } catch {
      // Not ours to remove (another user's, or a folder): left alone.
    }
  }
  return removed;
}

/** Removes an upload's file; a file already gone is fine, and a file that cannot be removed is no reason to fail the request. */
export function removeUpload(file: UploadedFile | undefined): Promise<void> {
  return file ? fs.promises.rm(file.path, { force: true }).catch(() => undefined) : Promise.resolve();
}

/**
 * Streams the request body into a temporary file, counting and hashing it on the way. A body over
 * `maxBytes` (declared or streamed, chunked too, counted after decoding) is refused with 413 as soon
 * as it passes the limit: what is still coming is read and dropped until the answer is out, then the
 * connection closes. The file is removed on every path that does not reach the handler, including a
 * client that goes away mid-body; after the handler, the route removes it.
 */
export function receiveUpload(maxBytes: number): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    if (Number(req.header('content-length') ?? '0') > maxBytes) {
      res.setHeader('connection', 'close');
      next(tooLarge());
      return;
    }
    const decoder = decoderFor((req.header('content-encoding') ?? '').trim().toLowerCase());
    if (decoder === undefined) {
      next(new AppError('invalid_request', 'Unsupported body encoding'));
      return;
    }
    // Named after this process, so a later start can tell an abandoned file from one being written.
    const file = path.join(os.tmpdir(), `${UPLOAD_PREFIX}${process.pid}-${randomUUID()}`);
    const out = fs.createWriteStream(file, { flags: 'wx', mode: 0o600 });
    const hash = createHash('sha256');
    const source: Readable = decoder ? req.pipe(decoder) : req;
    let size = 0;
    let settled = false;

    // The file is removed once the stream has closed it (an open still in flight would create it again).
    const discard = () =>
      new Promise<void>((resolve) => {
        if (out.closed) resolve();
        else out.once('close', () => resolve());
        out.destroy();
      }).then(() => fs.promises.rm(file, { force: true }));

    const stop = (err: unknown) => {
      if (settled) return;
      settled = true;
      if (decoder) {
        req.unpipe(decoder);
        decoder.destroy();
      }
      source.removeAllListeners('data');
      // The rest of the body is read and dropped; the connection ends after the answer.
      if (err !== undefined) req.resume();
      void discard().finally(() => {
        if (err === undefined) return; // the client went away: nobody to answer
        res.setHeader('connection', 'close');
        next(err);
      });
    };

    source.on('data', (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > maxBytes) {
        stop(tooLarge());
        return;
      }
      hash.update(chunk);
      if (!out.write(chunk)) source.pause();
    });
    out.on('drain', () => {
      if (!settled) source.resume();
    });
    source.on('end', () => {
      if (!settled) out.end();
    });
    // A client that went away (the body incomplete) is no error to answer; a body that does not decode is the caller's.
    const undecodable = () =>
      new AppError('invalid_request', 'The request body does not decode as its Content-Encoding says', [
        { field: 'body', problem: 'is not validly encoded' },
      ]);
    req.on('error', (err) => stop(req.complete ? err : undefined));
    if (decoder) source.on('error', () => stop(req.complete || !req.destroyed ? undecodable() : undefined));
    out.on('error', (err) => stop(err));
    out.on('close', () => {
      if (settled) return;
      settled = true;
      req.uploaded = { path: file, size, sha256: hash.digest('hex') };
      next();
    });
    req.on('close', () => {
      // Closed before the body was complete: the client aborted.
      if (!req.complete) stop(undefined);
    });
  };
}
