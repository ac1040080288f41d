import { Finding, FindingInit } from '../model';
import { addCvss, arr, isObj, num, obj, severityOf, str, vulnIds } from '../normalize';
import { hasKeys, JsonFormat, ParseContext } from './common';
import { siteUrl } from './locations';

/**
 * WPScan 3.x JSON (`wpscan --format json`). One finding per vulnerability WPScan lists for the
 * WordPress core version, the main theme, each theme and each plugin (the WPVulnDB id is the rule,
 * CVEs from `references.cve`), then one informational finding per `interesting_findings` entry
 * (headers, readme, XML-RPC, ...), as DefectDojo reads it. Severity: the CVSS score where the WPScan
 * API gives one (`cvss.score`, API v3), else medium for a vulnerability (WPScan rates none);
 * interesting findings are informational. Located at the component's URL (its folder on the site)
 * or the interesting finding's URL. A scan that stopped (`scan_aborted`, e.g. the site was down)
 * has no findings.
 */

interface Component {
  kind: string;
  name: string;
  version?: string;
  location?: string;
  vulnerabilities: unknown[];
}

/** The components WPScan reports on, in the order it writes them. */
function components(doc: Record<string, unknown>, site: string | undefined): Component[] {
  const out: Component[] = [];
  const version = obj(doc.version);
  if (isObj(doc.version)) {
    out.push({
      kind: 'wordpress',
      name: 'WordPress',
      version: str(version.number),
      location: site,
      vulnerabilities: arr(version.vulnerabilities),
    });
  }
  const themes = [doc.main_theme, ...Object.values(obj(doc.themes))].filter(isObj);
  const seen = new Set<string>();
  const add = (kind: string, c: Record<string, unknown>): void => {
    const slug = str(c.slug) ?? 'unknown';
    if (seen.has(`${kind}/${slug}`)) return;
    seen.add(`${kind}/${slug}`);
    out.push({
      kind,
      name: slug,
      version: str(obj(c.version).number),
      location: str(c.location),
      vulnerabilities: arr(c.vulnerabilities),
    });
  };
  for (const t of themes) add('theme', t);
  for (const p of Object.values(obj(doc.plugins)).filter(isObj)) add('plugin', p);
  return out;
}

function* parse(doc: unknown, ctx: ParseContext): Generator<Finding> {
  const report = obj(doc);
  const site = str(report.effective_url) ?? str(report.target_url);
  const detectedAt = str(report.start_time) ? new Date(Number(report.start_time) * 1000).toISOString() : undefined;
  for (const c of components(report, site)) {
    for (const v of c.vulnerabilities) {
      const vuln = obj(v);
      const refs = obj(vuln.references);
      const wpvulndb = str(arr(refs.wpvulndb)[0]);
      const title = str(vuln.title) ?? `${c.name} vulnerability`;
      const cvss = obj(vuln.cvss);
      const score = num(cvss.score);
      const init: FindingInit = {
        tool: 'wpscan',
        toolCategory: 'dast',
        ruleId: wpvulndb ?? title,
        title,
        description:
          [
            `${c.kind} ${c.name}${c.version ? ` ${c.version}` : ''}`,
            str(vuln.description),
            str(vuln.fixed_in) && `Fixed in: ${str(vuln.fixed_in)}`,
          ]
            .filter(Boolean)
            .join('\n') || undefined,
        severity: severityOf(score) ?? 'medium',
        toolSeverity: str(cvss.score),
        vulnerabilityIds: vulnIds(arr(refs.cve).map((id) => `CVE-${String(id).replace(/^CVE-/i, '')}`)),
        references: arr(refs.url).map(String),
        mitigation: str(vuln.fixed_in) ? `Upgrade ${c.name} to ${str(vuln.fixed_in)} or later.` : undefined,
        tags: [c.kind, c.name],
        endpoints: c.location ? [{ url: c.location }] : site ? [{ url: site }] : [],
        toolFingerprints: wpvulndb ? { wpvulndb } : {},
        detectedAt,
      };
      addCvss(init, str(cvss.vector), score);
      yield ctx.finding(init);
    }
  }
  for (const x of arr(report.interesting_findings)) {
    const i = obj(x);
    const name = str(i.to_s) ?? str(i.type) ?? 'interesting finding';
    const url = siteUrl(site, str(i.url));
    yield ctx.finding({
      tool: 'wpscan',
      toolCategory: 'dast',
      ruleId: str(i.type) ?? name,
      title: `Interesting finding: ${name}`,
      description:
        [str(i.found_by) && `Found by: ${str(i.found_by)}`, ...arr(i.interesting_entries).map(String)]
          .filter(Boolean)
          .join('\n') || undefined,
      severity: 'info',
      confidence: str(i.confidence),
      references: Object.values(obj(i.references))
        .flatMap((r) => arr(r).map(String))
        .filter((r) => /^https?:/.test(r)),
      endpoints: url ? [{ url }] : [],
      detectedAt,
    });
  }
}

export const wpscan: JsonFormat = {
  id: 'wpscan',
  title: 'WPScan JSON (--format json)',
  testedWith: 'WPScan 3.5.4, 3.8.15, 3.8.17 (and WPScan API CVSS scores)',
  kind: 'json',
  detect: (doc) =>
    hasKeys(doc, 'banner', 'target_url') &&
    (/wpscan/i.test(String(obj(obj(doc).banner).description)) ||
      hasKeys(doc, 'interesting_findings') ||
      hasKeys(doc, 'scan_aborted')),
  parse,
};
