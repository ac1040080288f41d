import { Finding } from '../model';
import { obj, severityOf, str } from '../normalize';
import { each, hasKeys, isArrayLikeOf, JsonFormat, ParseContext } from './common';

/** The fields of a record that are not the audit's own details. */
const COMMON = new Set(['AuditResultName', 'level', 'msg', 'time']);

/**
 * `kubeaudit all -p json` (0.11–0.22; cluster, local and manifest mode): JSON lines, one per audit
 * result, each one finding. A result is one auditor's verdict on one container or resource, so its
 * identity is the result name, the resource (namespace, kind, name) and the container; the `time`
 * of the run is left out of it.
 */
function* parse(doc: unknown, ctx: ParseContext): Generator<Finding> {
  for (const r of each(doc)) {
    const x = obj(r);
    const name = str(x.AuditResultName) ?? 'kubeaudit';
    const level = str(x.level) ?? 'error';
    const kind = str(x.ResourceKind);
    const resourceName = str(x.ResourceName);
    const namespace = str(x.ResourceNamespace);
    const container = str(x.Container);
    const id = [namespace, kind, resourceName].filter(Boolean).join('/');
    yield ctx.finding({
      tool: 'kubeaudit',
      toolCategory: 'iac',
      ruleId: name,
      title: `${name}${resourceName ? `_${resourceName}` : ''}`,
      description: Object.entries(x)
        .filter(([k]) => !COMMON.has(k))
        .map(([k, v]) => `${k}: ${String(v)}`)
        .concat(str(x.msg) ? [`msg: ${String(x.msg)}`] : [])
        .join('\n'),
      // kubeaudit's logrus levels error, warning and info read as the common words do.
      severity: severityOf(level) ?? 'info',
      toolSeverity: level,
      tags: ['kubernetes'],
      mitigation: str(x.msg),
      references: [`https://github.com/Shopify/kubeaudit#auditors`],
      resource: id ? { id, type: kind, name: resourceName } : undefined,
      locator: `${name}|${container ?? ''}`,
    });
  }
}

const isResult = (r: unknown): boolean => hasKeys(r, 'AuditResultName', 'level', 'msg');

export const kubeaudit: JsonFormat = {
  id: 'kubeaudit',
  title: 'kubeaudit JSON lines (kubeaudit all -p json)',
  testedWith: 'kubeaudit 0.11–0.22',
  kind: 'json',
  // A cluster without audit results gives no JSON line at all.
  acceptsEmpty: true,
  detect: (doc) => isResult(doc) || isArrayLikeOf(doc, isResult),
  parse: (doc, ctx) => parse(isResult(doc) ? [doc] : doc, ctx),
};
