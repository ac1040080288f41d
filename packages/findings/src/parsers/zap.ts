import { Finding, Severity } from '../model';
import { childText, path, XmlElement } from '../io/xml';
import { cwes, line, str } from '../normalize';
import { ParseContext, XmlFormat } from './common';

const RISK: Record<string, Severity> = { '0': 'info', '1': 'low', '2': 'medium', '3': 'high', '4': 'critical' };

/** ZAP writes HTML paragraphs into its texts. */
function plain(s: string | undefined): string | undefined {
  return (
    s
      ?.replace(/<\/?p>/g, '\n')
      .replace(/\n{2,}/g, '\n')
      .trim() || undefined
  );
}

/** One finding per alert of each site; its instances become the finding's endpoints. */
function* parse(root: XmlElement, ctx: ParseContext): Generator<Finding> {
  for (const site of path(root, 'site')) {
    for (const alert of path(site, 'alerts', 'alertitem')) {
      const risk = childText(alert, 'riskcode') ?? '0';
      const name = childText(alert, 'alert') ?? childText(alert, 'name') ?? 'ZAP alert';
      const endpoints = path(alert, 'instances', 'instance').map((i) => ({
        url: childText(i, 'uri') ?? site.attrs.name,
        method: childText(i, 'method'),
        parameter: childText(i, 'param'),
      }));
      // Older reports without <instances> carry one <uri> on the alert itself.
      const uri = childText(alert, 'uri');
      if (endpoints.length === 0 && uri) {
        endpoints.push({
          url: uri,
          method: childText(alert, 'method'),
          parameter: childText(alert, 'param'),
        });
      }
      yield ctx.finding({
        tool: 'zap',
        toolCategory: 'dast',
        ruleId: childText(alert, 'pluginid') ?? childText(alert, 'alertRef'),
        title: name,
        description:
          [plain(childText(alert, 'desc')), plain(childText(alert, 'otherinfo'))].filter(Boolean).join('\n\n') ||
          undefined,
        severity: RISK[risk] ?? 'info',
        toolSeverity: childText(alert, 'riskdesc') ?? risk,
        confidence: childText(alert, 'confidencedesc') ?? childText(alert, 'confidence'),
        cwes: cwes(line(childText(alert, 'cweid'))),
        references: (plain(childText(alert, 'reference')) ?? '')
          .split('\n')
          .map((s) => s.trim())
          .filter(Boolean),
        mitigation: plain(childText(alert, 'solution')),
        // ZAP writes one plugin twice on a site when risk or confidence differ; those are separate alerts.
        locator: `risk:${risk}/confidence:${childText(alert, 'confidence') ?? ''}`,
        endpoints: endpoints
          .filter((e) => !!e.url)
          .map((e) => ({ url: e.url, method: e.method, parameter: e.parameter })),
        tags: str(childText(alert, 'wascid')) ? [`WASC-${childText(alert, 'wascid')}`] : [],
      });
    }
  }
}

export const zap: XmlFormat = {
  id: 'zap',
  title: 'OWASP ZAP XML report (traditional and xml-plus)',
  testedWith: 'ZAP 2.9.0 and 2.11.1 (traditional XML); xml-plus report D-2021-03-29',
  kind: 'xml',
  detect: (root) => root.name === 'OWASPZAPReport',
  parse,
};
