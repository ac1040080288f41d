import { Finding } from '../model';
import { cwes, line, obj, severityOf, str } from '../normalize';
import { categoryOfTool } from './category';
import { each, first, hasKeys, JsonFormat, ParseContext } from './common';

/** Horusec's types of a vulnerability other than `Vulnerability`, as its platform sets them. */
const SUPPRESSED = ['FALSE POSITIVE', 'RISK ACCEPTED', 'CORRECTED'];

/** `horusec start -o json`: each analysis vulnerability wraps the result of one engine (Horusec's own, Bandit, GoSec, ...). */
function* parse(doc: unknown, ctx: ParseContext): Generator<Finding> {
  const o = obj(doc);
  for (const a of each(o.analysisVulnerabilities)) {
    const v = obj(obj(a).vulnerabilities);
    const details = str(v.details) ?? '';
    // The first line of `details` is the rule's title, the rest its explanation.
    const [heading, ...rest] = details.split('\n');
    const sev = str(v.severity) ?? 'UNKNOWN';
    const engine = str(v.securityTool);
    yield ctx.finding({
      tool: 'horusec',
      toolCategory: str(v.language) === 'Leaks' ? 'secrets' : categoryOfTool(engine ?? ''),
      ruleId: str(v.rule_id) ?? (engine ? `${engine}:${heading.trim()}` : heading.trim()),
      title: heading.trim() || 'Horusec vulnerability',
      description: rest.join('\n').trim() || undefined,
      severity: severityOf(sev) ?? 'info',
      toolSeverity: sev,
      confidence: str(v.confidence),
      tags: [engine, str(v.language), str(v.type)].filter((t): t is string => !!t),
      cwes: cwes(details),
      filePath: str(v.file),
      startLine: line(v.line),
      snippet: str(v.code),
      // Horusec's hash includes the line, so it is kept as the tool's fingerprint, not used as the identity.
      toolFingerprints: str(v.vulnHash) ? { vulnHash: String(v.vulnHash) } : {},
      suppression: SUPPRESSED.includes(str(v.type)?.toUpperCase() ?? '')
        ? { state: String(v.type), source: 'tool' }
        : undefined,
      detectedAt: str(obj(a).createdAt) ?? str(o.createdAt),
    });
  }
}

const isAnalysisVulnerability = (a: unknown): boolean =>
  hasKeys(obj(a).vulnerabilities, 'securityTool') || hasKeys(obj(a).vulnerabilities, 'vulnHash');

export const horusec: JsonFormat = {
  id: 'horusec',
  title: 'Horusec JSON (horusec start -o json)',
  testedWith: 'Horusec v2.6.3 and v2.7.1',
  kind: 'json',
  detect: (doc) =>
    hasKeys(doc, 'analysisVulnerabilities') &&
    (hasKeys(doc, 'repositoryName', 'status') ||
      hasKeys(doc, 'workspaceID') ||
      isAnalysisVulnerability(first(obj(doc).analysisVulnerabilities))),
  parse,
};
