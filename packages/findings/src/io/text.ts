import { InputError } from '../errors';
import { ByteSource, bomLength } from './source';

const HEAD_BYTES = 1 << 16;
const CHUNK_BYTES = 1 << 20;
const MAX_LINE_BYTES = 16 << 20;

/**
 * A plain-text report (bundler-audit, SPDX tag-value): its head for detection, and its lines read
 * from the source a chunk at a time, so a large report is never held whole.
 */
export class TextDocument {
  readonly head: string;

  constructor(private readonly source: ByteSource) {
    this.head = source.read(bomLength(source), HEAD_BYTES).toString('utf8');
  }

  /** Lines without their `\n` or `\r\n`. */
  *lines(): Generator<string> {
    let pos = bomLength(this.source);
    let rest = Buffer.alloc(0);
    while (pos < this.source.size) {
      const chunk = this.source.read(pos, CHUNK_BYTES);
      if (chunk.length === 0) break;
      pos += chunk.length;
      let buf = rest.length ? Buffer.concat([rest, chunk]) : chunk;
      let nl: number;
      while ((nl = buf.indexOf(0x0a)) >= 0) {
        yield buf.subarray(0, nl).toString('utf8').replace(/\r$/, '');
        buf = buf.subarray(nl + 1);
      }
      if (buf.length > MAX_LINE_BYTES) throw new InputError(`a line longer than ${MAX_LINE_BYTES >> 20} MiB`);
      rest = Buffer.from(buf);
    }
    if (rest.length) yield rest.toString('utf8').replace(/\r$/, '');
  }
}
