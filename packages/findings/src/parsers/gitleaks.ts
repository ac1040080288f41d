import { Finding } from '../model';
import { arr, line, obj, str } from '../normalize';
import { each, hasKeys, isArrayLikeOf, JsonFormat, ParseContext } from './common';

/** Gitleaks v8 writes RuleID/File/StartLine; v7 and older write rule/file/lineNumber/offender. */
function* parse(doc: unknown, ctx: ParseContext): Generator<Finding> {
  for (const r of each(doc)) {
    const o = obj(r);
    const v8 = 'RuleID' in o;
    const rule = str(v8 ? o.RuleID : o.rule) ?? 'secret';
    const description = str(o.Description);
    const file = str(v8 ? o.File : o.file);
    const commit = str(v8 ? o.Commit : o.commit);
    const tags = v8
      ? arr(o.Tags).map(String)
      : (str(o.tags) ?? '')
          .split(',')
          .map((t) => t.trim())
          .filter(Boolean);
    yield ctx.finding({
      tool: 'gitleaks',
      toolCategory: 'secrets',
      ruleId: rule,
      title: `Hard-coded secret: ${description ?? rule}`,
      description:
        [
          description,
          commit && `Commit ${commit}`,
          str(v8 ? o.Author : o.author) && `Author ${str(v8 ? o.Author : o.author)}`,
        ]
          .filter(Boolean)
          .join('\n') || undefined,
      severity: 'high',
      cwes: [798],
      tags,
      filePath: file,
      startLine: line(v8 ? o.StartLine : o.lineNumber),
      endLine: line(v8 ? o.EndLine : o.lineNumber),
      snippet: str(v8 ? o.Match : o.line) ?? str(v8 ? o.Secret : o.offender),
      toolFingerprints: str(o.Fingerprint) ? { Fingerprint: String(o.Fingerprint) } : {},
      detectedAt: str(v8 ? o.Date : o.date),
    });
  }
}

export const gitleaks: JsonFormat = {
  id: 'gitleaks',
  title: 'Gitleaks JSON report',
  testedWith: 'Gitleaks v7 and v8',
  kind: 'json',
  acceptsEmpty: true,
  isEmptyReport: (doc) => Array.isArray(doc) && doc.length === 0,
  detect: (doc) =>
    isArrayLikeOf(doc, (f) => hasKeys(f, 'RuleID', 'File', 'Secret') || hasKeys(f, 'rule', 'file', 'offender')),
  parse,
};
