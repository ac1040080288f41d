import { Finding, FindingInit } from '../model';
import { addCvss, arr, cwes, obj, severityOf, str, vulnIds } from '../normalize';
import { isArrayLike } from '../io/json';
import { each, hasKeys, isArrayLikeOf, JsonFormat, ParseContext } from './common';

/** Keys changed from camelCase (templateID, matcher_name) to kebab-case (template-id, matcher-name). */
const pick = (o: Record<string, unknown>, ...keys: string[]): unknown =>
  keys.map((k) => o[k]).find((v) => v !== undefined);

function list(v: unknown): string[] {
  if (isArrayLike(v)) return arr(v).map(String);
  return typeof v === 'string'
    ? v
        .split(/[,\n]/)
        .map((s) => s.replace(/^\s*-\s*/, '').trim())
        .filter(Boolean)
    : [];
}

/** Nuclei writes JSON lines (-jsonl) or, with -json-export, one array. */
function* parse(doc: unknown, ctx: ParseContext): Generator<Finding> {
  for (const x of each(doc)) {
    const r = obj(x);
    const info = obj(r.info);
    const cls = obj(info.classification);
    const template = str(pick(r, 'template-id', 'templateID')) ?? 'nuclei';
    const matcher = str(pick(r, 'matcher-name', 'matcher_name'));
    const url = str(pick(r, 'matched-at', 'matched')) ?? str(r.host) ?? '';
    const sev = str(info.severity) ?? 'info';
    const init: FindingInit = {
      tool: 'nuclei',
      toolCategory: 'dast',
      ruleId: matcher ? `${template}:${matcher}` : template,
      title: str(info.name) ?? template,
      description:
        [
          str(info.description),
          matcher && `Matcher: ${matcher}`,
          arr(pick(r, 'extracted-results', 'extracted_results')).length
            ? `Extracted: ${arr(pick(r, 'extracted-results', 'extracted_results')).join(', ')}`
            : undefined,
        ]
          .filter(Boolean)
          .join('\n') || undefined,
      severity: severityOf(sev) ?? 'info',
      toolSeverity: sev,
      tags: list(info.tags),
      cwes: cwes(cls['cwe-id']),
      vulnerabilityIds: vulnIds(list(cls['cve-id']).map((c) => c.toUpperCase())),
      references: list(info.reference),
      mitigation: str(info.remediation),
      endpoints: url ? [{ url: /^[a-z]+:\/\//i.test(url) ? url : `${str(r.type) ?? 'tcp'}://${url}` }] : [],
      detectedAt: str(r.timestamp),
    };
    addCvss(init, cls['cvss-metrics'], cls['cvss-score']);
    yield ctx.finding(init);
  }
}

const isResult = (r: unknown): boolean =>
  hasKeys(r, 'info', 'host') && (hasKeys(r, 'template-id') || hasKeys(r, 'templateID'));

export const nuclei: JsonFormat = {
  id: 'nuclei',
  title: 'Nuclei JSON lines (-jsonl) or JSON export',
  testedWith: 'Nuclei JSON lines and JSON exports, from corpus samples that carry no tool version',
  kind: 'json',
  acceptsEmpty: true,
  detect: (doc) => isResult(doc) || isArrayLikeOf(doc, isResult),
  parse: (doc, ctx) => parse(isResult(doc) ? [doc] : doc, ctx),
};
