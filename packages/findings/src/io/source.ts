import * as fs from 'node:fs';

/** Random access to the report's bytes, so large arrays can be re-read instead of kept in memory. */
export interface ByteSource {
  readonly size: number;
  read(position: number, length: number): Buffer;
  close(): void;
}

export class BufferSource implements ByteSource {
  constructor(private readonly buf: Buffer) {}
  get size(): number {
    return this.buf.length;
  }
  read(position: number, length: number): Buffer {
    return this.buf.subarray(position, Math.min(this.buf.length, position + length));
  }
  close(): void {}
}

export class FileSource implements ByteSource {
  private fd: number | undefined;
  readonly size: number;
  constructor(path: string) {
    this.fd = fs.openSync(path, 'r');
    this.size = fs.fstatSync(this.fd).size;
  }
  read(position: number, length: number): Buffer {
    if (this.fd === undefined) throw new Error('source closed');
    const len = Math.max(0, Math.min(length, this.size - position));
    const buf = Buffer.allocUnsafe(len);
    let done = 0;
    while (done < len) {
      const n = fs.readSync(this.fd, buf, done, len - done, position + done);
      if (n === 0) break;
      done += n;
    }
    return done === len ? buf : buf.subarray(0, done);
  }
  close(): void {
    if (this.fd !== undefined) fs.closeSync(this.fd);
    this.fd = undefined;
  }
}

/** Bytes to skip at the start: a UTF-8 byte order mark, which some Windows tools write. */
export function bomLength(source: ByteSource): number {
  const head = source.read(0, 3);
  return head.length === 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
}

/**
 * Scout Suite writes its results as a script its HTML report loads: `scoutsuite_results =` and then
 * the JSON document. The length of that prefix (0 for any other file), so the JSON can be read past it.
 */
export function scriptPrefixLength(head: Buffer): number {
  const m = /^(?:\uFEFF)?\s*scoutsuite_results\s*=\s*/.exec(head.toString('utf8'));
  return m ? Buffer.byteLength(m[0]) : 0;
}

/** The bytes of another source from `offset` on. */
export class OffsetSource implements ByteSource {
  readonly size: number;
  constructor(
    private readonly inner: ByteSource,
    private readonly offset: number,
  ) {
    this.size = Math.max(0, inner.size - offset);
  }
  read(position: number, length: number): Buffer {
    return this.inner.read(this.offset + position, Math.min(length, this.size - position));
  }
  close(): void {
    this.inner.close();
  }
}
