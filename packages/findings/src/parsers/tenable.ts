import { Finding, FindingInit, Severity } from '../model';
import { childText, children, path, XmlElement } from '../io/xml';
import { addCvss, cwes, severityOf, severityOfLevel, vulnIds } from '../normalize';
import { CsvFormat, ParseContext, XmlFormat } from './common';
import { serviceUrl } from './locations';

/** A Nessus severity word ("None" is informational) or level number. */
function nessusSeverity(...values: (string | undefined)[]): Severity | undefined {
  for (const v of values) {
    const t = v?.trim();
    if (!t) continue;
    if (/^none$/i.test(t)) return 'info';
    const s = severityOfLevel(t) ?? severityOf(t);
    if (s) return s;
  }
  return undefined;
}

/** Vectors are written with and without their "CVSS:3.x/" prefix. */
function v3(vector: string | undefined): string | undefined {
  return vector && !vector.startsWith('CVSS:') ? `CVSS:3.0/${vector}` : vector;
}

function v2(vector: string | undefined): string | undefined {
  return vector?.replace(/^CVSS2#/, '');
}

/**
 * Nessus and Tenable XML (`.nessus`, NessusClientData_v2), also of Nessus WAS and Tenable.io scans:
 * one finding per report item, located at the host and port; the plugin is the rule.
 */
function* parseXml(root: XmlElement, ctx: ParseContext): Generator<Finding> {
  for (const host of path(root, 'Report', 'ReportHost')) {
    const props = Object.fromEntries(path(host, 'HostProperties', 'tag').map((t) => [t.attrs.name, t.text]));
    const name = props['host-ip'] ?? host.attrs.name ?? props['host-fqdn'] ?? 'unknown';
    for (const item of children(host, 'ReportItem')) {
      const text = (n: string): string | undefined => childText(item, n);
      // Compliance audits share one plugin for every check: the check is the finding, and a passed check none.
      const check = text('compliance-check-name');
      if (check && /^passed$/i.test(text('compliance-result') ?? '')) continue;
      const severity = nessusSeverity(text('risk_factor'), item.attrs.severity) ?? 'info';
      const port = item.attrs.port;
      const isWeb = /^https?:\/\//i.test(name);
      const init: FindingInit = {
        tool: 'nessus',
        toolCategory: 'dast',
        ruleId: item.attrs.pluginID,
        title: check ?? item.attrs.pluginName ?? text('plugin_name') ?? 'Nessus plugin',
        description:
          [
            text('synopsis'),
            text('description'),
            text('compliance-actual-value') && `Actual value: ${text('compliance-actual-value')}`,
            text('plugin_output') && `Plugin output:\n${text('plugin_output')}`,
          ]
            .filter(Boolean)
            .join('\n\n') || undefined,
        severity,
        toolSeverity: text('risk_factor') ?? item.attrs.severity,
        cwes: cwes(children(item, 'cwe').map((c) => c.text)),
        vulnerabilityIds: vulnIds(children(item, 'cve').map((c) => c.text)),
        references: (text('see_also') ?? '').split(/\s+/).filter((u) => /^https?:/.test(u)),
        mitigation: text('solution'),
        tags: [item.attrs.pluginFamily].filter((t): t is string => !!t),
        locator: `port:${port ?? ''}/${item.attrs.protocol ?? ''}/${severity}`,
        endpoints: [{ url: isWeb ? name : serviceUrl(name, port, item.attrs.protocol) }],
        detectedAt: props.HOST_START,
      };
      addCvss(init, v3(text('cvss3_vector')), text('cvss3_base_score'));
      addCvss(init, v2(text('cvss_vector')), text('cvss_base_score'));
      yield ctx.finding(init);
    }
  }
}

/** The first non-empty cell among the column names, which differ between Nessus and Tenable.sc exports. */
function cell(row: Record<string, string>, ...names: string[]): string | undefined {
  for (const n of names) {
    const v = row[n]?.trim();
    if (v) return v;
  }
  return undefined;
}

/**
 * Nessus / Tenable.io CSV export (`Plugin ID`, `Risk`, `Host`, ...) and Tenable.sc vulnerability CSV
 * (`Plugin`, `Plugin Name`, `Severity`, `IP Address`, ...). Rows of one plugin with one severity on
 * one host and port merge (Tenable writes one row per CVE), as in DefectDojo; empty rows are skipped.
 */
function* parseCsv(rows: Record<string, string>[], ctx: ParseContext): Generator<Finding> {
  for (const row of rows) {
    const plugin = cell(row, 'Plugin ID', 'Plugin');
    const title = cell(row, 'Name', 'Plugin Name');
    if (!plugin && !title) continue;
    const host = cell(row, 'Host', 'IP Address', 'DNS Name', 'FQDN') ?? 'unknown';
    const port = cell(row, 'Port');
    const protocol = cell(row, 'Protocol');
    const severity = nessusSeverity(cell(row, 'Risk'), cell(row, 'Severity'), cell(row, 'Risk Factor')) ?? 'info';
    const init: FindingInit = {
      tool: 'nessus',
      toolCategory: 'dast',
      ruleId: plugin,
      title: title ?? `Plugin ${plugin}`,
      description:
        [cell(row, 'Synopsis'), cell(row, 'Description'), cell(row, 'Plugin Output', 'Plugin Text')]
          .filter(Boolean)
          .join('\n\n') || undefined,
      severity,
      toolSeverity: cell(row, 'Risk', 'Severity', 'Risk Factor'),
      vulnerabilityIds: vulnIds([], cell(row, 'CVE') ?? ''),
      references: (cell(row, 'See Also') ?? '').split(/\s+/).filter((u) => /^https?:/.test(u)),
      mitigation: cell(row, 'Solution'),
      tags: [cell(row, 'Family', 'Plugin Family')].filter((t): t is string => !!t),
      locator: `port:${port ?? ''}/${protocol?.toLowerCase() ?? ''}/${severity}`,
      endpoints: [{ url: serviceUrl(host, port, protocol) }],
      detectedAt: cell(row, 'First Found', 'First Discovered'),
    };
    addCvss(init, v3(cell(row, 'CVSS3 Vector', 'CVSS V3 Vector')), cell(row, 'CVSS3 Base Score', 'CVSS V3 Base Score'));
    addCvss(
      init,
      v2(cell(row, 'CVSS Vector', 'CVSS V2 Vector')),
      cell(row, 'CVSS Base Score', 'CVSS V2 Base Score', 'CVSS'),
    );
    yield ctx.finding(init);
  }
}

export const nessusXml: XmlFormat = {
  id: 'nessus',
  title: 'Nessus / Tenable XML (.nessus)',
  testedWith: 'NessusClientData_v2 exports, from corpus samples that carry no tool version',
  kind: 'xml',
  detect: (root) => root.name === 'NessusClientData_v2',
  parse: parseXml,
};

export const tenableCsv: CsvFormat = {
  id: 'tenable-csv',
  title: 'Nessus / Tenable.io / Tenable.sc CSV export',
  testedWith: 'Nessus, Tenable.io and Tenable.sc CSV exports, from corpus samples that carry no tool version',
  kind: 'csv',
  detect: (header) =>
    (header.includes('Plugin ID') && header.includes('Host') && header.includes('Risk')) ||
    (header.includes('Plugin') && header.includes('Plugin Name') && header.includes('IP Address')),
  parse: parseCsv,
};
