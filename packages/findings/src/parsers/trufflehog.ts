import { Finding } from '../model';
import { arr, line, obj, str } from '../normalize';
import { each, hasKeys, isArrayLikeOf, JsonFormat, ParseContext } from './common';

/** v3: SourceMetadata.Data.<source> holds file and line; which source key depends on the scan type. */
function v3Location(r: Record<string, unknown>): { file?: string; line?: number; commit?: string } {
  const data = obj(obj(r.SourceMetadata).Data);
  const src = obj(Object.values(data)[0]);
  return { file: str(src.file) ?? str(src.path) ?? str(src.link), line: line(src.line), commit: str(src.commit) };
}

function* parse(doc: unknown, ctx: ParseContext): Generator<Finding> {
  for (const x of each(doc)) {
    const r = obj(x);
    if ('DetectorName' in r || 'SourceMetadata' in r) {
      const loc = v3Location(r);
      const detector = str(r.DetectorName) ?? 'secret';
      const verified = r.Verified === true;
      yield ctx.finding({
        tool: 'trufflehog',
        toolCategory: 'secrets',
        ruleId: detector,
        title: `${verified ? 'Verified' : 'Unverified'} ${detector} secret in ${loc.file ?? 'source'}`,
        description: [loc.commit && `Commit ${loc.commit}`, str(r.SourceName)].filter(Boolean).join('\n') || undefined,
        severity: verified ? 'critical' : 'high',
        confidence: verified ? 'verified' : 'unverified',
        cwes: [798],
        filePath: loc.file,
        startLine: loc.line,
        snippet: str(r.Redacted) ?? str(r.Raw),
      });
    } else {
      const reason = str(r.reason) ?? 'secret';
      const strings = arr(r.stringsFound).map(String);
      yield ctx.finding({
        tool: 'trufflehog',
        toolCategory: 'secrets',
        ruleId: reason,
        title: `${reason} in ${str(r.path) ?? 'repository'}`,
        description: [
          `Commit ${str(r.commitHash) ?? ''} on ${str(r.branch) ?? ''}`,
          `${strings.length} string(s) found`,
        ].join('\n'),
        severity: 'medium',
        cwes: [798],
        filePath: str(r.path),
        // v2 reports no lines, and its high-entropy strings are arbitrary slices of a diff that change
        // with any nearby edit: file and detector identify a v2 finding.
        locator: 'v2:file',
        detectedAt: str(r.date),
      });
    }
  }
}

/** v2 records always carry `diff` and `printDiff`; truffleHog3 2.x writes the same records without them. */
const isRecord = (r: unknown): boolean =>
  hasKeys(r, 'DetectorName', 'SourceMetadata') || hasKeys(r, 'reason', 'stringsFound', 'printDiff');

export const trufflehog: JsonFormat = {
  id: 'trufflehog',
  title: 'TruffleHog JSON lines (--json)',
  testedWith: 'TruffleHog v2 and v3',
  kind: 'json',
  acceptsEmpty: true,
  detect: (doc) => isRecord(doc) || isArrayLikeOf(doc, isRecord),
  parse: (doc, ctx) => parse(isRecord(doc) ? [doc] : doc, ctx),
};
