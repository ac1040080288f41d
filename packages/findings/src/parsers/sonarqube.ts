import { Finding, FindingInit, Severity } from '../model';
import { addCvss, arr, cwes, line, obj, severityOf, str, vulnIds } from '../normalize';
import { each, hasKeys, JsonFormat, ParseContext } from './common';

type Obj = Record<string, unknown>;

/** SonarQube's scale; MAJOR is its default and corresponds to medium. */
const SONAR: Record<string, Severity> = {
  BLOCKER: 'critical',
  CRITICAL: 'high',
  MAJOR: 'medium',
  MINOR: 'low',
  INFO: 'info',
};

function sonarSeverity(word: string | undefined): Severity {
  return (word && (SONAR[word.toUpperCase()] ?? severityOf(word))) || 'medium';
}

/** "project:src/a.ts" → "src/a.ts"; the components list gives the path where it is present. */
function filePath(component: string | undefined, paths: Map<string, string>): string | undefined {
  if (!component) return undefined;
  return paths.get(component) ?? (component.includes(':') ? component.slice(component.indexOf(':') + 1) : component);
}

/** The Dependency-Check plugin reports dependencies in the message: "Filename: x:1.2 | Reference: CVE-... | CVSS Score: 6.4 | Category: CWE-120". */
function dependency(message: string, init: FindingInit): void {
  const file = /Filename: ([^|]+?)\s*(\||$)/.exec(message)?.[1];
  if (!file) return;
  const m = /^(.+):(\d[^:]*)$/.exec(file);
  init.library = m ? { name: m[1], version: m[2] } : { name: file };
  init.vulnerabilityIds = vulnIds([], message);
  init.cwes = cwes(/Category: ([^|]+)/.exec(message)?.[1] ?? []);
  init.cvssScore = Number(/CVSS Score: ([\d.]+)/.exec(message)?.[1]) || undefined;
  init.toolCategory = 'sca';
}

function* issues(doc: Obj, ctx: ParseContext): Generator<Finding> {
  const paths = new Map<string, string>();
  for (const c of each(doc.components))
    if (str(obj(c).key) && str(obj(c).path)) paths.set(String(obj(c).key), String(obj(c).path));
  const rules = obj(doc.rules);
  for (const x of each(doc.issues)) {
    const i = obj(x);
    const rule = str(i.rule);
    const message = str(i.message) ?? rule ?? 'SonarQube issue';
    const range = obj(i.textRange);
    const init: FindingInit = {
      tool: 'sonarqube',
      toolCategory: 'sast',
      ruleId: rule,
      title: str(obj(rules[rule ?? '']).name) ?? str(i.description) ?? message,
      description: message,
      severity: sonarSeverity(str(i.severity)),
      toolSeverity: str(i.severity),
      tags: [str(i.type), ...arr(i.tags).map(str)].filter((t): t is string => !!t),
      cwes: cwes(arr(i.tags).filter((t) => /^cwe/i.test(String(t)))),
      filePath: filePath(str(i.component), paths),
      startLine: line(range.startLine) ?? line(i.line),
      endLine: line(range.endLine) ?? line(i.line),
      toolFingerprints: str(i.key) ? { key: String(i.key) } : {},
      suppression: /FALSE-POSITIVE|WONTFIX|ACCEPTED|SAFE/.test(`${str(i.resolution) ?? ''} ${str(i.issueStatus) ?? ''}`)
        ? { state: String(i.resolution ?? i.issueStatus), source: 'tool' }
        : undefined,
      detectedAt: str(i.creationDate),
    };
    if (/UsingComponentWithKnownVulnerability/.test(rule ?? '')) {
      dependency(message, init);
      addCvss(init, undefined, init.cvssScore);
    }
    yield ctx.finding(init);
  }
  for (const x of each(doc.hotspots)) {
    const h = obj(x);
    const range = obj(h.textRange);
    yield ctx.finding({
      tool: 'sonarqube',
      toolCategory: 'sast',
      ruleId: str(h.ruleKey),
      title: str(h.message) ?? 'Security hotspot',
      description: str(h.message),
      severity: severityOf(h.vulnerabilityProbability) ?? 'medium',
      toolSeverity: str(h.vulnerabilityProbability),
      tags: ['hotspot', str(h.securityCategory)].filter((t): t is string => !!t),
      filePath: filePath(str(h.component), paths),
      startLine: line(range.startLine) ?? line(h.line),
      endLine: line(range.endLine) ?? line(h.line),
      toolFingerprints: str(h.key) ? { key: String(h.key) } : {},
      detectedAt: str(h.creationDate),
    });
  }
}

export const sonarqube: JsonFormat = {
  id: 'sonarqube',
  title: 'SonarQube issues JSON (api/issues/search, api/hotspots/search, sonar-report JSON)',
  testedWith: 'SonarQube Web API issues and hotspots search, sonar-report JSON, from corpus samples',
  kind: 'json',
  detect: (doc) =>
    (hasKeys(doc, 'issues') &&
      (hasKeys(doc, 'paging') || hasKeys(doc, 'sonarComponent') || hasKeys(doc, 'effortTotal'))) ||
    hasKeys(doc, 'hotspots', 'paging'),
  parse: (doc, ctx) => issues(obj(doc), ctx),
};
