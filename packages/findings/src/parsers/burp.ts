import { Finding } from '../model';
import { childText, path, XmlElement } from '../io/xml';
import { cwes, severityOf } from '../normalize';
import { ParseContext, XmlFormat } from './common';
import { siteUrl } from './locations';
import { htmlLinks, htmlText } from './text';

/**
 * Burp Suite "Report issues" XML export (root `<issues>`). One record per issue and location; records
 * of one issue type with the same severity on one host merge into one finding whose endpoints are
 * the locations (the web fingerprint, with the severity as locator), as in DefectDojo.
 */
function* parse(root: XmlElement, ctx: ParseContext): Generator<Finding> {
  for (const issue of path(root, 'issue')) {
    const hostEl = path(issue, 'host')[0];
    const site = hostEl?.text || undefined;
    const word = childText(issue, 'severity') ?? 'Information';
    const severity = severityOf(word) ?? 'info';
    const url = siteUrl(site, childText(issue, 'location') ?? childText(issue, 'path'));
    const request = path(issue, 'requestresponse', 'request')[0];
    const detail = htmlText(childText(issue, 'issueDetail'));
    const background = htmlText(childText(issue, 'issueBackground'));
    const remediation = [
      htmlText(childText(issue, 'remediationDetail')),
      htmlText(childText(issue, 'remediationBackground')),
    ]
      .filter(Boolean)
      .join('\n\n');
    const classifications = childText(issue, 'vulnerabilityClassifications');
    const serialNumber = childText(issue, 'serialNumber');
    yield ctx.finding({
      tool: 'burp',
      toolCategory: 'dast',
      ruleId: childText(issue, 'type'),
      title: childText(issue, 'name') ?? 'Burp issue',
      description: [url && `URL: ${url}`, detail, background].filter(Boolean).join('\n\n') || undefined,
      severity,
      toolSeverity: word,
      confidence: childText(issue, 'confidence'),
      cwes: cwes(htmlText(classifications)),
      references: [...htmlLinks(childText(issue, 'references')), ...htmlLinks(classifications)],
      mitigation: remediation || undefined,
      locator: `severity:${severity}`,
      endpoints: url ? [{ url, method: request?.attrs.method || undefined }] : [],
      toolFingerprints: serialNumber ? { serialNumber } : {},
    });
  }
}

export const burp: XmlFormat = {
  id: 'burp',
  title: 'Burp Suite XML issues export',
  testedWith: 'Burp Suite 1.6.05 and 2020.12.1',
  kind: 'xml',
  detect: (root) =>
    root.name === 'issues' &&
    ('burpVersion' in root.attrs ||
      path(root, 'issue').some((i) => !!childText(i, 'serialNumber') || !!childText(i, 'type'))),
  isEmptyReport: (doc) => (doc as XmlElement).name === 'issues' && (doc as XmlElement).children.length === 0,
  parse,
};
