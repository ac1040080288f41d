import type { IssueRecord } from '../store/issues/issue-store';
import { STATUS } from './statuses';

// Issues as SARIF 2.1.0 (OASIS): what code-scanning dashboards and IDEs read.

export const SARIF_SCHEMA = 'https://json.schemastore.org/sarif-2.1.0.json';

/** GitHub's convention for a rule's severity, 0-10, where a score is missing. */
const SEVERITY_SCORE: Record<string, number> = { critical: 9.5, high: 8.0, medium: 5.5, low: 3.0, info: 0.0 };
const LEVEL: Record<string, 'error' | 'warning' | 'note'> = {
  critical: 'error',
  high: 'error',
  medium: 'warning',
  low: 'note',
  info: 'note',
};
const LEVEL_RANK = { note: 0, warning: 1, error: 2 } as const;

const scoreOf = (i: IssueRecord) => i.cvssMax ?? SEVERITY_SCORE[i.severity] ?? 0;
const levelOf = (i: IssueRecord) => LEVEL[i.severity] ?? 'warning';
const cweTag = (cwe: number) => `external/cwe/cwe-${cwe}`;

/** Statuses that mean "a person decided this is not to be acted on": SARIF suppressions, accepted. */
const SUPPRESSED: Record<number, string> = {
  [STATUS.falsePositive]: 'False positive',
  [STATUS.riskAccepted]: 'Risk accepted',
  [STATUS.suppressed]: 'Suppressed',
};

/** The rule id of an issue: the scanner's rule, else its CVE, else its title (SARIF requires one). */
export const sarifRuleId = (i: IssueRecord) => i.ruleId ?? i.cve ?? i.title;

export interface SarifRule {
  id: string;
  shortDescription: { text: string };
  fullDescription?: { text: string };
  defaultConfiguration: { level: 'error' | 'warning' | 'note' };
  properties: { tags: string[]; 'security-severity': string; precision?: string };
}

/** A rule from the first issue of it seen: its title, its CWEs as tags, its highest severity. */
export function sarifRule(i: IssueRecord): SarifRule {
  return {
    id: sarifRuleId(i),
    shortDescription: { text: i.title.slice(0, 1024) },
    ...(i.description ? { fullDescription: { text: i.description.slice(0, 4096) } } : {}),
    defaultConfiguration: { level: levelOf(i) },
    properties: { tags: ['security', i.category, ...i.cwes.map(cweTag)], 'security-severity': scoreOf(i).toFixed(1) },
  };
}

/** Keeps the higher severity when later issues of a rule are more severe than the first. */
export function mergeRule(rule: SarifRule, i: IssueRecord): void {
  const score = scoreOf(i);
  if (score > Number(rule.properties['security-severity'])) rule.properties['security-severity'] = score.toFixed(1);
  const level = levelOf(i);
  if (LEVEL_RANK[level] > LEVEL_RANK[rule.defaultConfiguration.level]) rule.defaultConfiguration.level = level;
  for (const tag of i.cwes.map(cweTag)) if (!rule.properties.tags.includes(tag)) rule.properties.tags.push(tag);
}

/** One result: where, how bad, Bulwark's fingerprint, and a suppression for decided statuses. */
export function sarifResult(i: IssueRecord, ruleIndex: number, statusName: string) {
  const location = i.filePath
    ? {
        physicalLocation: {
          artifactLocation: { uri: i.filePath },
          ...(i.startLine && i.startLine > 0 ? { region: { startLine: i.startLine } } : {}),
        },
      }
    : i.libName
      ? { logicalLocations: [{ name: i.libVersion ? `${i.libName}@${i.libVersion}` : i.libName, kind: 'package' }] }
      : undefined;
  const suppression = SUPPRESSED[i.statusId];
  return {
    ruleId: sarifRuleId(i),
    ruleIndex,
    level: levelOf(i),
    message: { text: i.title },
    ...(location ? { locations: [location] } : {}),
    partialFingerprints: { 'bulwark/v1': i.fingerprint },
    ...(suppression ? { suppressions: [{ kind: 'external', status: 'accepted', justification: suppression }] } : {}),
    properties: {
      'bulwark/issue_id': i.id,
      'bulwark/project_code': i.projectCode,
      'bulwark/status': statusName,
      severity: i.severity,
      ...(i.cve ? { cve: i.cve } : {}),
      ...(i.cvssMax !== null ? { cvss: i.cvssMax } : {}),
    },
  };
}
