import { Component, Finding, FindingInit } from '../model';
import { isArrayLike, LazyArray } from '../io/json';
import { XmlElement } from '../io/xml';
import { ZipArchive } from '../io/zip';
import { newFinding } from '../normalize';

/** What a parser gets besides the document. */
export class ParseContext {
  readonly components: Component[] = [];
  constructor(readonly format: string) {}
  finding(init: FindingInit): Finding {
    return newFinding(this.format, init);
  }
}

interface FormatBase {
  id: string;
  /** Tool and report flavour, for `bulwark formats` and the README. */
  title: string;
  /** The tool versions and report layouts the parser was tested with, for `bulwark formats` and the API. */
  testedWith: string;
  /** The tool may write nothing (0 bytes) or JSON `null` when it found nothing. */
  acceptsEmpty?: boolean;
  /**
   * What the tool writes when it found nothing, where that document carries no marker of the tool
   * (Gitleaks `[]`, Checkov's bare summary). Accepted only when the format is declared.
   */
  isEmptyReport?(doc: unknown): boolean;
}

export interface JsonFormat extends FormatBase {
  kind: 'json';
  detect(doc: unknown): boolean;
  parse(doc: unknown, ctx: ParseContext): Iterable<Finding>;
}

export interface XmlFormat extends FormatBase {
  kind: 'xml';
  detect(root: XmlElement): boolean;
  parse(root: XmlElement, ctx: ParseContext): Iterable<Finding>;
}

export interface CsvFormat extends FormatBase {
  kind: 'csv';
  detect(header: string[]): boolean;
  parse(rows: Record<string, string>[], ctx: ParseContext): Iterable<Finding>;
}

/** A report the tool writes as a zip archive; detected by the names of its entries. */
export interface ZipFormat extends FormatBase {
  kind: 'zip';
  detect(archive: ZipArchive): boolean;
  parse(archive: ZipArchive, ctx: ParseContext): Iterable<Finding>;
}

/** A plain-text report, neither JSON, XML nor CSV; detected by its first 64 KiB, read line by line. */
export interface TextFormat extends FormatBase {
  kind: 'text';
  detect(head: string): boolean;
  parse(lines: Iterable<string>, ctx: ParseContext): Iterable<Finding>;
}

export type Format = JsonFormat | XmlFormat | CsvFormat | ZipFormat | TextFormat;

/** Iterates an array whether it is in memory or left in the file; anything else yields nothing. */
export function* each(v: unknown): Generator<unknown> {
  if (isArrayLike(v)) yield* v as Iterable<unknown>;
}

export function first(v: unknown): unknown {
  if (Array.isArray(v)) return v[0];
  if (v instanceof LazyArray) for (const x of v) return x;
  return undefined;
}

export function hasKeys(v: unknown, ...keys: string[]): boolean {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && keys.every((k) => k in v);
}

/** True for an array whose first element satisfies `test`, and for an empty array only if `empty`. */
export function isArrayLikeOf(doc: unknown, test: (first: unknown) => boolean, empty = false): boolean {
  if (!isArrayLike(doc)) return false;
  const f = first(doc);
  return f === undefined ? empty : test(f);
}
