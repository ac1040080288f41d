import { hash } from 'node:crypto';
import { boundedComponent } from './components';
import { InputError, ReportParseError } from './errors';
import { computeFingerprints, fingerprintBase, fingerprintOf } from './fingerprint';
import { formatById } from './formats';
import { detectFormats, DocumentKind, sniffKind } from './detect';
import { CsvDocument, readCsv } from './io/csv';
import { DEFAULT_JSON_LIMITS, JsonLimits, readJson } from './io/json';
import { BufferSource, ByteSource, FileSource, OffsetSource, scriptPrefixLength } from './io/source';
import { TextDocument } from './io/text';
import { readXml, XmlElement } from './io/xml';
import { ZipArchive } from './io/zip';
import { Finding, ParseResult } from './model';
import { countDistinct, mergeInto } from './merge';
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

/** Occurrences of the findings of one fingerprint group: per start line for findings told apart by line. */
type Occurrences = number | Map<number, number>;

/**
 * What `importReport` yields, with bounded memory: the report is read twice (a large JSON array
 * element by element from the file each time, see io/json.ts), and no list of all findings is ever
 * built. The first pass keeps, per fingerprint base key (as a digest), how often each start line
 * occurs: that is all a fingerprint's ordinal and the merge of duplicates need. The second pass
 * fingerprints each finding, hands a finding without duplicates to `emit` at once, and holds one with
 * duplicates until its last duplicate was merged into it. `seq` is the finding's position in
 * `importReport`'s result, so findings come in that order except the held ones. `prepare` runs on
 * each finding before it is fingerprinted (after NUL characters were replaced), in both passes.
 */
export function streamImportReport(
  input: string | Buffer,
  options: ParseOptions & { prepare?: (f: Finding) => void },
  emit: (seq: number, finding: Finding) => void,
): { format: string; count: number } {
  return readReport(input, options, (format, parse) => {
    const read = function* () {
      for (const found of parse(new ParseContext(format))) {
        // withoutNul copies every object; a finding without NUL characters is kept as the parser made it.
        const f = hasNul(found) ? withoutNul(found) : found;
        options.prepare?.(f);
        const { key, byLine } = fingerprintBase(f);
        yield { f, key, byLine, digest: hash('sha256', key, 'base64') };
      }
    };
    // Pass 1: occurrences per group (by line, or in all) and per start line.
    const byLineGroups = new Map<string, Occurrences>();
    const plainGroups = new Map<string, number>();
    for (const { f, byLine, digest } of read()) {
      if (!byLine) {
        plainGroups.set(digest, (plainGroups.get(digest) ?? 0) + 1);
        continue;
      }
      const line = f.startLine ?? 0;
      const seen = byLineGroups.get(digest);
      // One line seen once, the common case, is kept as the line itself (encoded as -line - 1).
      if (seen === undefined) byLineGroups.set(digest, -line - 1);
      else if (typeof seen === 'number')
        byLineGroups.set(
          digest,
          new Map(
            seen === -line - 1
              ? [[line, 2]]
              : [
                  [-seen - 1, 1],
                  [line, 1],
                ],
          ),
        );
      else seen.set(line, (seen.get(line) ?? 0) + 1);
    }
    // The rank of each line among its group's distinct lines.
    const ranks = new Map<string, Map<number, number>>();
    for (const [digest, seen] of byLineGroups) {
      if (typeof seen === 'number') continue;
      ranks.set(digest, new Map([...seen.keys()].sort((a, b) => a - b).map((line, rank) => [line, rank])));
    }
    // Pass 2: fingerprints, duplicates merged into the first of their fingerprint.
    const held = new Map<string, { seq: number; kept: Finding; left: number }>();
    let next = 0;
    for (const { f, key, byLine, digest } of read()) {
      let occurrences: number;
      if (!byLine) {
        f.fingerprint = fingerprintOf(key, undefined);
        occurrences = plainGroups.get(digest) ?? 1;
      } else {
        const line = f.startLine ?? 0;
        const seen = byLineGroups.get(digest);
        const single = typeof seen === 'number' || seen === undefined;
        f.fingerprint = fingerprintOf(key, single ? 0 : ranks.get(digest)?.get(line));
        // 0: a line pass 1 did not see (the passes disagreed) is held, and emitted at the end.
        occurrences = single ? 1 : (seen.get(line) ?? 0);
      }
      if (occurrences === 1) {
        emit(next++, f);
        continue;
      }
      const first = held.get(f.fingerprint);
      if (!first) {
        // Merging appends to the kept finding's endpoints: an array of its own, whatever the parser shares.
        f.endpoints = [...f.endpoints];
        held.set(f.fingerprint, { seq: next++, kept: f, left: occurrences - 1 });
        continue;
      }
      mergeInto(first.kept, f);
      if (--first.left === 0) {
        held.delete(f.fingerprint);
        emit(first.seq, first.kept);
      }
    }
    // Only if the two passes disagreed (they read the same bytes with the same code): what is held is still complete.
    for (const { seq, kept } of held.values()) emit(seq, kept);
    return { format, count: next };
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
