import { unzipSync, UnzipFileInfo } from 'fflate';
import { InputError } from '../errors';
import { ByteSource } from './source';

/**
 * Zip archives (Fortify `.fpr`, Black Duck exports) are hostile input like any report: the archive is
 * read whole up to a size cap, its directory is checked before anything is inflated, and an entry is
 * inflated only when a parser asks for it, into a buffer of the size the directory declares (fflate
 * never writes past it, so a lying header cannot grow the output).
 */
export interface ZipLimits {
  maxArchiveBytes: number;
  maxEntries: number;
  /** Declared uncompressed size of any one entry. */
  maxEntryBytes: number;
  /** Declared uncompressed size of all entries together. */
  maxTotalBytes: number;
  /** Uncompressed / compressed size, checked for entries above 1 MiB (small files may compress better). */
  maxRatio: number;
}

export const DEFAULT_ZIP_LIMITS: ZipLimits = {
  maxArchiveBytes: 256 << 20,
  maxEntries: 10_000,
  maxEntryBytes: 512 << 20,
  maxTotalBytes: 1024 << 20,
  maxRatio: 200,
};

/** A zip file's first bytes: a local file header, or the end record of an empty archive. */
export function isZip(head: Buffer): boolean {
  return (
    head.length >= 4 &&
    head[0] === 0x50 &&
    head[1] === 0x4b &&
    ((head[2] === 0x03 && head[3] === 0x04) || (head[2] === 0x05 && head[3] === 0x06))
  );
}

function checkName(name: string): void {
  const parts = name.replace(/\\/g, '/').split('/');
  if (name.startsWith('/') || /^[a-z]:/i.test(name) || parts.includes('..') || name.includes('\u0000')) {
    throw new InputError(`zip entry "${name.slice(0, 200)}" has an absolute or parent path`);
  }
}

export class ZipArchive {
  /** Entry names (directories excluded), as the central directory lists them. */
  readonly names: string[];
  private readonly data: Uint8Array;

  constructor(source: ByteSource, limits: ZipLimits = DEFAULT_ZIP_LIMITS) {
    if (source.size > limits.maxArchiveBytes)
      throw new InputError(`zip archive larger than ${limits.maxArchiveBytes >> 20} MiB`);
    this.data = source.read(0, source.size);
    const names: string[] = [];
    let total = 0;
    this.scan((entry) => {
      if (names.length >= limits.maxEntries)
        throw new InputError(`zip archive has more than ${limits.maxEntries} entries`);
      checkName(entry.name);
      if (entry.originalSize > limits.maxEntryBytes)
        throw new InputError(`zip entry "${entry.name}" is larger than ${limits.maxEntryBytes >> 20} MiB uncompressed`);
      total += entry.originalSize;
      if (total > limits.maxTotalBytes)
        throw new InputError(`zip archive is larger than ${limits.maxTotalBytes >> 20} MiB uncompressed`);
      if (entry.originalSize > 1 << 20 && entry.originalSize > limits.maxRatio * Math.max(1, entry.size)) {
        throw new InputError(`zip entry "${entry.name}" compresses more than ${limits.maxRatio}:1 (a zip bomb?)`);
      }
      if (!entry.name.endsWith('/')) names.push(entry.name);
      return false;
    });
    this.names = names;
  }

  /** The entry with that name, compared ignoring case; undefined if absent. */
  find(name: string): string | undefined {
    const lower = name.toLowerCase();
    return this.names.find((n) => n.toLowerCase() === lower);
  }

  /** Inflates one entry (checked by the constructor). */
  read(name: string): Buffer {
    let out: Uint8Array | undefined;
    this.scan(
      (entry) => entry.name === name,
      (files) => {
        out = files[name];
      },
    );
    if (!out) throw new InputError(`zip entry "${name}" is missing`);
    return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
  }

  private scan(filter: (entry: UnzipFileInfo) => boolean, done?: (files: Record<string, Uint8Array>) => void): void {
    try {
      const files = unzipSync(this.data, { filter });
      done?.(files);
    } catch (e) {
      if (e instanceof InputError) throw e;
      throw new InputError(`invalid zip archive: ${(e as Error).message}`);
    }
  }
}
