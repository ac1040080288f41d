import { Finding, FindingInit } from '../model';
import { addCvss, arr, epssOf, cwes, obj, severityOf, str, vulnIds } from '../normalize';
import { each, hasKeys, isArrayLikeOf, JsonFormat, ParseContext } from './common';

function projects(doc: unknown): unknown[] | Iterable<unknown> {
  return isArrayLikeOf(doc, () => true) ? each(doc) : [doc];
}

/** `snyk test --json` and `snyk container test --json`; `--all-projects` writes an array of these. */
function* parse(doc: unknown, ctx: ParseContext): Generator<Finding> {
  for (const p of projects(doc)) {
    const project = obj(p);
    const container = 'docker' in project;
    for (const x of each(project.vulnerabilities)) {
      const v = obj(x);
      const ids = obj(v.identifiers);
      const sev = str(v.severityWithCritical) ?? str(v.severity) ?? 'low';
      const from = arr(v.from).map(String);
      const name = str(v.packageName) ?? str(v.name) ?? 'unknown';
      const init: FindingInit = {
        tool: 'snyk',
        toolCategory: container ? 'container' : 'sca',
        ruleId: str(v.id),
        title: `${from[0] ?? name}: ${str(v.title) ?? str(v.id) ?? 'vulnerability'}`,
        description: str(v.description),
        severity: severityOf(sev) ?? 'info',
        toolSeverity: sev,
        cwes: cwes(ids.CWE),
        vulnerabilityIds: vulnIds([...arr(ids.CVE), ...arr(ids.GHSA), ...arr(ids.ALTERNATIVE)]),
        references: arr(v.references)
          .map((r) => str(obj(r).url))
          .filter((u): u is string => !!u),
        mitigation: arr(v.fixedIn).length ? `Upgrade to ${arr(v.fixedIn).join(', ')}` : undefined,
        library: {
          name: str(v.name) ?? name,
          version: str(v.version),
          fixedVersion: str(arr(v.fixedIn)[0]),
          ecosystem: str(v.packageManager),
        },
        // The dependency chain, like Snyk shows it: project > ... > package (without versions).
        filePath: from.map((f) => f.replace(/@[^@]*$/, '')).join(' > ') || str(project.displayTargetFile),
      };
      addCvss(init, v.CVSSv3, v.cvssScore);
      for (const d of arr(v.cvssDetails)) addCvss(init, obj(d).cvssV3Vector);
      const epss = obj(v.epssDetails);
      const figure = epssOf(epss.probability, epss.percentile);
      if (figure) init.epss = figure;
      yield ctx.finding(init);
    }
  }
}

const isProject = (p: unknown): boolean =>
  hasKeys(p, 'vulnerabilities', 'ok') && (hasKeys(p, 'packageManager') || hasKeys(p, 'dependencyCount'));

export const snyk: JsonFormat = {
  id: 'snyk',
  title: 'Snyk Open Source and Container JSON (snyk test --json)',
  testedWith: 'Snyk CLI snyk test --json, from corpus samples that carry no tool version',
  kind: 'json',
  detect: (doc) => isProject(doc) || isArrayLikeOf(doc, isProject),
  parse,
};
