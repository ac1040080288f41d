import { Finding, FindingInit } from '../model';
import { addCvss, arr, num, obj, severityOf, str, vulnIds } from '../normalize';
import { each, first, hasKeys, isArrayLikeOf, JsonFormat, ParseContext } from './common';

/**
 * Mend (formerly WhiteSource) SCA: the project/product vulnerabilities export (`vulnerabilities`,
 * each with its `library`), the Unified Agent's scan report (`libraries`, each with its
 * `vulnerabilities`) and the Platform API 3.0 findings (`response`).
 */

/** Platform statuses of findings that are closed: the library left the project, or the finding was resolved. */
const CLOSED = new Set(['LIBRARY_REMOVED', 'RESOLVED']);

function finding(ctx: ParseContext, v: Record<string, unknown>, lib: Record<string, unknown>): Finding {
  const id = str(v.name) ?? 'unknown';
  const sev = str(v.cvss3_severity) ?? str(v.severity) ?? 'unknown';
  const fileName = str(lib.filename) ?? str(lib.name) ?? str(lib.artifactId) ?? 'library';
  const fix = obj(v.topFix);
  const paths = [
    ...arr(v.locations).map((l) => str(obj(l).path)),
    ...arr(v.sourceFiles).map((s) => str(obj(s).localPath)),
  ].filter((p): p is string => !!p);
  const init: FindingInit = {
    tool: 'mend',
    toolCategory: 'sca',
    ruleId: id,
    title: `${id} | ${fileName}`,
    description:
      [str(v.description), str(lib.description) && `Library: ${String(lib.description)}`]
        .filter(Boolean)
        .join('\n\n') || undefined,
    severity: severityOf(sev) ?? 'info',
    toolSeverity: sev,
    tags: [str(lib.type), str(v.project) && `project:${String(v.project)}`].filter((t): t is string => !!t),
    vulnerabilityIds: vulnIds([id]),
    references: [str(v.url), str(fix.url)].filter((u): u is string => !!u),
    mitigation: str(fix.fixResolution),
    library: { name: str(lib.artifactId) ?? str(lib.name) ?? fileName, version: str(lib.version) },
    filePath: paths[0] ?? fileName,
    detectedAt: str(v.publishDate),
  };
  addCvss(init, v.scoreMetadataVector, v.cvss3_score ?? v.score);
  return ctx.finding(init);
}

function platformFinding(ctx: ParseContext, r: Record<string, unknown>): Finding | undefined {
  const info = obj(r.findingInfo);
  const status = str(info.status)?.toUpperCase();
  if (status && CLOSED.has(status)) return undefined;
  const vuln = obj(r.vulnerability);
  const component = obj(r.component);
  const id = str(r.name) ?? str(vuln.name) ?? 'unknown';
  const sev = str(vuln.severity) ?? 'unknown';
  const name = str(component.name) ?? 'library';
  const init: FindingInit = {
    tool: 'mend',
    toolCategory: 'sca',
    ruleId: id,
    title: `${id} | ${name}`,
    description: str(vuln.description),
    severity: severityOf(sev) ?? 'info',
    toolSeverity: sev,
    tags: [
      str(component.libraryType),
      str(component.dependencyType),
      str(obj(r.project).name) && `project:${String(obj(r.project).name)}`,
    ].filter((t): t is string => !!t),
    vulnerabilityIds: vulnIds([id]),
    references: [str(obj(r.topFix).url)].filter((u): u is string => !!u),
    mitigation: str(obj(r.topFix).fixResolution),
    library: { name: str(component.artifactId) ?? name, version: str(component.version) },
    // The API names no file; the library file (jar, dll) is where it was found.
    filePath: name,
    suppression: status === 'IGNORED' ? { state: 'ignored', source: 'tool' } : undefined,
    detectedAt: str(info.detectedAt),
  };
  addCvss(init, r.scoreMetadataVector, vuln.score);
  const epss = num(obj(r.threatAssessment).epssPercentage);
  if (epss !== undefined) init.epss = { score: epss / 100 };
  return ctx.finding(init);
}

function* parse(doc: unknown, ctx: ParseContext): Generator<Finding> {
  const o = obj(doc);
  for (const v of each(o.vulnerabilities)) yield finding(ctx, obj(v), obj(obj(v).library));
  for (const l of each(o.libraries)) for (const v of each(obj(l).vulnerabilities)) yield finding(ctx, obj(v), obj(l));
  for (const r of each(o.response)) {
    const f = platformFinding(ctx, obj(r));
    if (f) yield f;
  }
}

const isMendLibrary = (lib: unknown): boolean => hasKeys(lib, 'keyUuid') || hasKeys(lib, 'sha1', 'filename');
const isMendVulnerability = (v: unknown): boolean =>
  isMendLibrary(obj(v).library) || (hasKeys(v, 'name', 'topFix') && hasKeys(v, 'cvss3_severity'));

export const mend: JsonFormat = {
  id: 'mend',
  title: 'Mend (WhiteSource) SCA JSON: vulnerabilities export, Unified Agent scan report, Platform API findings',
  testedWith: 'Mend Platform API 3.0; vulnerabilities exports and Unified Agent reports, from corpus samples',
  kind: 'json',
  detect: (doc) => {
    const o = obj(doc);
    return (
      isArrayLikeOf(o.vulnerabilities, isMendVulnerability) ||
      isArrayLikeOf(o.libraries, (l) => isMendLibrary(l) && hasKeys(l, 'vulnerabilities')) ||
      (hasKeys(doc, 'response', 'supportToken') &&
        (first(o.response) === undefined || hasKeys(first(o.response), 'component', 'findingInfo')))
    );
  },
  isEmptyReport: (doc) =>
    ['vulnerabilities', 'libraries', 'response'].some(
      (k) => hasKeys(doc, k) && Object.keys(obj(doc)).length === 1 && first(obj(doc)[k]) === undefined,
    ),
  parse,
};
