import { Finding, FindingInit } from '../model';
import { addCvss, arr, cwes, obj, severityOf, str, vulnIds } from '../normalize';
import { each, hasKeys, JsonFormat, ParseContext } from './common';

/** The media types Harbor keys its vulnerability reports by (scanner adapter API v1.0, Harbor 2.x v1.1). */
const REPORT_TYPE =
  /^application\/vnd\.(scanner\.adapter\.vuln\.report\.harbor\+json|security\.vulnerability\.report)\b/;

/** The report itself: the adapter's document, or the one under its media type in Harbor's API answer. */
function reportOf(doc: unknown): Record<string, unknown> {
  if (hasKeys(doc, 'vulnerabilities')) return obj(doc);
  const key = Object.keys(obj(doc)).find((k) => REPORT_TYPE.test(k));
  return key ? obj(obj(doc)[key]) : {};
}

/**
 * Harbor vulnerability reports (Harbor 1.10–2.x): the answer of
 * `GET /api/v2.0/projects/P/repositories/R/artifacts/REF/additions/vulnerabilities` (the report under
 * its media type) and a pluggable scanner adapter's report as such (Trivy, Clair or another scanner
 * behind Harbor). One finding per vulnerability in one package of the artifact; a vulnerability
 * written twice for one package and version merges. Severity is Harbor's word (Critical, High,
 * Medium, Low; Negligible, Unknown and None are info). The artifact (repository and digest) is the
 * resource.
 */
function* parse(doc: unknown, ctx: ParseContext): Generator<Finding> {
  const report = reportOf(doc);
  const artifact = obj(report.artifact);
  const scanner = obj(report.scanner);
  const repository = str(artifact.repository);
  const resource = repository
    ? {
        id: repository,
        type: 'container-image',
        name: str(artifact.tag) ? `${repository}:${String(artifact.tag)}` : repository,
      }
    : undefined;
  for (const v of each(report.vulnerabilities)) {
    const x = obj(v);
    const id = str(x.id) ?? 'unknown';
    const name = str(x.package) ?? 'unknown';
    const version = str(x.version);
    const fixed = str(x.fix_version);
    const sev = str(x.severity) ?? 'Unknown';
    const cvss = obj(x.preferred_cvss);
    const init: FindingInit = {
      tool: str(scanner.name) ? `harbor/${String(scanner.name).toLowerCase()}` : 'harbor',
      toolCategory: 'container',
      ruleId: id,
      title: `${id} - ${name}${version ? ` (${version})` : ''}`,
      description: str(x.description),
      severity: severityOf(sev) ?? 'info',
      toolSeverity: sev,
      tags: [str(x.package_type) ?? str(obj(x.vendor_attributes).type)].filter((t): t is string => !!t),
      cwes: cwes(arr(x.cwe_ids)),
      vulnerabilityIds: vulnIds([id]),
      references: arr(x.links)
        .map(str)
        .filter((u): u is string => !!u),
      mitigation: fixed ? `Upgrade ${name} to ${fixed}` : undefined,
      library: { name, version, fixedVersion: fixed },
      resource,
    };
    addCvss(init, cvss.vector_v3, cvss.score_v3);
    addCvss(init, cvss.vector_v2, cvss.score_v2);
    yield ctx.finding(init);
  }
}

export const harbor: JsonFormat = {
  id: 'harbor',
  title: 'Harbor vulnerability report (API additions/vulnerabilities, scanner adapter report)',
  testedWith: 'Harbor 1.10–2.x',
  kind: 'json',
  detect: (doc) =>
    Object.keys(obj(doc)).some((k) => REPORT_TYPE.test(k) && hasKeys(obj(doc)[k], 'vulnerabilities')) ||
    (hasKeys(doc, 'scanner', 'vulnerabilities') &&
      hasKeys(obj(doc).scanner, 'name', 'vendor') &&
      (hasKeys(doc, 'generated_at') || hasKeys(doc, 'artifact'))),
  parse,
};
