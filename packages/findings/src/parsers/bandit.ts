import { Finding } from '../model';
import { arr, cwes, int, line, obj, severityOf, str } from '../normalize';
import { each, hasKeys, JsonFormat, ParseContext } from './common';

/** Bandit prefixes each code line with its number; keep only the flagged lines, without numbers. */
function flaggedCode(code: string | undefined, range: number[]): string | undefined {
  if (!code) return undefined;
  const lines = code
    .split('\n')
    .map((l) => /^(\d+)\s?(.*)$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null);
  const picked = lines.filter((m) => range.includes(Number(m[1]))).map((m) => m[2]);
  return (picked.length ? picked : lines.map((m) => m[2])).join('\n');
}

function* parse(doc: unknown, ctx: ParseContext): Generator<Finding> {
  for (const r of each(obj(doc).results)) {
    const o = obj(r);
    const sev = str(o.issue_severity) ?? 'UNDEFINED';
    const range = arr(o.line_range)
      .map(int)
      .filter((n): n is number => n !== undefined);
    const testId = str(o.test_id);
    yield ctx.finding({
      tool: 'bandit',
      toolCategory: 'sast',
      ruleId: testId && str(o.test_name) ? `${String(o.test_name)}:${testId}` : testId,
      title: str(o.issue_text) ?? testId ?? 'Bandit finding',
      description: str(o.issue_text),
      severity: severityOf(sev) ?? 'info',
      toolSeverity: sev,
      confidence: str(o.issue_confidence),
      cwes: cwes(obj(o.issue_cwe).id),
      references: str(o.more_info) ? [String(o.more_info)] : [],
      filePath: str(o.filename),
      startLine: line(o.line_number),
      endLine: line(range[range.length - 1]),
      snippet: flaggedCode(str(o.code), range),
    });
  }
}

export const bandit: JsonFormat = {
  id: 'bandit',
  title: 'Bandit JSON (bandit -f json)',
  testedWith: 'Bandit JSON of 2020–2021 releases, from corpus samples that carry no tool version',
  kind: 'json',
  detect: (doc) => hasKeys(doc, 'results', 'metrics') && hasKeys(obj(obj(doc).metrics)._totals, 'loc'),
  parse,
};
