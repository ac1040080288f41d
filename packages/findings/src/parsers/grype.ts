import { Finding, FindingInit } from '../model';
import { addCvss, arr, epssOf, cwes, obj, severityOf, str, vulnIds } from '../normalize';
import { each, hasKeys, JsonFormat, ParseContext } from './common';

function* parse(doc: unknown, ctx: ParseContext): Generator<Finding> {
  const image = str(obj(obj(doc).source).type) === 'image';
  for (const m of each(obj(doc).matches)) {
    const match = obj(m);
    const v = obj(match.vulnerability);
    const a = obj(match.artifact);
    const related = arr(match.relatedVulnerabilities).map(obj);
    const id = str(v.id) ?? 'unknown';
    const name = str(a.name) ?? 'unknown';
    const version = str(a.version);
    const sev = str(v.severity) ?? 'Unknown';
    const fixed = arr(obj(v.fix).versions).map(String);
    const init: FindingInit = {
      tool: 'grype',
      toolCategory: image ? 'container' : 'sca',
      ruleId: id,
      title: `${id} in ${name}${version ? `:${version}` : ''}`,
      description:
        [
          str(v.description) ?? related.map((r) => str(r.description)).find(Boolean),
          ...arr(match.matchDetails).map((d) => str(obj(d).matcher) && `Matched by ${String(obj(d).matcher)}`),
        ]
          .filter(Boolean)
          .join('\n\n') || undefined,
      severity: severityOf(sev) ?? 'info',
      toolSeverity: sev,
      tags: [str(a.type)].filter((t): t is string => !!t),
      cwes: cwes(arr(v.cwes).map((c) => obj(c).cwe ?? c)),
      vulnerabilityIds: vulnIds([id, ...related.map((r) => r.id)]),
      references: [str(v.dataSource), ...arr(v.urls).map(str)].filter((u): u is string => !!u),
      mitigation: fixed.length ? `Upgrade to ${fixed.join(' or ')}` : undefined,
      library: { name, version, fixedVersion: fixed[0], purl: str(a.purl), ecosystem: str(a.language) },
      filePath: str(obj(arr(a.locations)[0]).path),
    };
    for (const c of [...arr(v.cvss), ...related.flatMap((r) => arr(r.cvss))]) {
      addCvss(init, obj(c).vector, obj(obj(c).metrics).baseScore);
    }
    const epss = obj(arr(v.epss)[0]);
    const figure = epssOf(epss.epss, epss.percentile);
    if (figure) init.epss = figure;
    if (arr(v.knownExploited).length) init.knownExploited = true;
    yield ctx.finding(init);
  }
}

export const grype: JsonFormat = {
  id: 'grype',
  title: 'Anchore Grype JSON (grype -o json)',
  testedWith: 'Grype 0.7.0, 0.24.0 and 0.28.0',
  kind: 'json',
  detect: (doc) =>
    hasKeys(doc, 'matches', 'descriptor') || (hasKeys(doc, 'matches', 'source') && hasKeys(obj(doc).distro)),
  parse,
};
