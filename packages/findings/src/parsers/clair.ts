import { Finding, FindingInit } from '../model';
import { addCvss, arr, obj, severityOf, str, vulnIds } from '../normalize';
import { each, hasKeys, isArrayLikeOf, JsonFormat, ParseContext } from './common';

/** Clair's severities: Defcon1 (Clair v2's worst) is critical; Unknown and Negligible are info. */
function severity(word: string): FindingInit['severity'] {
  return /^defcon1$/i.test(word) ? 'critical' : (severityOf(word) ?? 'info');
}

interface Vuln {
  id: string;
  name: string;
  version?: string;
  fixed?: string;
  sev: string;
  description?: string;
  link?: string;
  namespace?: string;
  metadata?: unknown;
  approved?: boolean;
}

function finding(v: Vuln, image: string | undefined, ctx: ParseContext): Finding {
  const fixed = v.fixed && v.fixed !== '0' ? v.fixed : undefined;
  const init: FindingInit = {
    tool: 'clair',
    toolCategory: 'container',
    ruleId: v.id,
    title: `${v.id} - ${v.name}${v.version ? ` (${v.version})` : ''}`,
    description: v.description,
    severity: severity(v.sev),
    toolSeverity: v.sev,
    tags: [v.namespace].filter((t): t is string => !!t),
    vulnerabilityIds: vulnIds([v.id], v.link),
    references: (v.link ?? '').split(/\s+/).filter(Boolean),
    mitigation: fixed ? `Upgrade ${v.name} to ${fixed}` : undefined,
    library: { name: v.name, version: v.version, fixedVersion: fixed },
    resource: image ? { id: image, type: 'container-image', name: image } : undefined,
    suppression: v.approved
      ? { state: 'approved', source: 'tool', justification: 'whitelisted in clair-scanner' }
      : undefined,
  };
  const nvd = obj(obj(obj(v.metadata).NVD).CVSSv3 ?? obj(obj(v.metadata).NVD).CVSSv2);
  addCvss(init, nvd.Vectors, nvd.Score);
  return ctx.finding(init);
}

/** The fields of a Clair v2 vulnerability as Clair's API and klar write them. */
function fromV2(x: Record<string, unknown>, feature: Record<string, unknown>): Vuln {
  return {
    id: str(x.Name) ?? 'unknown',
    name: str(feature.Name) ?? str(x.FeatureName) ?? 'unknown',
    version: str(feature.Version) ?? str(x.FeatureVersion),
    fixed: str(x.FixedBy),
    sev: str(x.Severity) ?? 'Unknown',
    description: str(x.Description),
    link: str(x.Link),
    namespace: str(x.NamespaceName),
    metadata: x.Metadata,
  };
}

/** clair-scanner: vulnerabilities not in `unapproved` were whitelisted, and are kept suppressed. */
function* clairScanner(d: Record<string, unknown>, ctx: ParseContext): Generator<Finding> {
  const unapproved = new Set(arr(d.unapproved).map(String));
  const image = str(d.image);
  for (const v of each(d.vulnerabilities)) {
    const x = obj(v);
    const id = str(x.vulnerability) ?? 'unknown';
    const vuln: Vuln = {
      id,
      name: str(x.featurename) ?? 'unknown',
      version: str(x.featureversion),
      fixed: str(x.fixedby),
      sev: str(x.severity) ?? 'Unknown',
      description: str(x.description),
      link: str(x.link),
      namespace: str(x.namespace),
      approved: 'unapproved' in d && !unapproved.has(id),
    };
    yield finding(vuln, image, ctx);
  }
}

/** Clair v4 vulnerability report: packages and vulnerabilities by id, joined by `package_vulnerabilities`. */
function* clairV4(d: Record<string, unknown>, ctx: ParseContext): Generator<Finding> {
  const packages = obj(d.packages);
  const vulns = obj(d.vulnerabilities);
  const image = str(d.manifest_hash);
  for (const [pkgId, ids] of Object.entries(obj(d.package_vulnerabilities))) {
    const pkg = obj(packages[pkgId]);
    for (const vulnId of arr(ids)) {
      const x = obj(vulns[String(vulnId)]);
      const name = str(x.name) ?? String(vulnId);
      yield finding(
        {
          id: vulnIds([], name, str(x.links))[0] ?? name,
          name: str(pkg.name) ?? str(obj(x.package).name) ?? 'unknown',
          version: str(pkg.version),
          fixed: str(x.fixed_in_version),
          sev: str(x.normalized_severity) ?? str(x.severity) ?? 'Unknown',
          description: str(x.description),
          link: str(x.links),
          namespace: str(x.updater),
        },
        image,
        ctx,
      );
    }
  }
}

/**
 * Clair image scans (Clair v2 and v4, with the clients that write their results): the v2 API's layer
 * with `Features` (`GET /v1/layers/NAME?vulnerabilities`), klar's JSON (`KLAR_JSON_OUTPUT=true`:
 * `LayerCount` and `Vulnerabilities` by severity), clair-scanner's report (`--report`) and the v4
 * matcher's vulnerability report. One finding per vulnerability in one package of the image; a
 * vulnerability clair-scanner's whitelist approved is kept, suppressed. Severity is Clair's word
 * (Defcon1 critical; Negligible and Unknown info).
 */
function* parse(doc: unknown, ctx: ParseContext): Generator<Finding> {
  const d = obj(doc);
  if (hasKeys(doc, 'LayerCount', 'Vulnerabilities')) {
    for (const list of Object.values(obj(d.Vulnerabilities)))
      for (const v of each(list)) yield finding(fromV2(obj(v), {}), undefined, ctx);
  } else if (hasKeys(doc, 'Layer')) {
    const layer = obj(d.Layer);
    for (const f of each(layer.Features)) {
      const feature = obj(f);
      for (const v of each(feature.Vulnerabilities)) yield finding(fromV2(obj(v), feature), str(layer.Name), ctx);
    }
  } else if (hasKeys(doc, 'package_vulnerabilities')) yield* clairV4(d, ctx);
  else yield* clairScanner(d, ctx);
}

const isScannerVuln = (v: unknown): boolean => hasKeys(v, 'featurename', 'vulnerability', 'severity');

export const clair: JsonFormat = {
  id: 'clair',
  title: 'Clair image scan (Clair layer API, klar JSON, clair-scanner report, Clair vulnerability report)',
  testedWith: 'Clair v2 layer API and klar output, clair-scanner, Clair v4 vulnerability report',
  kind: 'json',
  detect: (doc) =>
    hasKeys(doc, 'LayerCount', 'Vulnerabilities') ||
    (hasKeys(doc, 'Layer') && hasKeys(obj(doc).Layer, 'Features')) ||
    hasKeys(doc, 'manifest_hash', 'package_vulnerabilities') ||
    (hasKeys(doc, 'image', 'vulnerabilities') &&
      (hasKeys(doc, 'unapproved') || isArrayLikeOf(obj(doc).vulnerabilities, isScannerVuln))),
  parse,
};
