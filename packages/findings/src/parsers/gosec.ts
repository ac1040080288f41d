import { Finding } from '../model';
import { cwes, line, obj, severityOf, str } from '../normalize';
import { each, hasKeys, JsonFormat, ParseContext } from './common';

/**
 * gosec -fmt=json; tested with gosec 2.x: one finding per entry of `Issues`. `line` is a string, "79" or a range "79-81".
 * Issues gosec reports as suppressed (`nosec` with `-track-suppressions`) keep their suppression.
 */
function* parse(doc: unknown, ctx: ParseContext): Generator<Finding> {
  for (const i of each(obj(doc).Issues)) {
    const issue = obj(i);
    const rule = str(issue.rule_id) ?? 'gosec';
    const sev = str(issue.severity);
    const [start, end] = (str(issue.line) ?? '').split('-').map(line);
    const cwe = obj(issue.cwe);
    const suppressions = Array.isArray(issue.suppressions) ? issue.suppressions.map(obj) : [];
    yield ctx.finding({
      tool: 'gosec',
      toolCategory: 'sast',
      ruleId: rule,
      title: `${rule}: ${str(issue.details) ?? 'issue'}`,
      description: str(issue.details),
      severity: severityOf(sev) ?? 'medium',
      toolSeverity: sev,
      confidence: str(issue.confidence)?.toLowerCase(),
      cwes: cwes(cwe.id ?? cwe.ID),
      references: [str(cwe.url) ?? str(cwe.URL)].filter((u): u is string => !!u),
      filePath: str(issue.file),
      startLine: start,
      endLine: end ?? start,
      snippet: str(issue.code),
      suppression: suppressions.length
        ? {
            state: str(suppressions[0].kind) ?? 'suppressed',
            source: 'tool',
            justification: str(suppressions[0].justification),
          }
        : undefined,
    });
  }
}

export const gosec: JsonFormat = {
  id: 'gosec',
  title: 'gosec -fmt=json',
  testedWith: 'gosec JSON, from corpus samples that carry no tool version',
  kind: 'json',
  detect: (doc) => hasKeys(doc, 'Issues', 'Stats') && hasKeys(obj(doc).Stats, 'nosec'),
  parse,
};
