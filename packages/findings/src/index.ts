export * from './model';
export { ReportParseError } from './errors';
export { countReport, parseReport, ParseOptions, streamImportReport } from './parse';
export { countDistinct, mergeDuplicates, mergeInto } from './merge';
export { findingJson, FindingJson, ImportSink } from './one-pass-import';
export { computeFingerprints, fingerprintBase } from './fingerprint';
export { FORMATS, formatById } from './formats';
export { sniffKind, detectFormats } from './detect';
export { parseCvss, severityOf, severityOfScore } from './normalize';
export type { Format } from './parsers/common';

import { mergeDuplicates } from './merge';
import { parseReport, ParseOptions } from './parse';
import { Finding } from './model';

/** What one import of a report yields: its findings with true duplicates merged. */
export function importReport(
  input: string | Buffer,
  options: ParseOptions = {},
): { format: string; findings: Finding[] } {
  const r = parseReport(input, options);
  return { format: r.format, findings: mergeDuplicates(r.findings) };
}
