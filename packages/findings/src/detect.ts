import { InputError } from './errors';
import { CsvDocument } from './io/csv';
import { TextDocument } from './io/text';
import { XmlElement } from './io/xml';
import { isZip, ZipArchive } from './io/zip';
import { Format } from './parsers/common';
import { FORMATS } from './formats';

export type DocumentKind = 'json' | 'xml' | 'csv' | 'zip' | 'text';

/**
 * The kind of document from its first bytes (a zip signature; else after a BOM and whitespace).
 * Undefined for anything else, which may still be a text report (see `TextDocument`).
 */
export function sniffKind(head: Buffer): DocumentKind | undefined {
  if (isZip(head)) return 'zip';
  let i = head.length >= 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  while (i < head.length && (head[i] === 0x20 || head[i] === 0x0a || head[i] === 0x0d || head[i] === 0x09)) i++;
  if (i >= head.length) return undefined;
  const c = head[i];
  if (c === 0x7b || c === 0x5b) return 'json';
  if (c === 0x3c) return 'xml';
  const text = head.subarray(i, i + 8).toString('utf8');
  // A quoted first cell followed by a separator is a CSV header (Qualys quotes every cell), not a JSON string.
  if (c === 0x22 && /^"(?:[^"\\\r\n]|\\.)*"[ \t]*[,;\t]/.test(head.subarray(i).toString('utf8'))) return 'csv';
  if (/^(null|true|false|"|-?\d)/.test(text)) return 'json';
  const firstLine = head.subarray(i).toString('utf8').split(/\r?\n/)[0];
  if (/[,;\t]/.test(firstLine) && !/[\u0000-\u0008]/.test(firstLine)) return 'csv';
  return undefined;
}

/** The formats of that kind whose markers the document carries, in registry order. */
export function detectFormats(kind: DocumentKind, doc: unknown): Format[] {
  return FORMATS.filter((f) => {
    try {
      if (f.kind !== kind) return false;
      if (f.kind === 'json') return f.detect(doc);
      if (f.kind === 'xml') return f.detect(doc as XmlElement);
      if (f.kind === 'zip') return f.detect(doc as ZipArchive);
      if (f.kind === 'text') return f.detect((doc as TextDocument).head);
      return f.detect((doc as CsvDocument).header);
    } catch (e) {
      if (e instanceof InputError) throw e;
      return false;
    }
  });
}
