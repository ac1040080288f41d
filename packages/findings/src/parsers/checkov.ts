import { Finding } from '../model';
import { arr, line, obj, severityOf, str } from '../normalize';
import { each, hasKeys, isArrayLikeOf, JsonFormat, ParseContext } from './common';

/** One object per check type, or an array of them when several frameworks ran. */
function* parse(doc: unknown, ctx: ParseContext): Generator<Finding> {
  const reports = isArrayLikeOf(doc, () => true) ? each(doc) : [doc];
  for (const r of reports) {
    const report = obj(r);
    const checkType = str(report.check_type) ?? 'unknown';
    for (const c of each(obj(report.results).failed_checks)) {
      const check = obj(c);
      const range = arr(check.file_line_range);
      const sev = str(check.severity);
      yield ctx.finding({
        tool: 'checkov',
        toolCategory:
          checkType === 'sca_package' || checkType === 'sca_image'
            ? 'sca'
            : checkType === 'secrets'
              ? 'secrets'
              : 'iac',
        ruleId: str(check.check_id),
        title: str(check.check_name) ?? str(check.check_id) ?? 'Checkov check failed',
        description: `Check Type: ${checkType}\nCheck Id: ${str(check.check_id) ?? ''}\n${str(check.check_name) ?? ''}\n`,
        severity: severityOf(sev) ?? 'medium',
        toolSeverity: sev,
        tags: [checkType],
        references: [str(check.guideline)].filter((u): u is string => !!u),
        filePath: str(check.file_path),
        startLine: line(range[0]),
        endLine: line(range[1]),
        // The resource name, not its lines, identifies what failed the check.
        locator: str(check.resource) ? `resource:${String(check.resource)}` : undefined,
      });
    }
  }
}

const isReport = (r: unknown): boolean => hasKeys(r, 'check_type', 'results');

export const checkov: JsonFormat = {
  id: 'checkov',
  title: 'Checkov JSON (checkov -o json)',
  testedWith: 'Checkov 1.0.467 and 2.0.209',
  kind: 'json',
  detect: (doc) => isReport(doc) || isArrayLikeOf(doc, isReport),
  // With nothing to check Checkov writes only its summary, or an empty list.
  isEmptyReport: (doc) =>
    (Array.isArray(doc) && doc.length === 0) ||
    (hasKeys(doc, 'passed', 'failed', 'resource_count') && !('results' in (doc as object))),
  parse,
};
