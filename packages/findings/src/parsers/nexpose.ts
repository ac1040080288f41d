import { Finding, FindingInit, Severity } from '../model';
import { child, path, XmlElement } from '../io/xml';
import { addCvss, int, vulnIds } from '../normalize';
import { ParseContext, XmlFormat } from './common';
import { serviceUrl } from './locations';

/**
 * Rapid7 Nexpose / InsightVM "XML Export" 1.0 and 2.0 (`<NexposeReport>`). The report defines each
 * vulnerability once (`<VulnerabilityDefinitions>`) and lists, per node and per service of a node,
 * the tests that found it: one finding per defined vulnerability, its nodes (and services) as endpoints, as
 * DefectDojo reads it and as Nexpose presents a vulnerability with its affected assets. Tests with
 * a status other than `vulnerable-*` or `potential` are not findings. Besides, as DefectDojo does,
 * one informational "Host Up" finding lists the nodes found alive, and one informational finding
 * per open service (name, protocol and port) lists the nodes offering it: Nexpose's asset inventory.
 *
 * Severity: Nexpose's 1–10 scale (9–10 critical, 7–8 high, 4–6 medium, 2–3 low, 1 informational).
 * A node is named by its first name (`<names>`), else its address; a service endpoint is
 * `tcp://host:port`.
 */

function severityOf(level: number | undefined): Severity {
  if (level === undefined) return 'info';
  if (level >= 9) return 'critical';
  if (level >= 7) return 'high';
  if (level >= 4) return 'medium';
  if (level >= 2) return 'low';
  return 'info';
}

/** Text of Nexpose's HTML-like blocks (`ContainerBlockElement`, `Paragraph`, lists, `URLLink`). */
function textOf(el: XmlElement | undefined): string {
  if (!el) return '';
  const own = el.name === 'URLLink' ? (el.attrs.LinkURL ?? el.text) : el.text;
  const inner = el.children.map(textOf).filter(Boolean);
  const joined = [own, ...inner].filter(Boolean).join(el.name === 'ListItem' ? ' ' : '\n');
  return el.name === 'ListItem' ? `- ${joined}` : joined;
}

const FOUND = /^(vulnerable|potential)/i;

interface Affected {
  endpoints: Map<string, { url: string }>;
  keys: Set<string>;
}

function add(map: Map<string, Affected>, id: string, url: string, key: string | undefined): void {
  let a = map.get(id);
  if (!a) map.set(id, (a = { endpoints: new Map(), keys: new Set() }));
  a.endpoints.set(url, { url });
  if (key) a.keys.add(key);
}

function* parse(root: XmlElement, ctx: ParseContext): Generator<Finding> {
  const found = new Map<string, Affected>();
  const alive = new Map<string, { url: string }>();
  const services = new Map<string, { title: string; endpoints: Map<string, { url: string }> }>();
  const definitions = new Map<string, XmlElement>();
  // Export 1.0 writes the definitions inside a node, 2.0 after the nodes.
  for (const v of [
    ...path(root, 'VulnerabilityDefinitions', 'vulnerability'),
    ...path(root, 'nodes', 'node', 'VulnerabilityDefinitions', 'vulnerability'),
  ]) {
    if (v.attrs.id) definitions.set(v.attrs.id.toLowerCase(), v);
  }
  for (const node of path(root, 'nodes', 'node')) {
    const host = path(node, 'names', 'name')[0]?.text || node.attrs.address || 'unknown';
    if (!node.attrs.status || node.attrs.status === 'alive') alive.set(host, { url: serviceUrl(host) });
    for (const test of path(node, 'tests', 'test')) {
      if (FOUND.test(test.attrs.status ?? ''))
        add(found, (test.attrs.id ?? '').toLowerCase(), serviceUrl(host), test.attrs.key);
    }
    for (const endpoint of path(node, 'endpoints', 'endpoint')) {
      const protocol = endpoint.attrs.protocol ?? 'tcp';
      const url = serviceUrl(host, endpoint.attrs.port, protocol);
      for (const service of path(endpoint, 'services', 'service')) {
        if (endpoint.attrs.status === undefined || endpoint.attrs.status === 'open') {
          const title = `Open service: ${service.attrs.name ?? 'unknown'} (${endpoint.attrs.port ?? ''}/${protocol})`;
          const s = services.get(title) ?? { title, endpoints: new Map() };
          s.endpoints.set(url, { url });
          services.set(title, s);
        }
        for (const test of path(service, 'tests', 'test')) {
          if (FOUND.test(test.attrs.status ?? '')) add(found, (test.attrs.id ?? '').toLowerCase(), url, test.attrs.key);
        }
      }
    }
  }
  for (const [id, affected] of found) {
    const def = definitions.get(id);
    // Nexpose defines every vulnerability it reports; a test without one has no title or severity.
    if (!def) continue;
    const refs = path(def, 'references', 'reference');
    const level = int(def.attrs.severity);
    const init: FindingInit = {
      tool: 'nexpose',
      toolCategory: 'dast',
      ruleId: id,
      title: def.attrs.title ?? id,
      description:
        [textOf(child(def, 'description')), affected.keys.size ? `Found at: ${[...affected.keys].join(', ')}` : '']
          .filter(Boolean)
          .join('\n\n') || undefined,
      severity: severityOf(level),
      toolSeverity: def.attrs.severity,
      vulnerabilityIds: vulnIds(refs.filter((r) => /^cve$/i.test(r.attrs.source ?? '')).map((r) => r.text)),
      references: refs
        .filter((r) => /^url$/i.test(r.attrs.source ?? ''))
        .map((r) => r.text)
        .filter(Boolean),
      mitigation: textOf(child(def, 'solution')) || undefined,
      tags: path(def, 'tags', 'tag').map((t) => t.text),
      endpoints: [...affected.endpoints.values()],
    };
    addCvss(init, def.attrs.cvssVector, def.attrs.cvssScore);
    yield ctx.finding(init);
  }
  if (alive.size) {
    yield ctx.finding({
      tool: 'nexpose',
      toolCategory: 'dast',
      ruleId: 'host-up',
      title: 'Host Up',
      severity: 'info',
      endpoints: [...alive.values()],
    });
  }
  for (const s of services.values()) {
    yield ctx.finding({
      tool: 'nexpose',
      toolCategory: 'dast',
      ruleId: 'open-service',
      title: s.title,
      severity: 'info',
      endpoints: [...s.endpoints.values()],
    });
  }
}

export const nexpose: XmlFormat = {
  id: 'nexpose',
  title: 'Rapid7 Nexpose / InsightVM XML Export',
  testedWith: 'Nexpose XML Export 1.0 and 2.0',
  kind: 'xml',
  detect: (root) => root.name === 'NexposeReport',
  parse,
};
