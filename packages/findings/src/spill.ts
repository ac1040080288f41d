import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Bytes gathered before one write: a record per call would be a system call per finding. */
const BUFFER_BYTES = 1 << 20;

/**
 * Texts set aside while a report streams, read back by record number. Up to a mebibyte stays in
 * memory; beyond it the texts go to a temporary file that is unlinked as soon as it is open, so a
 * process killed mid-parse leaves nothing behind and only the page cache holds the bytes.
 */
export class TextSpill {
  private fd: number | undefined;
  private buffer = Buffer.allocUnsafe(BUFFER_BYTES);
  private buffered = 0;
  /** Bytes in the file. */
  private written = 0;
  private readonly offsets: number[] = [];
  private readonly lengths: number[] = [];

  /** Sets a text aside; the answer is its record number. */
  append(text: string): number {
    const bytes = Buffer.byteLength(text);
    if (this.buffered + bytes > this.buffer.length) this.flush();
    this.offsets.push(this.written + this.buffered);
    this.lengths.push(bytes);
    if (bytes > this.buffer.length) {
      this.written += fs.writeSync(this.file(), text, this.written, 'utf8');
    } else {
      this.buffer.write(text, this.buffered, 'utf8');
      this.buffered += bytes;
    }
    return this.offsets.length - 1;
  }

  read(record: number): string {
    const offset = this.offsets[record];
    const length = this.lengths[record];
    if (offset >= this.written)
      return this.buffer.toString('utf8', offset - this.written, offset - this.written + length);
    const bytes = Buffer.allocUnsafe(length);
    let done = 0;
    while (done < length) {
      const n = fs.readSync(this.file(), bytes, done, length - done, offset + done);
      if (n === 0) throw new Error('the spill file ended early');
      done += n;
    }
    return bytes.toString('utf8');
  }

  close(): void {
    if (this.fd !== undefined) fs.closeSync(this.fd);
    this.fd = undefined;
    this.buffer = Buffer.alloc(0);
  }

  private flush(): void {
    if (this.buffered === 0) return;
    let done = 0;
    while (done < this.buffered) {
      done += fs.writeSync(this.file(), this.buffer, done, this.buffered - done, this.written + done);
    }
    this.written += this.buffered;
    this.buffered = 0;
  }

  private file(): number {
    if (this.fd === undefined) {
      const name = path.join(os.tmpdir(), `bulwark-spill-${process.pid}-${randomUUID()}`);
      this.fd = fs.openSync(name, 'wx+', 0o600);
      fs.unlinkSync(name);
    }
    return this.fd;
  }
}
