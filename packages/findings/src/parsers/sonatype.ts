import { Finding } from '../model';
import { arr, cwes, obj, severityOf, str, vulnIds } from '../normalize';
import { each, hasKeys, JsonFormat, ParseContext } from './common';

/**
 * Sonatype Lifecycle (Nexus IQ) raw report JSON; tested with IQ Server API v2 (`/api/v2/applications/{id}/reports/{id}/raw`): one
 * finding per security issue of a component. `severity` is the issue's CVSS score, mapped on the
 * CVSS scale; the threat category (critical, severe, moderate, low) is kept as the tool's word.
 * Licence threats are policy, not vulnerabilities, and are left out.
 */
function* parse(doc: unknown, ctx: ParseContext): Generator<Finding> {
  for (const x of each(obj(doc).components)) {
    const c = obj(x);
    const coords = obj(obj(c.componentIdentifier).coordinates);
    const format = str(obj(c.componentIdentifier).format);
    const name =
      [str(coords.groupId), str(coords.artifactId)].filter(Boolean).join(':') ||
      str(coords.packageId) ||
      str(coords.name) ||
      str(c.displayName) ||
      str(c.packageUrl) ||
      'unknown';
    const version = str(coords.version);
    for (const i of arr(obj(c.securityData).securityIssues)) {
      const issue = obj(i);
      const ref = str(issue.reference) ?? 'unknown';
      const threat = str(issue.threatCategory);
      yield ctx.finding({
        tool: 'sonatype',
        toolCategory: 'sca',
        ruleId: ref,
        title: `${ref} in ${name}${version ? ` ${version}` : ''}`,
        description: [
          `Source: ${str(issue.source) ?? 'unknown'}`,
          str(issue.status) && `Status: ${String(issue.status)}`,
        ]
          .filter(Boolean)
          .join('\n'),
        severity: severityOf(issue.severity) ?? (threat === 'severe' ? 'high' : severityOf(threat)) ?? 'medium',
        toolSeverity: threat ?? str(issue.severity),
        cvssScore: typeof issue.severity === 'number' ? issue.severity : undefined,
        cwes: cwes(issue.cwe),
        vulnerabilityIds: vulnIds([ref]),
        references: [str(issue.url)].filter((u): u is string => !!u),
        library: { name, version, purl: str(c.packageUrl), ecosystem: format },
        filePath: str(arr(c.pathnames)[0]),
      });
    }
  }
}

export const sonatype: JsonFormat = {
  id: 'sonatype',
  title: 'Sonatype Lifecycle (Nexus IQ) raw report JSON',
  testedWith: 'Sonatype Lifecycle raw report API, from corpus samples that carry no tool version',
  kind: 'json',
  detect: (doc) => hasKeys(doc, 'components', 'matchSummary'),
  parse,
};
