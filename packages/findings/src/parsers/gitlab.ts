import { FindingInit } from '../model';
import { arr, cwes, obj, severityOf, str, uniq, vulnIds } from '../normalize';
import { each, first, hasKeys } from './common';

/**
 * What GitLab's security report schemas (sast, secret_detection, dependency_scanning,
 * container_scanning) share: `version` and `vulnerabilities`, each with `identifiers` whose first
 * entry is the primary one (the rule), `severity`, `solution` and `links`.
 */

export type GitlabReportType = 'sast' | 'secret_detection' | 'dependency_scanning' | 'container_scanning' | 'other';

/** The report type from `scan.type` (schema 14+), else the vulnerabilities' `category` (older), else their location. */
export function gitlabReportType(doc: unknown): GitlabReportType | undefined {
  if (!hasKeys(doc, 'version', 'vulnerabilities')) return undefined;
  const o = obj(doc);
  const declared = str(obj(o.scan).type) ?? str(obj(first(o.vulnerabilities)).category);
  if (declared)
    return (
      (['sast', 'secret_detection', 'dependency_scanning', 'container_scanning'] as const).find(
        (t) => t === declared,
      ) ?? 'other'
    );
  if ('dependency_files' in o) return 'dependency_scanning';
  const location = obj(obj(first(o.vulnerabilities)).location);
  if ('image' in location) return 'container_scanning';
  if (str(obj(obj(location.dependency).package).name)) return 'dependency_scanning';
  if ('file' in location) return 'sast';
  return undefined;
}

/** A report without vulnerabilities and without `scan` (schema 2.x) names no type: accepted when the format is declared. */
export function isEmptyGitlabReport(doc: unknown): boolean {
  return hasKeys(doc, 'version', 'vulnerabilities') && first(obj(doc).vulnerabilities) === undefined;
}

/** The fields every GitLab vulnerability maps the same way. */
export function gitlabCommon(v: Record<string, unknown>, scanner: string): Omit<FindingInit, 'toolCategory'> {
  const identifiers = arr(v.identifiers).map(obj);
  const ofType = (...types: string[]): unknown[] =>
    identifiers.filter((i) => types.includes(str(i.type)?.toLowerCase() ?? '')).map((i) => i.value);
  const sev = str(v.severity) ?? 'Unknown';
  return {
    tool: scanner,
    ruleId: str(identifiers[0]?.value),
    title: str(v.name) ?? str(v.message) ?? str(v.description) ?? str(v.id) ?? str(v.cve) ?? 'GitLab vulnerability',
    description: uniq([str(v.message), str(v.description)].filter((d): d is string => !!d)).join('\n\n') || undefined,
    // GitLab writes "Unknown" or "Undefined" when the analyzer gave none.
    severity: severityOf(sev) ?? 'info',
    toolSeverity: sev,
    confidence: str(v.confidence),
    cwes: cwes(ofType('cwe')),
    vulnerabilityIds: vulnIds(ofType('cve', 'ghsa'), ...identifiers.map((i) => str(i.name))),
    references: uniq(
      [...arr(v.links).map((l) => str(obj(l).url)), ...identifiers.map((i) => str(i.url))].filter(
        (u): u is string => !!u,
      ),
    ),
    mitigation: str(v.solution),
    toolFingerprints: str(v.id) ? { id: String(v.id) } : {},
  };
}

/** The analyzer that wrote the report (`scan.scanner.id`, or the vulnerability's own `scanner` in older reports). */
export function gitlabScanner(doc: unknown, v: Record<string, unknown>, fallback: string): string {
  return str(obj(obj(obj(doc).scan).scanner).id) ?? str(obj(v.scanner).id) ?? fallback;
}

export function* gitlabVulnerabilities(doc: unknown): Generator<Record<string, unknown>> {
  for (const v of each(obj(doc).vulnerabilities)) yield obj(v);
}
