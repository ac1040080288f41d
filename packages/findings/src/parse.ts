import { InputError, ReportParseError } from './errors';
import { computeFingerprints } from './fingerprint';
import { formatById } from './formats';
import { detectFormats, DocumentKind, sniffKind } from './detect';
import { CsvDocument, readCsv } from './io/csv';
import { DEFAULT_JSON_LIMITS, JsonLimits, readJson } from './io/json';
import { BufferSource, ByteSource, FileSource } from './io/source';
import { readXml, XmlElement } from './io/xml';
import { ZipArchive } from './io/zip';
import { Finding, ParseResult } from './model';
import { countDistinct } from './merge';
import { Format, ParseContext } from './parsers/common';

export interface ParseOptions {
  /** A format id; the content must match it. Without it the format is detected from the content. */
  format?: string;
  /** Name used in errors when parsing a buffer. */
  name?: string;
  jsonLimits?: JsonLimits;
}

function readDocument(kind: DocumentKind, source: ByteSource, limits: JsonLimits): unknown {
  if (kind === 'json') return readJson(source, limits);
  if (kind === 'xml') return readXml(source);
  if (kind === 'zip') return new ZipArchive(source);
  return readCsv(source);
}

function runParser(format: Format, doc: unknown, ctx: ParseContext): Iterable<Finding> {
  if (format.kind === 'json') return format.parse(doc, ctx);
  if (format.kind === 'xml') return format.parse(doc as XmlElement, ctx);
  if (format.kind === 'zip') return format.parse(doc as ZipArchive, ctx);
  return format.parse((doc as CsvDocument).rows, ctx);
}

/**
 * A report is anyone's text, and the stores (PostgreSQL text and jsonb) cannot hold U+0000: each one
 * in a finding or component becomes U+FFFD, which shows that something unreadable was there.
 */
function withoutNul<T>(value: T): T {
  if (typeof value === 'string') return (value.includes('\u0000') ? value.replace(/\u0000/g, '\ufffd') : value) as T;
  if (Array.isArray(value)) return value.map(withoutNul) as T;
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [withoutNul(k), withoutNul(v)])) as T;
  }
  return value;
}

/**
 * Reads one report (a file path, or the bytes of one) into normalized findings with fingerprints.
 * Duplicates inside the report are kept; `mergeDuplicates` merges them.
 */
export function parseReport(input: string | Buffer, options: ParseOptions = {}): ParseResult {
  return readReport(input, options, (format, found, ctx) => {
    const findings = [...found].map(withoutNul);
    computeFingerprints(findings);
    return { format, findings, components: ctx.components.map(withoutNul) };
  });
}

/** The number of findings one import of the report yields (`mergeDuplicates`), read as a stream. */
export function countReport(input: string | Buffer, options: ParseOptions = {}): { format: string; count: number } {
  return readReport(input, options, (format, found) => ({ format, count: countDistinct(found) }));
}

/** Opens, detects and parses; `consume` runs while the file is open, and its errors are reported like parse errors. */
function readReport<T>(input: string | Buffer, options: ParseOptions, consume: (format: string, findings: Iterable<Finding>, ctx: ParseContext) => T): T {
  const file = typeof input === 'string' ? input : options.name ?? '<input>';
  const declared = options.format === undefined ? undefined : formatById(options.format);
  if (options.format !== undefined && !declared) {
    throw new ReportParseError(file, undefined, `unknown format id "${options.format}" (run "bulwark formats" for the list)`);
  }
  let source: ByteSource;
  try {
    source = typeof input === 'string' ? new FileSource(input) : new BufferSource(input);
  } catch (e) {
    throw new ReportParseError(file, declared?.id, `cannot read file: ${(e as Error).message}`);
  }
  let stage: string | undefined = declared?.id;
  try {
    const empty = (): T => consume(declared!.id, [], new ParseContext(declared!.id));
    const head = source.read(0, 4096);
    const kind = sniffKind(head);
    if (!kind) {
      if (head.toString('utf8').replace(/^\uFEFF/, '').trim() === '' && source.size <= head.length) {
        if (declared?.acceptsEmpty) return empty();
        throw new InputError(declared ? 'empty file, but this format always writes a document' : 'empty file: there is no content to detect a format from');
      }
      throw new InputError('unrecognized content: not JSON, XML, CSV or a zip archive');
    }
    if (kind === 'xml' && /^(\uFEFF)?\s*(<!doctype html|<html[\s>])/i.test(head.toString('utf8'))) {
      throw new InputError('an HTML page, not a machine-readable report: export the JSON or XML report from the tool');
    }
    const doc = readDocument(kind, source, options.jsonLimits ?? DEFAULT_JSON_LIMITS);
    if (doc === null) {
      if (declared?.acceptsEmpty) return empty();
      throw new InputError('the document is JSON null: no findings, and nothing to tell the tool by; declare the format to accept it');
    }
    const detected = detectFormats(kind, doc);
    let format: Format;
    if (declared) {
      if (!detected.includes(declared) && declared.isEmptyReport?.(doc)) return empty();
      if (!detected.includes(declared)) {
        const other = detected[0] ? `; it looks like "${detected[0].id}"` : '';
        throw new InputError(`content does not match the declared format (${declared.title})${other}`);
      }
      format = declared;
    } else {
      if (!detected[0]) throw new InputError(`unrecognized ${kind.toUpperCase()} report: no known format matches its structure`);
      format = detected[0];
    }
    stage = format.id;
    const ctx = new ParseContext(format.id);
    return consume(format.id, runParser(format, doc, ctx), ctx);
  } catch (e) {
    if (e instanceof ReportParseError) throw e;
    if (e instanceof InputError) throw new ReportParseError(file, stage, e.message);
    if (e instanceof RangeError && /call stack|memory|Invalid string length|Array buffer allocation/i.test(e.message)) {
      throw new ReportParseError(file, stage, `input too large or too deeply nested: ${e.message}`);
    }
    throw new ReportParseError(file, stage, `invalid report: ${(e as Error).message}`);
  } finally {
    source.close();
  }
}
