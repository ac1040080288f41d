import { Finding, FindingInit, Severity } from '../model';
import { child, childText, path, XmlElement } from '../io/xml';
import { addCvss, epssOf, num, severityOf, severityOfScore, vulnIds } from '../normalize';
import { CsvFormat, ParseContext, XmlFormat } from './common';
import { serviceUrl } from './locations';

/**
 * Greenbone / OpenVAS results, XML (GMP `get_reports` export, `<report>` with nested `<report>`)
 * and CSV ("CSV Results"). One finding per result, located at its host and port: the NVT OID is
 * the rule, the port the locator, so one NVT on two ports of a host stays two findings.
 */

/** The threat word (`Log` and `Debug` are informational); else the severity score. */
function severity(threat: string | undefined, score: string | undefined): Severity {
  const t = threat?.trim().toLowerCase();
  if (t === 'log' || t === 'debug' || t === 'false positive') return 'info';
  return severityOf(t) ?? severityOfScore(num(score) ?? 0) ?? 'info';
}

/** "443/tcp", "general/tcp", "tcp/443" into port and protocol. */
function portOf(text: string | undefined): { port?: string; protocol?: string } {
  const m = /^\s*(\w+)\/(\w+)/.exec(text ?? '');
  if (!m) return {};
  return /^\d+$/.test(m[1])
    ? { port: m[1], protocol: m[2] }
    : /^\d+$/.test(m[2])
      ? { port: m[2], protocol: m[1] }
      : { protocol: m[2] };
}

/** `key=value|key=value` tags of an NVT. */
function tags(text: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (text ?? '').split('|')) {
    const i = part.indexOf('=');
    if (i > 0) out[part.slice(0, i).trim()] = part.slice(i + 1).trim();
  }
  return out;
}

/** The report element: the document root, or inside a GMP `<get_reports_response>`. */
function reportOf(root: XmlElement): XmlElement {
  return root.name === 'get_reports_response' ? (child(root, 'report') ?? root) : root;
}

function* parseXml(root: XmlElement, ctx: ParseContext): Generator<Finding> {
  const report = reportOf(root);
  const inner = child(report, 'report') ?? report;
  for (const result of path(inner, 'results', 'result')) {
    const nvt = child(result, 'nvt');
    const hostEl = child(result, 'host');
    const host = hostEl?.text || childText(hostEl, 'hostname') || 'unknown';
    const { port, protocol } = portOf(childText(result, 'port'));
    const threat = childText(result, 'threat');
    const score = childText(result, 'severity');
    const nvtTags = tags(childText(nvt, 'tags'));
    const oid = nvt?.attrs.oid;
    const refs = path(nvt, 'refs', 'ref');
    const epss = child(child(nvt, 'epss'), 'max_epss');
    const init: FindingInit = {
      tool: 'openvas',
      toolCategory: 'dast',
      ruleId: oid,
      title: childText(nvt, 'name') ?? childText(result, 'name') ?? 'OpenVAS result',
      description:
        [
          nvtTags.summary,
          childText(result, 'description'),
          nvtTags.insight && `Insight: ${nvtTags.insight}`,
          nvtTags.impact && `Impact: ${nvtTags.impact}`,
        ]
          .filter(Boolean)
          .join('\n\n') || undefined,
      severity: severity(threat, score),
      toolSeverity: threat ?? score,
      vulnerabilityIds: vulnIds(refs.filter((r) => r.attrs.type === 'cve').map((r) => r.attrs.id)),
      references: refs
        .filter((r) => r.attrs.type === 'url')
        .map((r) => r.attrs.id)
        .filter((u): u is string => !!u),
      mitigation: childText(nvt, 'solution') ?? nvtTags.solution,
      tags: [childText(nvt, 'family')].filter((t): t is string => !!t),
      locator: `port:${port ?? ''}/${protocol ?? ''}`,
      endpoints: [{ url: serviceUrl(host, port, protocol) }],
      epss: epssOf(childText(epss, 'score'), childText(epss, 'percentile')),
      suppression: threat === 'False Positive' ? { state: 'false_positive', source: 'tool' } : undefined,
      detectedAt: childText(result, 'creation_time'),
    };
    for (const s of path(nvt, 'severities', 'severity')) addCvss(init, childText(s, 'value'), childText(s, 'score'));
    addCvss(init, nvtTags.cvss_base_vector, childText(nvt, 'cvss_base'));
    yield ctx.finding(init);
  }
}

function* parseCsv(rows: Record<string, string>[], ctx: ParseContext): Generator<Finding> {
  for (const row of rows) {
    const host = row.IP || row.Hostname;
    if (!host && !row['NVT Name']) continue;
    const port = row.Port || undefined;
    const protocol = row['Port Protocol'] || undefined;
    const init: FindingInit = {
      tool: 'openvas',
      toolCategory: 'dast',
      ruleId: row['NVT OID'] || undefined,
      title: row['NVT Name'] || 'OpenVAS result',
      description:
        [
          row.Summary,
          row['Specific Result'],
          row['Vulnerability Insight'] && `Insight: ${row['Vulnerability Insight']}`,
          row.Impact && `Impact: ${row.Impact}`,
        ]
          .filter(Boolean)
          .join('\n\n') || undefined,
      severity: severity(row.Severity, row.CVSS),
      toolSeverity: row.Severity || row.CVSS,
      vulnerabilityIds: vulnIds((row.CVEs ?? '').split(/[,\s]+/)),
      references: (row['Other References'] ?? '').split(/[,\s]+/).filter((r) => /^https?:/.test(r)),
      mitigation: row.Solution || undefined,
      locator: `port:${port ?? ''}/${protocol ?? ''}`,
      endpoints: [{ url: serviceUrl(host || 'unknown', port, protocol) }],
      detectedAt: row.Timestamp || undefined,
    };
    addCvss(init, undefined, row.CVSS);
    yield ctx.finding(init);
  }
}

export const openvasXml: XmlFormat = {
  id: 'openvas-xml',
  title: 'Greenbone / OpenVAS XML report',
  testedWith: 'Greenbone GVM 9.0 and 22.6 reports',
  kind: 'xml',
  detect: (doc) => {
    const root = reportOf(doc);
    const inner = child(root, 'report') ?? root;
    return root.name === 'report' && (!!child(inner, 'results') || !!child(inner, 'gmp') || 'format_id' in root.attrs);
  },
  parse: parseXml,
};

export const openvasCsv: CsvFormat = {
  id: 'openvas-csv',
  title: 'Greenbone / OpenVAS CSV results',
  testedWith: 'Greenbone CSV results exports, from corpus samples that carry no tool version',
  kind: 'csv',
  detect: (header) => header.includes('NVT OID') || (header.includes('NVT Name') && header.includes('IP')),
  parse: parseCsv,
};
