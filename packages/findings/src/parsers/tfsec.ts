import { Finding } from '../model';
import { arr, line, obj, severityOf, str } from '../normalize';
import { each, first, hasKeys, JsonFormat, ParseContext } from './common';

/** tfsec 1.x writes the status as a number, older versions as a word. */
const STATUS_CODES: Record<number, string> = { 0: 'failed', 1: 'passed', 2: 'ignored' };

/** `tfsec --format json`: current rule ids (aws-vpc-...) and legacy ones (AWS050, GEN003). */
function* parse(doc: unknown, ctx: ParseContext): Generator<Finding> {
  for (const r of each(obj(doc).results)) {
    const x = obj(r);
    const status = typeof x.status === 'number' ? STATUS_CODES[x.status] : str(x.status)?.toLowerCase();
    // `--include-passed` writes passed checks too.
    if (status === 'passed' || x.passed === true) continue;
    const location = obj(x.location);
    const sev = str(x.severity) ?? 'UNKNOWN';
    const ruleId = str(x.long_id) ?? str(x.rule_id) ?? 'tfsec';
    yield ctx.finding({
      tool: 'tfsec',
      toolCategory: 'iac',
      ruleId,
      title: str(x.rule_description) ?? ruleId,
      description:
        [str(x.description), str(x.impact) && `Impact: ${String(x.impact)}`].filter(Boolean).join('\n\n') || undefined,
      severity: severityOf(sev) ?? 'info',
      toolSeverity: sev,
      tags: [str(x.rule_provider), str(x.rule_service), str(x.legacy_rule_id)].filter((t): t is string => !!t),
      references: [...arr(x.links), x.link]
        .map((l) => str(l)?.replace(/^See (\S+) for more information\.$/, '$1'))
        .filter((u): u is string => !!u),
      mitigation: str(x.resolution),
      filePath: str(location.filename),
      startLine: line(location.start_line),
      endLine: line(location.end_line),
      // tfsec repeats a result for each module instance that uses the same block; one rule at one
      // place of a file is one finding, as DefectDojo merges them.
      locator: ruleId,
      suppression: status === 'ignored' ? { state: 'ignored', source: 'tool' } : undefined,
    });
  }
}

const isResult = (r: unknown): boolean => hasKeys(r, 'rule_id', 'location') && hasKeys(obj(r).location, 'filename');

export const tfsec: JsonFormat = {
  id: 'tfsec',
  title: 'tfsec JSON (tfsec --format json; current and legacy rule ids)',
  testedWith: 'tfsec JSON, current and legacy rule ids, from corpus samples that carry no tool version',
  kind: 'json',
  // With nothing found tfsec writes `{"results": null}`.
  detect: (doc) =>
    hasKeys(doc, 'results') &&
    (isResult(first(obj(doc).results)) || (obj(doc).results === null && Object.keys(obj(doc)).length === 1)),
  isEmptyReport: (doc) =>
    hasKeys(doc, 'results') && Object.keys(obj(doc)).length === 1 && first(obj(doc).results) === undefined,
  parse,
};
