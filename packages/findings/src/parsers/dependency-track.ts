import { Finding, FindingInit } from '../model';
import { addCvss, arr, epssOf, obj, severityOf, str, vulnIds } from '../normalize';
import { each, hasKeys, JsonFormat, ParseContext } from './common';

/**
 * Dependency-Track finding packaging format (FPF, `GET /api/v1/finding/project/{uuid}/export`): one
 * finding per entry of `findings`, a vulnerability on one component of the project. `matrix`
 * (project:component:vulnerability) is Dependency-Track's identity of a finding. Its severity words
 * map directly (UNASSIGNED is info); an analysis state of FALSE_POSITIVE or NOT_AFFECTED, or a
 * suppressed finding, becomes the finding's suppression. A document without `findings`, or with
 * `findings: null`, is a project without findings.
 */
function* parse(doc: unknown, ctx: ParseContext): Generator<Finding> {
  for (const x of each(obj(doc).findings)) {
    const f = obj(x);
    const c = obj(f.component);
    const v = obj(f.vulnerability);
    const analysis = obj(f.analysis);
    const id = str(v.vulnId) ?? 'unknown';
    const name = str(c.name) ?? 'unknown';
    const group = str(c.group);
    const version = str(c.version);
    const sev = str(v.severity);
    const state = str(analysis.state);
    const aliases = arr(v.aliases).flatMap((a) => Object.values(obj(a)));
    const references = (str(v.references) ?? '').match(/https?:\/\/[^\s)\]]+/g) ?? [];
    const init: FindingInit = {
      tool: 'dependency-track',
      toolCategory: 'sca',
      ruleId: id,
      title: `${id} in ${group ? `${group}:` : ''}${name}${version ? ` ${version}` : ''}${str(v.title) ? `: ${String(v.title)}` : ''}`,
      description:
        [
          str(v.description),
          str(analysis.detail) && `Audit Detail: ${String(analysis.detail)}`,
          str(obj(f.attribution).analyzerIdentity) && `Found by ${String(obj(f.attribution).analyzerIdentity)}`,
        ]
          .filter(Boolean)
          .join('\n\n') || undefined,
      severity: severityOf(sev) ?? 'info',
      toolSeverity: sev,
      cwes: [v.cweId, ...arr(v.cwes).map((w) => obj(w).cweId)].filter((n): n is number => typeof n === 'number'),
      vulnerabilityIds: vulnIds([id, ...aliases]),
      references: [...new Set([...references, str(obj(f.attribution).referenceUrl)])].filter((u): u is string => !!u),
      mitigation: str(v.recommendation),
      library: { name: group ? `${group}:${name}` : name, version, purl: str(c.purl) },
      locator: str(f.matrix),
      detectedAt: str(obj(f.attribution).attributedOn),
      suppression:
        analysis.isSuppressed === true || state === 'FALSE_POSITIVE' || state === 'NOT_AFFECTED'
          ? { state: state ?? 'SUPPRESSED', source: 'tool', justification: str(analysis.justification) }
          : undefined,
    };
    addCvss(init, v.cvssV3Vector, v.cvssV3BaseScore);
    addCvss(init, v.cvssV4Vector);
    addCvss(
      init,
      str(v.cvssV2Vector) && `CVSS:2.0/${String(str(v.cvssV2Vector)).replace(/^\(|\)$/g, '')}`,
      v.cvssV2BaseScore,
    );
    const epss = epssOf(v.epssScore, v.epssPercentile);
    if (epss) init.epss = epss;
    yield ctx.finding(init);
  }
}

export const dependencyTrack: JsonFormat = {
  id: 'dependency-track',
  title: 'Dependency-Track finding packaging format (FPF) JSON',
  testedWith: 'Dependency-Track 3.4, 3.8 and 4.10',
  kind: 'json',
  detect: (doc) => hasKeys(doc, 'meta') && str(obj(obj(doc).meta).application) === 'Dependency-Track',
  parse,
};
