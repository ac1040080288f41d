import { Finding } from '../model';
import { line, obj, severityOf, str } from '../normalize';
import { each, hasKeys, JsonFormat, ParseContext } from './common';

/**
 * `terrascan scan -o json` (1.x): one finding per violation, a policy on one resource; skipped
 * violations (`#ts:skip` annotations) are kept, suppressed. Severity is Terrascan's HIGH/MEDIUM/LOW.
 */
function* parse(doc: unknown, ctx: ParseContext): Generator<Finding> {
  const results = obj(obj(doc).results);
  for (const [list, skipped] of [
    [results.violations, false],
    [results.skipped_violations, true],
  ] as const) {
    for (const v of each(list)) {
      const x = obj(v);
      const ruleId = str(x.rule_id) ?? str(x.rule_name) ?? 'terrascan';
      const sev = str(x.severity) ?? 'MEDIUM';
      const resource = [str(x.resource_type), str(x.resource_name)].filter(Boolean).join('.');
      yield ctx.finding({
        tool: 'terrascan',
        toolCategory: 'iac',
        ruleId,
        title: str(x.description) ?? str(x.rule_name) ?? ruleId,
        description: [
          str(x.rule_name) && `Rule: ${String(x.rule_name)}`,
          resource && `Resource: ${resource}`,
          str(x.module_name) && `Module: ${String(x.module_name)}`,
        ]
          .filter(Boolean)
          .join('\n'),
        severity: severityOf(sev) ?? 'medium',
        toolSeverity: sev,
        tags: [str(x.category)].filter((t): t is string => !!t),
        filePath: str(x.file),
        startLine: line(x.line),
        // One policy on one resource is one finding wherever its line moves.
        locator: `${ruleId}|${resource}`,
        suppression: skipped ? { state: 'ignored', source: 'tool' } : undefined,
      });
    }
  }
}

export const terrascan: JsonFormat = {
  id: 'terrascan',
  title: 'Terrascan JSON (terrascan scan -o json)',
  testedWith: 'Terrascan 1.x',
  kind: 'json',
  detect: (doc) => hasKeys(doc, 'results') && hasKeys(obj(doc).results, 'scan_summary', 'violations'),
  parse,
};
