import { Finding, FindingInit } from '../model';
import { addCvss, arr, num, obj, severityOf, str, vulnIds } from '../normalize';
import { each, first, hasKeys, JsonFormat, ParseContext } from './common';

/**
 * Name and version of an Xray component id, `<type>://<name>:<version>`: Maven names keep their
 * group (`gav://group:artifact:1.0`), RPMs drop the distribution and keep a non-zero epoch
 * (`rpm://7:curl:16:7.29.0` is curl 16:7.29.0).
 */
function xrayComponent(id: string): { name: string; version?: string; type?: string } {
  const m = id.match(/^([a-z0-9+.-]+):\/\/(.*)$/i);
  const type = m?.[1].toLowerCase();
  const rest = m ? m[2] : id;
  const rpm = type === 'rpm' ? rest.match(/^\d+:(.+):(\d+):([^:]+)$/) : null;
  if (rpm) return { name: rpm[1], version: rpm[2] === '0' ? rpm[3] : `${rpm[2]}:${rpm[3]}`, type };
  const cut = rest.lastIndexOf(':');
  return cut > 0 ? { name: rest.slice(0, cut), version: rest.slice(cut + 1) || undefined, type } : { name: rest, type };
}

function* parse(doc: unknown, ctx: ParseContext): Generator<Finding> {
  for (const r of each(obj(doc).rows)) {
    const row = obj(r);
    const component = xrayComponent(str(row.vulnerable_component) ?? str(row.impacted_artifact) ?? 'unknown');
    // Xray lists several CVEs on some issues; the worst CVSS v3 vector is kept.
    const cves = arr(row.cves)
      .map(obj)
      .sort((a, b) => (num(b.cvss_v3_score) ?? 0) - (num(a.cvss_v3_score) ?? 0));
    const sev = str(row.severity) ?? 'Unknown';
    const id = str(row.issue_id);
    const summary = str(row.summary) ?? 'Xray issue';
    const fixed = arr(row.fixed_versions)
      .map(str)
      .filter((v): v is string => !!v);
    const init: FindingInit = {
      tool: 'jfrog-xray',
      toolCategory: ['docker', 'rpm', 'deb', 'alpine'].includes(
        str(row.package_type)?.toLowerCase() ?? component.type ?? '',
      )
        ? 'container'
        : 'sca',
      ruleId: id,
      title: id ? `${id} - ${summary}` : summary,
      description: [
        str(row.description) ?? summary,
        str(row.impacted_artifact) && `Impacted artifact: ${String(row.impacted_artifact)}`,
      ]
        .filter(Boolean)
        .join('\n\n'),
      severity: severityOf(sev) ?? 'info',
      toolSeverity: sev,
      tags: [str(row.package_type) && `packagetype_${String(row.package_type)}`].filter((t): t is string => !!t),
      vulnerabilityIds: vulnIds(cves.map((c) => c.cve)),
      references: arr(row.references)
        .map(str)
        .filter((u): u is string => !!u),
      mitigation: fixed.length ? `Versions containing a fix: ${fixed.join(', ')}` : undefined,
      library: {
        name: component.name,
        version: component.version,
        fixedVersion: fixed[0],
        ecosystem: str(row.package_type) ?? component.type,
      },
      filePath: str(row.path),
      detectedAt: str(row.artifact_scan_time),
    };
    for (const c of cves) {
      addCvss(init, c.cvss_v3_vector, c.cvss_v3_score);
      addCvss(init, c.cvss_v2_vector);
    }
    yield ctx.finding(init);
  }
}

const isXrayRow = (r: unknown): boolean =>
  hasKeys(r, 'issue_id') && (hasKeys(r, 'vulnerable_component') || hasKeys(r, 'impacted_artifact'));

export const jfrogXrayUnified: JsonFormat = {
  id: 'jfrog-xray-unified',
  title: 'JFrog Xray unified vulnerabilities report JSON (total_rows/rows)',
  testedWith: 'Xray 3 and later',
  kind: 'json',
  detect: (doc) =>
    hasKeys(doc, 'total_rows', 'rows') &&
    (isXrayRow(first(obj(doc).rows)) || (Object.keys(obj(doc)).length === 2 && first(obj(doc).rows) === undefined)),
  parse,
};
