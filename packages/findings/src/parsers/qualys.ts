import { Finding, FindingInit, Severity } from '../model';
import { child, childText, path, XmlElement } from '../io/xml';
import { addCvss, severityOf, vulnIds } from '../normalize';
import { CsvFormat, ParseContext, XmlFormat } from './common';
import { serviceUrl } from './locations';
import { htmlText, isoDate } from './text';

/** Qualys severity levels 1–5 (minimal, medium, serious, critical, urgent). */
const LEVEL: Record<string, Severity> = { '1': 'info', '2': 'low', '3': 'medium', '4': 'high', '5': 'critical' };

function qualysSeverity(v: string | undefined): Severity {
  const t = v?.trim() ?? '';
  return LEVEL[t] ?? severityOf(t) ?? 'info';
}

/** "8.1 (AV:N/AC:H/...)" as Qualys writes CVSS cells: score, then the vector in parentheses. */
function cvssCell(init: FindingInit, cell: string | undefined, prefix: string): void {
  const m = /^\s*([\d.]+)?\s*(?:\((.*)\))?\s*$/.exec(cell ?? '');
  if (!m) return;
  const vector = m[2] && !m[2].startsWith('CVSS:') ? `${prefix}${m[2]}` : m[2];
  addCvss(init, vector, m[1]);
}

/** The base cell with the temporal metrics of "7.4 (E:U/RL:U/RC:C)" appended to its vector. */
function withTemporal(base: string | undefined, temporal: string | undefined): string | undefined {
  const t = /\(([^)]*)\)/.exec(temporal ?? '')?.[1];
  return base && t ? base.replace(/\)\s*$/, `/${t})`) : base;
}

/**
 * Qualys VM CSV: the scan/host detection report (`IP`, `QID`, `Title`, `Severity` 1–5, ...) and the
 * monthly PCI report (`IP`, `QID`, `VULN TITLE`, `SEVERITY` as a word). One finding per QID and host:
 * the host is where the vulnerability is fixed, as for the other network scanners; rows of one QID on
 * one host and port merge.
 */
function* parseCsv(rows: Record<string, string>[], ctx: ParseContext): Generator<Finding> {
  for (const row of rows) {
    const title = row.Title || row['VULN TITLE'];
    if (!title || title === 'Title') continue;
    const host = row.FQDN || row.DNS || row.HOSTNAME || row.IP || 'unknown';
    const port = row.Port ?? row.PORT;
    const protocol = row.Protocol ?? row.PROTOCOL;
    const status = row['Vuln Status'];
    const fixed = !!row['Date Last Fixed'] && !/^(Active|Re-Opened|New)$/i.test(status ?? '');
    const falsePositive = /^(approved|accepted)/i.test(row['FALSE POSITIVE STATUS'] ?? '');
    const init: FindingInit = {
      tool: 'qualys',
      toolCategory: 'dast',
      ruleId: row.QID,
      title: `QID-${row.QID} | ${title}`,
      description: htmlText(row.Threat ?? row.THREAT),
      severity: qualysSeverity(row.Severity ?? row.SEVERITY),
      toolSeverity: row.Severity ?? row.SEVERITY,
      vulnerabilityIds: vulnIds([], row['CVE ID'] ?? row.CVEID ?? ''),
      mitigation: htmlText(row.Solution ?? row.SOLUTION),
      tags: [row.Type ?? row.TYPE, row.Category ?? row.CATEGORY].filter((t): t is string => !!t),
      locator: `port:${port ?? ''}/${protocol ?? ''}`,
      endpoints: [{ url: serviceUrl(host, port, protocol) }],
      suppression: fixed
        ? { state: 'fixed', source: 'tool' }
        : falsePositive
          ? { state: 'false_positive', source: 'tool' }
          : undefined,
      detectedAt: isoDate(row['Last Detected'] ?? row['LAST SCAN'], row['LAST SCAN'] ? 'dmy' : 'mdy'),
    };
    cvssCell(
      init,
      withTemporal(row['CVSS3 Base'] ?? row['CVSS3.1 Base'], row['CVSS3 Temporal'] ?? row['CVSS3.1 Temporal']),
      'CVSS:3.0/',
    );
    cvssCell(init, row['CVSS Base'] ?? row.CVSS_BASE, '');
    yield ctx.finding(init);
  }
}

interface QidDetails {
  title?: string;
  severity?: string;
  threat?: string;
  impact?: string;
  solution?: string;
  cves: string[];
  cvss3?: string;
  cvss3Vector?: string;
  category?: string;
}

function glossary(root: XmlElement): Map<string, QidDetails> {
  const out = new Map<string, QidDetails>();
  for (const d of path(root, 'GLOSSARY', 'VULN_DETAILS_LIST', 'VULN_DETAILS')) {
    const qid = childText(d, 'QID') ?? d.attrs.id?.replace(/^qid_/, '');
    if (!qid) continue;
    out.set(qid, {
      title: childText(d, 'TITLE'),
      severity: childText(d, 'SEVERITY'),
      threat: childText(d, 'THREAT'),
      impact: childText(d, 'IMPACT'),
      solution: childText(d, 'SOLUTION'),
      cves: path(d, 'CVE_ID_LIST', 'CVE_ID').map((c) => childText(c, 'ID') ?? c.text),
      cvss3: childText(child(d, 'CVSS3_SCORE'), 'BASE') ?? childText(d, 'CVSS3_BASE'),
      cvss3Vector: childText(child(d, 'CVSS3_SCORE'), 'VECTOR_STRING'),
      category: childText(d, 'CATEGORY'),
    });
  }
  return out;
}

function hostFinding(
  ctx: ParseContext,
  host: string,
  qid: string,
  d: QidDetails | undefined,
  port: string | undefined,
  protocol: string | undefined,
  extra: Partial<FindingInit>,
): Finding {
  const init: FindingInit = {
    tool: 'qualys',
    toolCategory: 'dast',
    ruleId: qid,
    title: `QID-${qid} | ${d?.title ?? 'Qualys vulnerability'}`,
    description: [htmlText(d?.threat), htmlText(d?.impact)].filter(Boolean).join('\n\n') || undefined,
    severity: qualysSeverity(d?.severity),
    toolSeverity: d?.severity,
    vulnerabilityIds: vulnIds(d?.cves ?? []),
    mitigation: htmlText(d?.solution),
    tags: [d?.category].filter((t): t is string => !!t),
    locator: `port:${port ?? ''}/${protocol ?? ''}`,
    endpoints: [{ url: serviceUrl(host, port, protocol) }],
    ...extra,
  };
  addCvss(init, d?.cvss3Vector, d?.cvss3);
  return ctx.finding(init);
}

/**
 * Qualys VM XML: the asset data report (`<ASSET_DATA_REPORT>`: hosts' `VULN_INFO` entries, details in
 * the glossary) and the scan report (`<SCAN>`: `IP/VULNS/CAT/VULN`). One finding per QID, host and port.
 */
function* parseXml(root: XmlElement, ctx: ParseContext): Generator<Finding> {
  const details = glossary(root);
  for (const host of path(root, 'HOST_LIST', 'HOST')) {
    const name = childText(host, 'DNS') ?? childText(host, 'IP') ?? 'unknown';
    for (const info of path(host, 'VULN_INFO_LIST', 'VULN_INFO')) {
      const qid = childText(info, 'QID') ?? child(info, 'QID')?.attrs.id?.replace(/^qid_/, '') ?? 'unknown';
      const status = childText(info, 'VULN_STATUS');
      yield hostFinding(ctx, name, qid, details.get(qid), childText(info, 'PORT'), childText(info, 'PROTOCOL'), {
        suppression: status && /^fixed$/i.test(status) ? { state: 'fixed', source: 'tool' } : undefined,
        detectedAt: childText(info, 'FIRST_FOUND'),
        tags: [childText(info, 'TYPE'), details.get(qid)?.category].filter((t): t is string => !!t),
      });
    }
  }
  for (const ip of path(root, 'IP')) {
    const name = ip.attrs.name || ip.attrs.value || 'unknown';
    for (const group of ['VULNS', 'PRACTICES', 'INFOS']) {
      for (const cat of path(ip, group, 'CAT')) {
        for (const vuln of path(cat, 'VULN')) {
          const qid = vuln.attrs.number ?? 'unknown';
          const d: QidDetails = {
            title: childText(vuln, 'TITLE'),
            severity: vuln.attrs.severity,
            threat: childText(vuln, 'DIAGNOSIS'),
            impact: childText(vuln, 'CONSEQUENCE'),
            solution: childText(vuln, 'SOLUTION'),
            cves: path(vuln, 'CVE_ID_LIST', 'CVE_ID').map((c) => childText(c, 'ID') ?? c.text),
            cvss3: childText(child(vuln, 'CVSS3_SCORE'), 'BASE') ?? childText(vuln, 'CVSS3_BASE'),
            category: cat.attrs.value,
          };
          yield hostFinding(ctx, name, qid, d, cat.attrs.port, cat.attrs.protocol, {
            tags: [group.toLowerCase(), cat.attrs.value].filter((t): t is string => !!t),
          });
        }
      }
    }
  }
}

export const qualysCsv: CsvFormat = {
  id: 'qualys-csv',
  title: 'Qualys VM CSV (scan / host detection report, monthly PCI report)',
  testedWith: 'Qualys VM CSV reports, from corpus samples that carry no tool version',
  kind: 'csv',
  detect: (header) => header.includes('QID') && (header.includes('Title') || header.includes('VULN TITLE')),
  parse: parseCsv,
};

export const qualysXml: XmlFormat = {
  id: 'qualys-xml',
  title: 'Qualys VM XML (asset data report, scan report)',
  testedWith: 'Qualys VM XML reports, from corpus samples that carry no tool version',
  kind: 'xml',
  detect: (root) =>
    root.name === 'ASSET_DATA_REPORT' ||
    (root.name === 'SCAN' && 'value' in root.attrs && path(root, 'HEADER').length + path(root, 'IP').length > 0),
  parse: parseXml,
};
