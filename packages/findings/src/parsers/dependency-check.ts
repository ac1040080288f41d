import { Finding, FindingInit } from '../model';
import { child, childText, path, XmlElement } from '../io/xml';
import { addCvss, cwes, severityOf, vulnIds } from '../normalize';
import { ParseContext, XmlFormat } from './common';

const LETTER: Record<string, string> = {
  NETWORK: 'N',
  ADJACENT_NETWORK: 'A',
  ADJACENT: 'A',
  LOCAL: 'L',
  PHYSICAL: 'P',
  LOW: 'L',
  MEDIUM: 'M',
  HIGH: 'H',
  NONE: 'N',
  SINGLE: 'S',
  MULTIPLE: 'M',
  REQUIRED: 'R',
  PARTIAL: 'P',
  COMPLETE: 'C',
  UNCHANGED: 'U',
  CHANGED: 'C',
};

/** Dependency-Check writes CVSS metrics as words; rebuild the vector so the CVSS library can score it. */
function vector(metrics: [string, string | undefined][], prefix: string): string | undefined {
  const parts = metrics.map(([k, v]) => (v && LETTER[v.toUpperCase()] ? `${k}:${LETTER[v.toUpperCase()]}` : undefined));
  return parts.every(Boolean) ? prefix + parts.join('/') : undefined;
}

function cvss(v: XmlElement, init: FindingInit): void {
  const v3 = child(v, 'cvssV3');
  if (v3) {
    const t = (n: string): string | undefined => childText(v3, n);
    const version = t('version') === '3.0' ? '3.0' : '3.1';
    addCvss(
      init,
      vector(
        [
          ['AV', t('attackVector')],
          ['AC', t('attackComplexity')],
          ['PR', t('privilegesRequired')],
          ['UI', t('userInteraction')],
          ['S', t('scope')],
          ['C', t('confidentialityImpact')],
          ['I', t('integrityImpact')],
          ['A', t('availabilityImpact')],
        ],
        `CVSS:${version}/`,
      ),
      t('baseScore'),
    );
  }
  const v2 = child(v, 'cvssV2');
  // Schema 1.x puts the v2 metrics on the vulnerability itself, prefixed with "cvss".
  const t2 = (n: string, old: string): string | undefined => (v2 ? childText(v2, n) : childText(v, old));
  addCvss(
    init,
    vector(
      [
        ['AV', t2('accessVector', 'cvssAccessVector')],
        ['AC', t2('accessComplexity', 'cvssAccessComplexity')],
        ['Au', t2('authenticationr', 'cvssAuthenticationr') ?? t2('authentication', 'cvssAuthentication')],
        ['C', t2('confidentialImpact', 'cvssConfidentialImpact')],
        ['I', t2('integrityImpact', 'cvssIntegrityImpact')],
        ['A', t2('availabilityImpact', 'cvssAvailabilityImpact')],
      ],
      '',
    ),
    t2('score', 'cvssScore'),
  );
}

/** Name and version from a Maven-style identifier (g:a:v) or a package URL. */
function library(dep: XmlElement): { name: string; version?: string; purl?: string } {
  const purl = path(dep, 'identifiers', 'package')
    .map((p) => childText(p, 'id'))
    .find((id) => id?.startsWith('pkg:'));
  if (purl) {
    const m = /^pkg:([^/]+)\/(.+?)@([^?#]+)/.exec(purl);
    if (m) {
      const name = m[1] === 'maven' ? decodeURIComponent(m[2]).replace('/', ':') : decodeURIComponent(m[2]);
      return { name, version: decodeURIComponent(m[3]), purl };
    }
  }
  const maven = path(dep, 'identifiers', 'identifier').find((i) => i.attrs.type === 'maven');
  const gav = childText(maven, 'name')?.split(':');
  if (gav && gav.length >= 3) return { name: gav.slice(0, -1).join(':'), version: gav[gav.length - 1] };
  return { name: childText(dep, 'fileName') ?? 'unknown' };
}

function* parse(root: XmlElement, ctx: ParseContext): Generator<Finding> {
  const reportDate = childText(child(root, 'projectInfo'), 'reportDate');
  for (const dep of path(root, 'dependencies', 'dependency')) {
    const lib = library(dep);
    const fileName = childText(dep, 'fileName');
    const vulns = [
      ...path(dep, 'vulnerabilities', 'vulnerability').map((v) => [v, false] as const),
      ...path(dep, 'vulnerabilities', 'suppressedVulnerability').map((v) => [v, true] as const),
    ];
    for (const [v, suppressed] of vulns) {
      const name = childText(v, 'name') ?? 'unknown';
      const word = childText(v, 'severity');
      const init: FindingInit = {
        tool: 'dependency-check',
        toolCategory: 'sca',
        ruleId: name,
        title: `${lib.name}${lib.version ? `:${lib.version}` : ''} | ${name}`,
        description:
          [childText(v, 'description'), childText(dep, 'filePath') && `File: ${childText(dep, 'filePath')}`]
            .filter(Boolean)
            .join('\n\n') || undefined,
        severity: severityOf(word) ?? 'info',
        toolSeverity: word,
        cwes: cwes(
          childText(v, 'cwe'),
          path(v, 'cwes', 'cwe').map((c) => c.text),
        ),
        vulnerabilityIds: vulnIds([name]),
        references: path(v, 'references', 'reference')
          .map((r) => childText(r, 'url'))
          .filter((u): u is string => !!u),
        mitigation: `Update ${lib.name}${lib.version ? `:${lib.version}` : ''} to at least the version recommended in the description`,
        library: lib,
        filePath: fileName,
        suppression: suppressed ? { state: 'suppressed', source: 'tool' } : undefined,
        detectedAt: reportDate,
      };
      cvss(v, init);
      if (!word) init.severity = severityOf(init.cvssV3?.score ?? init.cvssV2?.score ?? -1) ?? 'info';
      yield ctx.finding(init);
    }
  }
}

export const dependencyCheck: XmlFormat = {
  id: 'dependency-check',
  title: 'OWASP Dependency-Check XML report',
  testedWith: 'OWASP Dependency-Check 6.5.3 and older reports, from corpus samples',
  kind: 'xml',
  detect: (root) => root.name === 'analysis' && /dependency-check/i.test(root.attrs.xmlns ?? ''),
  parse,
};
