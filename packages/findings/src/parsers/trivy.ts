import { Finding, FindingInit } from '../model';
import { addCvss, arr, cwes, isObj, line, num, obj, severityOf, str, uniq, vulnIds } from '../normalize';
import { each, hasKeys, isArrayLikeOf, JsonFormat, ParseContext } from './common';

/** VEX-like statuses that mean the package is not (or no longer) vulnerable. */
const NOT_AFFECTED = new Set(['not_affected', 'fixed']);

function* results(doc: unknown): Generator<[Record<string, unknown>, string[]]> {
  if (isArrayLikeOf(doc, (f) => hasKeys(f, 'Target'))) {
    for (const r of each(doc)) yield [obj(r), []];
    return;
  }
  const o = obj(doc);
  for (const r of each(o.Results)) yield [obj(r), []];
  // Kubernetes reports: resources (newer) or per-kind lists (older), each with its own Results.
  for (const key of ['Resources', 'Vulnerabilities', 'Misconfigurations']) {
    for (const res of each(o[key])) {
      const x = obj(res);
      const tag = `k8s:${[x.Namespace, x.Kind, x.Name].filter(Boolean).join('/')}`;
      for (const r of each(x.Results)) yield [obj(r), [tag]];
    }
  }
}

function vulnerability(
  ctx: ParseContext,
  target: Record<string, unknown>,
  v: Record<string, unknown>,
  tags: string[],
): Finding {
  const id = str(v.VulnerabilityID) ?? 'unknown';
  const pkg = str(v.PkgName) ?? 'unknown';
  const version = str(v.InstalledVersion);
  const sev = str(v.Severity) ?? 'UNKNOWN';
  const init: FindingInit = {
    tool: 'trivy',
    toolCategory: str(target.Class) === 'os-pkgs' ? 'container' : 'sca',
    ruleId: id,
    title: [id, pkg, version].filter(Boolean).join(' '),
    description: [str(v.Title), str(v.Description)].filter(Boolean).join('\n\n') || undefined,
    severity: severityOf(sev) ?? 'info',
    toolSeverity: sev,
    tags: [...tags, str(target.Type), str(target.Class)].filter((t): t is string => !!t),
    cwes: cwes(v.CweIDs),
    vulnerabilityIds: vulnIds([id, ...arr(v.VendorIDs)]),
    references: [str(v.PrimaryURL), ...arr(v.References).map(str)].filter((r): r is string => !!r),
    mitigation: str(v.FixedVersion),
    library: { name: pkg, version, fixedVersion: str(v.FixedVersion), purl: str(obj(v.PkgIdentifier).PURL) },
    filePath: str(v.PkgPath) ?? str(target.Target),
  };
  // Prefer the source Trivy took the severity from, then NVD, then any.
  const cvss = obj(v.CVSS);
  const sources = uniq(
    [str(v.SeveritySource), 'nvd', ...Object.keys(cvss)].filter((s): s is string => !!s && isObj(cvss[s])),
  );
  for (const s of sources) {
    const c = obj(cvss[s]);
    addCvss(init, c.V40Vector);
    addCvss(init, c.V3Vector, c.V3Score);
    addCvss(init, c.V2Vector);
  }
  const status = str(v.Status);
  if (status && NOT_AFFECTED.has(status)) init.suppression = { state: status, source: 'tool' };
  const epss = num(obj(v.EPSS).Score);
  if (epss !== undefined) init.epss = { score: epss, percentile: num(obj(v.EPSS).Percentile) };
  return ctx.finding(init);
}

function* parse(doc: unknown, ctx: ParseContext): Generator<Finding> {
  for (const [target, tags] of results(doc)) {
    const targetName = str(target.Target);
    for (const v of each(target.Vulnerabilities)) yield vulnerability(ctx, target, obj(v), tags);
    for (const m of each(target.Misconfigurations)) {
      const o = obj(m);
      if (str(o.Status) === 'PASS') continue;
      const cause = obj(o.CauseMetadata);
      const sev = str(o.Severity) ?? 'UNKNOWN';
      yield ctx.finding({
        tool: 'trivy',
        toolCategory: 'iac',
        ruleId: str(o.ID),
        title: [str(o.ID), str(o.Title)].filter(Boolean).join(' - ') || 'Misconfiguration',
        description: [str(o.Description), str(o.Message)].filter(Boolean).join('\n\n') || undefined,
        severity: severityOf(sev) ?? 'info',
        toolSeverity: sev,
        tags: [...tags, str(target.Type), str(target.Class)].filter((t): t is string => !!t),
        references: [str(o.PrimaryURL), ...arr(o.References).map(str)].filter((r): r is string => !!r),
        mitigation: str(o.Resolution),
        filePath: targetName,
        startLine: line(cause.StartLine),
        endLine: line(cause.EndLine),
        snippet: str(o.Message),
      });
    }
    for (const s of each(target.Secrets)) {
      const o = obj(s);
      const sev = str(o.Severity) ?? 'UNKNOWN';
      yield ctx.finding({
        tool: 'trivy',
        toolCategory: 'secrets',
        ruleId: str(o.RuleID),
        title: `Secret detected in ${targetName ?? 'target'} - ${str(o.Title) ?? str(o.RuleID) ?? 'secret'}`,
        description: str(o.Match),
        severity: severityOf(sev) ?? 'info',
        toolSeverity: sev,
        tags: [...tags, 'secret'],
        cwes: [798],
        filePath: targetName,
        startLine: line(o.StartLine),
        endLine: line(o.EndLine),
        snippet: str(o.Match),
      });
    }
    for (const l of each(target.Licenses)) {
      const o = obj(l);
      const sev = str(o.Severity) ?? 'UNKNOWN';
      const name = str(o.Name) ?? 'unknown';
      yield ctx.finding({
        tool: 'trivy',
        toolCategory: 'sca',
        ruleId: `license:${name}`,
        title: `License ${name}${str(o.PkgName) ? ` in ${String(o.PkgName)}` : ''}`,
        description:
          [str(o.Category) && `Category ${String(o.Category)}`, str(o.Link)].filter(Boolean).join('\n') || undefined,
        severity: severityOf(sev) ?? 'info',
        toolSeverity: sev,
        tags: [...tags, 'license'],
        library: str(o.PkgName) ? { name: String(o.PkgName) } : undefined,
        filePath: str(o.FilePath) ?? targetName,
      });
    }
  }
}

export const trivy: JsonFormat = {
  id: 'trivy',
  title: 'Trivy JSON (image, filesystem, config, Kubernetes)',
  testedWith: 'Trivy legacy (unversioned) and SchemaVersion 2 reports',
  kind: 'json',
  acceptsEmpty: true,
  detect: (doc) =>
    (hasKeys(doc, 'SchemaVersion') && (hasKeys(doc, 'Results') || hasKeys(doc, 'ArtifactName'))) ||
    (hasKeys(doc, 'ClusterName') && ['Resources', 'Vulnerabilities', 'Misconfigurations'].some((k) => k in obj(doc))) ||
    isArrayLikeOf(
      doc,
      (f) =>
        hasKeys(f, 'Target') && ['Vulnerabilities', 'Misconfigurations', 'Secrets', 'Type'].some((k) => k in obj(f)),
    ),
  parse,
};
