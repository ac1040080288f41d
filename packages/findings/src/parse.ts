import { boundedComponent } from './components';
import { InputError, ReportParseError } from './errors';
import { computeFingerprints } from './fingerprint';
import { formatById } from './formats';
import { detectFormats, DocumentKind, sniffKind } from './detect';
import { CsvDocument, readCsv } from './io/csv';
import { DEFAULT_JSON_LIMITS, JsonLimits, readJson } from './io/json';
import { BufferSource, ByteSource, FileSource, OffsetSource, scriptPrefixLength } from './io/source';
import { TextDocument } from './io/text';
import { readXml, XmlElement } from './io/xml';
import { ZipArchive } from './io/zip';
import { Finding, ParseResult } from './model';
import { countDistinct } from './merge';
import { ImportSink, OnePassImport } from './one-pass-import';
import { Format, ParseContext } from './parsers/common';

export interface ParseOptions {
  /** A format id; the content must match it. Without it the format is detected from the content. */
  format?: string;
  /** Name used in errors (default: the file's path, or `<input>` for bytes). */
  name?: string;
  jsonLimits?: JsonLimits;
}

function readDocument(kind: DocumentKind, source: ByteSource, limits: JsonLimits): unknown {
  if (kind === 'json') return readJson(source, limits);
  if (kind === 'xml') return readXml(source);
  if (kind === 'zip') return new ZipArchive(source);
  if (kind === 'text') return new TextDocument(source);
  return readCsv(source);
}

function runParser(format: Format, doc: unknown, ctx: ParseContext): Iterable<Finding> {
  if (format.kind === 'json') return format.parse(doc, ctx);
  if (format.kind === 'xml') return format.parse(doc as XmlElement, ctx);
  if (format.kind === 'zip') return format.parse(doc as ZipArchive, ctx);
  if (format.kind === 'text') return format.parse((doc as TextDocument).lines(), ctx);
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

/** Whether a value holds U+0000 anywhere (a string, a key, nested): most findings do not, and are then kept as they are. */
function hasNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (Array.isArray(value)) return value.some(hasNul);
  if (typeof value === 'object' && value !== null) {
    for (const k in value) if (k.includes('\u0000') || hasNul((value as Record<string, unknown>)[k])) return true;
  }
  return false;
}

/**
 * Reads one report (a file path, or the bytes of one) into normalized findings with fingerprints.
 * Duplicates inside the report are kept; `mergeDuplicates` merges them.
 */
export function parseReport(input: string | Buffer, options: ParseOptions = {}): ParseResult {
  return readReport(input, options, (format, parse) => {
    const ctx = new ParseContext(format);
    const findings = [...parse(ctx)].map(withoutNul);
    computeFingerprints(findings);
    return { format, findings, components: ctx.components.map((c) => withoutNul(boundedComponent(c))) };
  });
}

/** The number of findings one import of the report yields (`mergeDuplicates`), read as a stream. */
export function countReport(input: string | Buffer, options: ParseOptions = {}): { format: string; count: number } {
  return readReport(input, options, (format, parse) => ({
    format,
    count: countDistinct(parse(new ParseContext(format))),
  }));
}

/**
 * What `importReport` yields, read once with bounded memory (a large JSON array element by element
 * from the file, see io/json.ts; no list of all findings is ever built), handed to `sink` as it
 * goes: see OnePassImport for which findings are final at once and which are amended at the end.
 * `prepare` runs on each finding before it is fingerprinted (after NUL characters were replaced).
 */
export function streamImportReport(
  input: string | Buffer,
  options: ParseOptions & { prepare?: (f: Finding) => void },
  sink: ImportSink,
): { format: string; count: number } {
  return readReport(input, options, (format, parse) => {
    const found = new OnePassImport(sink);
    try {
      for (const parsed of parse(new ParseContext(format))) {
        // withoutNul copies every object; a finding without NUL characters is kept as the parser made it.
        const f = hasNul(parsed) ? withoutNul(parsed) : parsed;
        options.prepare?.(f);
        found.add(f);
      }
    } catch (err) {
      found.abandon();
      throw err;
    }
    return { format, count: found.finish() };
  });
}

/** Opens, detects and parses; `consume` runs while the file is open, and its errors are reported like parse errors. */
function readReport<T>(
  input: string | Buffer,
  options: ParseOptions,
  consume: (format: string, parse: (ctx: ParseContext) => Iterable<Finding>) => T,
): T {
  const file = options.name ?? (typeof input === 'string' ? input : '<input>');
  const declared = options.format === undefined ? undefined : formatById(options.format);
  if (options.format !== undefined && !declared) {
    throw new ReportParseError(
      file,
      undefined,
      `unknown format id "${options.format}" (run "bulwark formats" for the list)`,
    );
  }
  let source: ByteSource;
  try {
    source = typeof input === 'string' ? new FileSource(input) : new BufferSource(input);
  } catch (e) {
    throw new ReportParseError(file, declared?.id, `cannot read file: ${(e as Error).message}`);
  }
  let stage: string | undefined = declared?.id;
  try {
    const empty = (format: string): T => consume(format, () => []);
    const prefix = scriptPrefixLength(source.read(0, 256));
    if (prefix) source = new OffsetSource(source, prefix);
    const head = source.read(0, 4096);
    let kind = sniffKind(head);
    if (!kind) {
      if (
        head
          .toString('utf8')
          .replace(/^\uFEFF/, '')
          .trim() === '' &&
        source.size <= head.length
      ) {
        if (declared?.acceptsEmpty) return empty(declared.id);
        throw new InputError(
          declared
            ? 'empty file, but this format always writes a document'
            : 'empty file: there is no content to detect a format from',
        );
      }
      // Anything else may be a plain-text report; if no text format takes it, it is unrecognized content.
      kind = 'text';
    }
    if (kind === 'xml' && /^(\uFEFF)?\s*(<!doctype html|<html[\s>])/i.test(head.toString('utf8'))) {
      throw new InputError('an HTML page, not a machine-readable report: export the JSON or XML report from the tool');
    }
    const doc = readDocument(kind, source, options.jsonLimits ?? DEFAULT_JSON_LIMITS);
    if (doc === null) {
      if (declared?.acceptsEmpty) return empty(declared.id);
      throw new InputError(
        'the document is JSON null: no findings, and nothing to tell the tool by; declare the format to accept it',
      );
    }
    const detected = detectFormats(kind, doc);
    let format: Format;
    if (declared) {
      if (!detected.includes(declared) && declared.isEmptyReport?.(doc)) return empty(declared.id);
      if (!detected.includes(declared)) {
        const other = detected[0] ? `; it looks like "${detected[0].id}"` : '';
        throw new InputError(`content does not match the declared format (${declared.title})${other}`);
      }
      format = declared;
    } else {
      if (!detected[0] && kind === 'text') {
        throw new InputError('unrecognized content: not JSON, XML, CSV, a zip archive or a known text report');
      }
      if (!detected[0])
        throw new InputError(`unrecognized ${kind.toUpperCase()} report: no known format matches its structure`);
      format = detected[0];
    }
    stage = format.id;
    return consume(format.id, (ctx) => runParser(format, doc, ctx));
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
