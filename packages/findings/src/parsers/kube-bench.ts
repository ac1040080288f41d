import { Finding, Severity } from '../model';
import { arr, obj, str } from '../normalize';
import { each, hasKeys, isArrayLikeOf, JsonFormat, ParseContext } from './common';

/**
 * kube-bench defines no severities: a failed check is medium, a warning (a check kube-bench could not
 * decide, or a manual one) info. `PASS` and `INFO` are not findings.
 */
const STATUSES: Record<string, Severity> = { FAIL: 'medium', WARN: 'info' };

/**
 * `kube-bench --json` (0.3–0.10): an array of controls (older) or `{Controls, Totals}` (0.6 on). One
 * finding per failed or warned check of a benchmark; the node type (master, node, etcd, policies) is
 * the resource, so the same check on the control plane and on a worker are two findings.
 */
function* parse(doc: unknown, ctx: ParseContext): Generator<Finding> {
  const controls = Array.isArray(doc) || !hasKeys(doc, 'Controls') ? doc : obj(doc).Controls;
  for (const c of each(controls)) {
    const control = obj(c);
    const nodeType = str(control.node_type) ?? str(control.id) ?? 'node';
    const benchmark = [str(control.detected_version) ?? str(control.version), str(control.text)].filter(Boolean);
    for (const t of arr(control.tests)) {
      const test = obj(t);
      for (const r of arr(test.results)) {
        const x = obj(r);
        const status = (str(x.status) ?? '').toUpperCase();
        const severity = STATUSES[status];
        if (!severity) continue;
        const id = str(x.test_number) ?? 'kube-bench';
        yield ctx.finding({
          tool: 'kube-bench',
          toolCategory: 'iac',
          ruleId: id,
          title: `${id} ${str(x.test_desc) ?? ''}`.trim(),
          description:
            [
              str(test.desc) && `Section ${str(test.section) ?? ''}: ${String(test.desc)}`,
              benchmark.length ? `Benchmark: ${benchmark.join(' ')}` : undefined,
              str(x.audit) && `Audit: ${String(x.audit)}`,
              str(x.expected_result) && `Expected: ${String(x.expected_result)}`,
              str(x.actual_value) && `Actual: ${String(x.actual_value)}`,
              str(x.reason) && `Reason: ${String(x.reason)}`,
            ]
              .filter(Boolean)
              .join('\n') || undefined,
          severity,
          toolSeverity: status,
          tags: ['kubernetes', 'cis', x.scored === false ? 'not-scored' : 'scored'],
          mitigation: str(x.remediation),
          resource: { id: `node-type/${nodeType}`, type: 'kubernetes-node', name: nodeType },
        });
      }
    }
  }
}

const isControl = (c: unknown): boolean => hasKeys(c, 'id', 'node_type', 'tests');

export const kubeBench: JsonFormat = {
  id: 'kube-bench',
  title: 'kube-bench JSON (kube-bench --json; array and {Controls, Totals} layouts)',
  testedWith: 'kube-bench 0.3–0.10',
  kind: 'json',
  detect: (doc) =>
    isArrayLikeOf(doc, isControl) ||
    (hasKeys(doc, 'Controls', 'Totals') && isArrayLikeOf(obj(doc).Controls, isControl, true)),
  parse,
};
