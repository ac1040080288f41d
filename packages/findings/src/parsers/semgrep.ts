import { Finding, Severity } from '../model';
import { arr, cwes, line, obj, severityOf, shorten, str, uniq } from '../normalize';
import { each, hasKeys, isArrayLikeOf, JsonFormat, ParseContext } from './common';

/** Semgrep's own scale: ERROR, WARNING, INFO correspond to High, Medium, Low in Semgrep's platform. */
const SEMGREP_LEVELS: Record<string, Severity> = { ERROR: 'high', WARNING: 'medium', INFO: 'low' };

function* parse(doc: unknown, ctx: ParseContext): Generator<Finding> {
  for (const r of each(obj(doc).results)) {
    const o = obj(r);
    const extra = obj(o.extra);
    const meta = obj(extra.metadata);
    const sev = str(extra.severity) ?? 'INFO';
    const message = str(extra.message) ?? str(o.check_id) ?? 'Semgrep finding';
    const lines = str(extra.lines);
    yield ctx.finding({
      tool: 'semgrep',
      toolCategory: 'sast',
      ruleId: str(o.check_id),
      title: shorten(message.split('\n')[0]),
      description: message,
      severity: SEMGREP_LEVELS[sev.toUpperCase()] ?? severityOf(sev) ?? 'medium',
      toolSeverity: sev,
      confidence: str(meta.confidence),
      cwes: cwes(meta.cwe),
      references: uniq([
        ...arr(meta.references).map(String),
        ...(str(meta['source-rule-url']) ? [String(meta['source-rule-url'])] : []),
      ]),
      mitigation: str(extra.fix),
      filePath: str(o.path),
      startLine: line(obj(o.start).line),
      endLine: line(obj(o.end).line),
      // Semgrep without login writes this placeholder instead of the code.
      snippet: lines && lines !== 'requires login' ? lines : undefined,
      toolFingerprints:
        str(extra.fingerprint) && extra.fingerprint !== 'requires login'
          ? { fingerprint: String(extra.fingerprint) }
          : {},
    });
  }
}

export const semgrep: JsonFormat = {
  id: 'semgrep',
  title: 'Semgrep JSON (semgrep --json)',
  testedWith: 'Semgrep --json, from corpus samples that carry no tool version',
  kind: 'json',
  detect: (doc) =>
    hasKeys(doc, 'results', 'errors') && (hasKeys(doc, 'paths') || hasKeys(doc, 'version') || isSemgrepResults(doc)),
  parse,
};

function isSemgrepResults(doc: unknown): boolean {
  // A large `results` array is left in the file (a LazyArray): its first element decides as well.
  return isArrayLikeOf(obj(doc).results, (first) => hasKeys(first, 'check_id', 'extra'), true);
}
