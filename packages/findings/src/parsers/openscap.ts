import { Finding, Severity } from '../model';
import { child, children, XmlElement } from '../io/xml';
import { severityOf } from '../normalize';
import { ParseContext, XmlFormat } from './common';
import { serviceUrl, siteUrl } from './locations';

/**
 * OpenSCAP and other XCCDF 1.1/1.2 results (`oscap xccdf eval --results`: a `<Benchmark>` with its
 * `<TestResult>`s, a bare `<TestResult>`, or the ARF `<asset-report-collection>` of
 * `--results-arf`, whose benchmark and results sit deeper). One finding per rule whose result is
 * `fail`, per test result (per scanned target); passed, not applicable, not selected, not checked,
 * informational and fixed results are not findings. The target is the finding's resource (its
 * name, so a changed address keeps the fingerprint) and its name and addresses the endpoints, as
 * DefectDojo lists them. Severity: the rule result's, else the rule's (`high`, `medium`, `low`,
 * `info`), else medium (XCCDF's `unknown`). CVE idents are vulnerability ids, other idents (CCE)
 * tags.
 */

/** Elements of that name anywhere below, without descending into matches. */
function findAll(el: XmlElement, name: string, out: XmlElement[] = []): XmlElement[] {
  for (const c of el.children) {
    if (c.name === name) out.push(c);
    else findAll(c, name, out);
  }
  return out;
}

/** Text of an element with XHTML children (descriptions, fix texts). */
function textOf(el: XmlElement | undefined): string {
  if (!el) return '';
  return [el.text, ...el.children.map(textOf)].filter(Boolean).join(' ').replace(/\s+/g, ' ').trim();
}

/** An endpoint URL for a target name or address (IPv6 in brackets, a URL as it is). */
function endpointOf(address: string): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(address)) return siteUrl(address) ?? address;
  if (address.includes(':') && !/^[^:]+:\d+$/.test(address)) return `tcp://[${address}]`;
  const [host, port] = address.split(':');
  return serviceUrl(host, port);
}

function ruleSeverity(rule: XmlElement | undefined, rules: Map<string, XmlElement>): string | undefined {
  for (let r = rule, depth = 0; r && depth < 16; r = rules.get(r.attrs.extends ?? ''), depth++) {
    if (r.attrs.severity) return r.attrs.severity;
  }
  return undefined;
}

function* parse(root: XmlElement, ctx: ParseContext): Generator<Finding> {
  const rules = new Map<string, XmlElement>();
  for (const r of findAll(root, 'Rule')) if (r.attrs.id) rules.set(r.attrs.id, r);
  const results = root.name === 'TestResult' ? [root] : findAll(root, 'TestResult');
  for (const result of results) {
    const target = child(result, 'target')?.text || 'unknown';
    const addresses = [target, ...children(result, 'target-address').map((a) => a.text)].filter(Boolean);
    const endpoints = [...new Set(addresses)].map((a) => ({ url: endpointOf(a) }));
    for (const rr of children(result, 'rule-result')) {
      if (child(rr, 'result')?.text !== 'fail') continue;
      const id = rr.attrs.idref ?? 'unknown';
      const rule = rules.get(id);
      const word = rr.attrs.severity ?? ruleSeverity(rule, rules);
      const severity: Severity = (word && word !== 'unknown' ? severityOf(word) : undefined) ?? 'medium';
      const idents = [...children(rr, 'ident'), ...children(rule, 'ident')];
      const cves = idents.filter((i) => /cve/i.test(i.attrs.system ?? '') || /^CVE-/i.test(i.text));
      yield ctx.finding({
        tool: 'openscap',
        toolCategory: 'iac',
        ruleId: id,
        title: textOf(child(rule, 'title')) || id,
        description: textOf(child(rule, 'description')) || undefined,
        severity,
        toolSeverity: word,
        vulnerabilityIds: [...new Set(cves.map((i) => i.text))],
        references: children(rule, 'reference')
          .map((r) => r.attrs.href ?? r.text)
          .filter((r) => /^https?:/.test(r)),
        mitigation:
          textOf(child(rule, 'fixtext')) || textOf(child(rr, 'fix')) || textOf(child(rule, 'fix')) || undefined,
        tags: idents.filter((i) => !cves.includes(i)).map((i) => i.text),
        resource: { id: target, type: 'host', name: target },
        endpoints,
        detectedAt: rr.attrs.time ?? result.attrs['end-time'],
      });
    }
  }
}

export const openscap: XmlFormat = {
  id: 'openscap',
  title: 'OpenSCAP / XCCDF results (Benchmark with TestResult, TestResult, ARF)',
  testedWith: 'OpenSCAP 1.2.17 results, XCCDF 1.1.3 and 1.2, ARF',
  kind: 'xml',
  detect: (root) =>
    root.name === 'TestResult' ||
    (root.name === 'Benchmark' && children(root, 'TestResult').length > 0) ||
    (root.name === 'asset-report-collection' && findAll(root, 'TestResult').length > 0),
  parse,
};
