import { InputError } from '../errors';
import { ByteSource, bomLength } from './source';

/**
 * JSON reading with bounded memory.
 *
 * A first pass scans the bytes (strings, brackets, depth) without building values. Arrays larger
 * than `lazyArrayBytes` that hold no other large array stay on disk: the rest of the document (the
 * "skeleton") is parsed with JSON.parse, and each large array becomes a `LazyArray` that re-reads
 * its elements one at a time when iterated. Each element is parsed with JSON.parse, which is several
 * times faster than a JavaScript tokenizer emitting events per token; that matters at 100,000 results.
 * A file with several top-level values (JSON lines) becomes a `LazyArray` of its values.
 */
export interface JsonLimits {
  lazyArrayBytes: number;
  maxDepth: number;
  maxStringBytes: number;
  /** The skeleton is held in memory whole; beyond this the report is refused. */
  maxSkeletonBytes: number;
  /** Bytes read from the file at a time. */
  chunkBytes: number;
}

export const DEFAULT_JSON_LIMITS: JsonLimits = {
  lazyArrayBytes: 1 << 20,
  maxDepth: 128,
  maxStringBytes: 16 << 20,
  maxSkeletonBytes: 64 << 20,
  chunkBytes: 1 << 22,
};
const LAZY_KEY = '\u0000bulwark-lazy';

interface ScanHandler {
  /** `depth` is the depth of the container just opened (1 for a top-level container). */
  open(isArray: boolean, pos: number, depth: number): void;
  /** `pos` is the closing bracket. */
  close(isArray: boolean, pos: number, depth: number): void;
  /** A complete value at depth 0, bytes [start, end). */
  top(start: number, end: number): void;
}

const Ch = {
  Quote: 0x22,
  Backslash: 0x5c,
  OpenBrace: 0x7b,
  CloseBrace: 0x7d,
  OpenBracket: 0x5b,
  CloseBracket: 0x5d,
  Comma: 0x2c,
  Space: 0x20,
  Tab: 0x09,
  Lf: 0x0a,
  Cr: 0x0d,
} as const;

/** Tracks strings and nesting only; values are validated later by JSON.parse. */
class JsonScanner {
  private depth = 0;
  private inString = false;
  private escaped = false;
  private stringStart = 0;
  private scalarStart = -1;
  private topStart = 0;
  private readonly kinds: boolean[] = [];

  constructor(
    private readonly h: ScanHandler,
    private readonly limits: JsonLimits,
  ) {}

  /** Scans buf[from, to); `offset` is the absolute position of buf[0]. */
  feed(buf: Buffer, from: number, to: number, offset: number): void {
    let i = from;
    while (i < to) {
      if (this.inString) {
        i = this.skipString(buf, i, to, offset);
        continue;
      }
      const c = buf[i];
      if (this.scalarStart >= 0) {
        if (
          c === Ch.Space ||
          c === Ch.Lf ||
          c === Ch.Cr ||
          c === Ch.Tab ||
          c === Ch.Comma ||
          c === Ch.OpenBrace ||
          c === Ch.OpenBracket ||
          c === Ch.Quote ||
          c === Ch.CloseBrace ||
          c === Ch.CloseBracket
        ) {
          this.h.top(this.scalarStart, offset + i);
          this.scalarStart = -1;
        } else {
          i++;
          continue;
        }
      }
      switch (c) {
        case Ch.Quote:
          this.inString = true;
          this.escaped = false;
          this.stringStart = offset + i;
          if (this.depth === 0) this.topStart = offset + i;
          break;
        case Ch.OpenBrace:
        case Ch.OpenBracket: {
          if (this.depth === 0) this.topStart = offset + i;
          this.depth++;
          if (this.depth > this.limits.maxDepth) {
            throw new InputError(`JSON nested deeper than ${this.limits.maxDepth} levels`);
          }
          const isArray = c === Ch.OpenBracket;
          this.kinds.push(isArray);
          this.h.open(isArray, offset + i, this.depth);
          break;
        }
        case Ch.CloseBrace:
        case Ch.CloseBracket: {
          const isArray = this.kinds.pop();
          if (isArray === undefined || isArray !== (c === Ch.CloseBracket)) {
            throw new InputError(`invalid JSON: unbalanced '${String.fromCharCode(c)}' at byte ${offset + i}`);
          }
          this.h.close(isArray, offset + i, this.depth);
          this.depth--;
          if (this.depth === 0) this.h.top(this.topStart, offset + i + 1);
          break;
        }
        case Ch.Space:
        case Ch.Lf:
        case Ch.Cr:
        case Ch.Tab:
        case Ch.Comma:
          break;
        default:
          if (this.depth === 0) this.scalarStart = offset + i;
      }
      i++;
    }
  }

  /** Jumps to the closing quote with indexOf; returns the next position to scan. */
  private skipString(buf: Buffer, i: number, to: number, offset: number): number {
    if (this.escaped) {
      this.escaped = false;
      i++;
      if (i >= to) return i;
    }
    let from = i;
    for (;;) {
      const q = buf.indexOf(Ch.Quote, from);
      const end = q < 0 || q >= to ? to : q;
      let k = end - 1;
      while (k >= from && buf[k] === Ch.Backslash) k--;
      const oddBackslashes = (end - 1 - k) % 2 === 1;
      if (end === to) {
        this.escaped = oddBackslashes;
        this.checkStringLength(offset + to);
        return to;
      }
      if (!oddBackslashes) {
        this.inString = false;
        this.checkStringLength(offset + end);
        if (this.depth === 0) this.h.top(this.topStart, offset + end + 1);
        return end + 1;
      }
      from = end + 1;
    }
  }

  private checkStringLength(pos: number): void {
    if (pos - this.stringStart > this.limits.maxStringBytes) {
      throw new InputError(
        `JSON string at byte ${this.stringStart} is longer than ${this.limits.maxStringBytes >> 20} MiB`,
      );
    }
  }

  finish(end: number): void {
    if (this.inString) throw new InputError('truncated JSON: unterminated string');
    if (this.depth > 0) throw new InputError(`truncated JSON: ${this.depth} unclosed bracket(s) at end of input`);
    if (this.scalarStart >= 0) {
      this.h.top(this.scalarStart, end);
      this.scalarStart = -1;
    }
  }
}

function scanRange(source: ByteSource, start: number, end: number, scanner: JsonScanner, chunk: number): void {
  for (let pos = start; pos < end; pos += chunk) {
    const buf = source.read(pos, Math.min(chunk, end - pos));
    scanner.feed(buf, 0, buf.length, pos);
  }
  scanner.finish(end);
}

function parseText(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new InputError(`invalid JSON${where}: ${(e as Error).message}`);
  }
}

/** An array left in the file; iterate it to read its elements one by one. */
export class LazyArray {
  constructor(
    private readonly source: ByteSource,
    /** Element bytes lie in [start, end): inside the brackets, or the whole file for JSON lines. */
    private readonly start: number,
    private readonly end: number,
    private readonly limits: JsonLimits,
  ) {}

  *[Symbol.iterator](): Generator<unknown> {
    const pending: Buffer[] = [];
    const ready: [number, number][] = [];
    let chunkPos = 0;
    let chunk: Buffer = Buffer.alloc(0);
    const scanner = new JsonScanner(
      {
        open() {},
        close() {},
        top(s, e) {
          ready.push([s, e]);
        },
      },
      this.limits,
    );
    // Elements may span chunks: bytes of an unfinished element are kept in `pending`.
    let carryFrom = this.start;
    const size = this.limits.chunkBytes;
    for (chunkPos = this.start; chunkPos < this.end; chunkPos += size) {
      chunk = this.source.read(chunkPos, Math.min(size, this.end - chunkPos));
      scanner.feed(chunk, 0, chunk.length, chunkPos);
      if (chunkPos + chunk.length >= this.end) scanner.finish(this.end);
      for (const [s, e] of ready) {
        yield this.element(pending, chunk, chunkPos, s, e);
        carryFrom = e;
      }
      ready.length = 0;
      if (carryFrom < chunkPos + chunk.length) {
        pending.push(chunk.subarray(Math.max(0, carryFrom - chunkPos)));
        carryFrom = chunkPos + chunk.length;
      }
    }
  }

  private element(pending: Buffer[], chunk: Buffer, chunkPos: number, s: number, e: number): unknown {
    let bytes: Buffer;
    if (s >= chunkPos) {
      bytes = chunk.subarray(s - chunkPos, e - chunkPos);
    } else {
      const head = Buffer.concat(pending);
      const headStart = chunkPos - head.length;
      bytes = Buffer.concat([head.subarray(s - headStart), chunk.subarray(0, e - chunkPos)]);
    }
    pending.length = 0;
    return parseText(bytes.toString('utf8'), ` at byte ${s}`);
  }
}

export function isArrayLike(v: unknown): v is unknown[] | LazyArray {
  return Array.isArray(v) || v instanceof LazyArray;
}

/** Reads a JSON document or JSON lines; see the module comment. */
export function readJson(source: ByteSource, limits: JsonLimits = DEFAULT_JSON_LIMITS): unknown {
  const bom = bomLength(source);
  const lazy: [number, number][] = [];
  const tops: [number, number][] = [];
  // Per open container: its start and whether a lazy array lies inside it.
  const starts: number[] = [];
  const hasLazy: boolean[] = [];
  const scanner = new JsonScanner(
    {
      open(_isArray, pos) {
        starts.push(pos);
        hasLazy.push(false);
      },
      close(isArray, pos) {
        const start = starts.pop() as number;
        const inner = hasLazy.pop() as boolean;
        const parent = hasLazy.length - 1;
        if (isArray && !inner && pos + 1 - start > limits.lazyArrayBytes) {
          lazy.push([start, pos + 1]);
          if (parent >= 0) hasLazy[parent] = true;
        } else if (inner && parent >= 0) {
          hasLazy[parent] = true;
        }
      },
      top(s, e) {
        if (tops.length < 2) tops.push([s, e]);
      },
    },
    limits,
  );
  scanRange(source, bom, source.size, scanner, limits.chunkBytes);

  if (tops.length === 0) throw new InputError('no JSON value in input');
  if (tops.length > 1) return new LazyArray(source, bom, source.size, limits);
  const [start, end] = tops[0];
  if (lazy.length === 0) {
    if (end - start > limits.maxSkeletonBytes) {
      throw new InputError(`JSON document without large arrays exceeds ${limits.maxSkeletonBytes >> 20} MiB`);
    }
    return parseText(source.read(start, end - start).toString('utf8'), '');
  }
  const parts: string[] = [];
  let pos = start;
  let size = 0;
  lazy.forEach(([s, e], i) => {
    size += s - pos;
    if (size > limits.maxSkeletonBytes) {
      throw new InputError(`JSON document outside its large arrays exceeds ${limits.maxSkeletonBytes >> 20} MiB`);
    }
    parts.push(source.read(pos, s - pos).toString('utf8'), `{${JSON.stringify(LAZY_KEY)}:${i}}`);
    pos = e;
  });
  parts.push(source.read(pos, end - pos).toString('utf8'));
  const arrays = lazy.map(([s, e]) => new LazyArray(source, s + 1, e - 1, limits));
  return restoreLazy(parseText(parts.join(''), ''), arrays);
}

function restoreLazy(v: unknown, arrays: LazyArray[]): unknown {
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) v[i] = restoreLazy(v[i], arrays);
    return v;
  }
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const idx = o[LAZY_KEY];
    if (typeof idx === 'number') return arrays[idx];
    for (const k of Object.keys(o)) o[k] = restoreLazy(o[k], arrays);
  }
  return v;
}
