import { randomUUID } from 'node:crypto';
import type { Finding, Suppression } from '@bulwark/findings';
import type { EventPayload, SCAN_EVENTS } from '@bulwark/contracts';
import type { HistoryEntry } from '../store/history';
import { type Detection, type IssueMatch, type NewIssue } from '../store/issues/issue-store';
import { SEVERITY_RANK } from './severities';
import type { SecurityRuleRecord } from '../store/security-rules';
import { ChangeReason, matchReason, MatchReason } from './change-reason';
import type { DedupRule } from './match-key';
import { ruleMatches } from './rules';
import { STATUS, statusOnDetection } from './statuses';

/** What ingestion knows of an issue already written: by an earlier scan (locked) or by this scan's earlier chunks. */
export type KnownIssue = IssueMatch;

/** A finding of the report with its match key (`scope` + `key`) and how often the report had it. */
export interface KeyedFinding {
  finding: Finding;
  scope: string;
  key: string;
  occurrences: number;
  /** How many of the report's findings these are. */
  findings: number;
  /** The deduplication rule that keyed it. */
  rule: DedupRule;
}

export interface PlanContext {
  scan: Pick<
    EventPayload<typeof SCAN_EVENTS.scanCompleted>,
    'project_code' | 'layer_id' | 'check_id' | 'scan_result_id' | 'tool_id'
  >;
  at: string;
  toolName: string;
  /** The active security rules, in the order they are tried. */
  rules: SecurityRuleRecord[];
}

/** What one chunk writes, and what it changes in ingestion's picture of the issues. */
export interface ChunkPlan {
  inserts: NewIssue[];
  detections: Detection[];
  history: HistoryEntry[];
  /** The chunk's issues as they stand once it is written, by match id. */
  known: Map<string, KnownIssue>;
  created: number;
  updated: number;
  reopened: number;
}

const score = (c?: { score?: number }) => (c?.score === undefined ? null : c.score);

/**
 * The history of a status a scan set: Reopen for a fixed issue found again, otherwise the status the
 * report's suppression asked for (`from` is null for a new issue).
 */
export function statusSetByScan(
  scan: { scan_result_id: string; check_id: string },
  at: string,
  issueId: string,
  from: number | null,
  to: number,
  suppression: Suppression | undefined,
  match: MatchReason | { same_findings_as_scan: string } | null,
): HistoryEntry {
  const scanId = scan.scan_result_id;
  const reason: ChangeReason =
    to === STATUS.reopen
      ? {
          kind: 'reopened',
          scan_id: scanId,
          check_id: scan.check_id,
          match: match ?? { same_findings_as_scan: scanId },
        }
      : { kind: 'report_suppression', scan_id: scanId, state: suppression?.state ?? '', match };
  return {
    issueId,
    actorKind: 'scan',
    actor: scanId,
    field: 'status',
    oldValue: from === null ? null : String(from),
    newValue: String(to),
    comment: to === STATUS.reopen ? 'Detected again after it was fixed' : `Report suppression: ${suppression?.state}`,
    reason,
    at,
  };
}

const knownAs = (id: string, written: Omit<KnownIssue, 'id'>): KnownIssue => ({
  id,
  statusId: written.statusId,
  scanId: written.scanId,
  securityRuleId: written.securityRuleId,
});

/**
 * Plans a chunk of findings: a finding whose match id has no known issue becomes a new issue (its
 * status from the report's suppression or the first matching security rule), any other is a detection
 * of its issue (Fixed becomes Reopen on a new scan). No I/O: the caller looked the issues up and writes the plan.
 */
export function planChunk(
  ctx: PlanContext,
  findings: Map<string, KeyedFinding>,
  known: Map<string, KnownIssue>,
  newId: () => string = randomUUID,
): ChunkPlan {
  const plan: ChunkPlan = {
    inserts: [],
    detections: [],
    history: [],
    known: new Map(),
    created: 0,
    updated: 0,
    reopened: 0,
  };
  for (const [id, keyed] of findings) {
    const current = known.get(id);
    if (!current) {
      const { issue, history } = firstDetection(ctx, keyed, newId());
      if (history) plan.history.push(history);
      plan.inserts.push(issue);
      plan.known.set(id, knownAs(issue.id, issue));
      plan.created++;
      continue;
    }
    const { detection, history } = redetection(ctx, keyed, current);
    if (history) plan.history.push(history);
    if (history && detection.statusId === STATUS.reopen) plan.reopened++;
    plan.detections.push(detection);
    plan.known.set(id, knownAs(current.id, detection));
    plan.updated++;
  }
  return plan;
}

/** A new issue from its first finding, and the history of a status other than New. */
export function firstDetection(
  ctx: PlanContext,
  { finding: f, scope, key, occurrences, findings }: KeyedFinding,
  issueId: string,
): { issue: NewIssue; history?: HistoryEntry } {
  const { scan, at } = ctx;
  const cves = f.vulnerabilityIds ?? [];
  let status = statusOnDetection(undefined, f.suppression);
  let ruleId: string | null = null;
  let history: HistoryEntry | undefined;
  if (status === STATUS.new) {
    const rule = ctx.rules.find((r) =>
      ruleMatches(r.ruleParams, {
        projectCode: scan.project_code,
        toolName: ctx.toolName,
        scanner: f.tool,
        category: f.toolCategory,
        cves,
        cwes: f.cwes ?? [],
      }),
    );
    if (rule) {
      status = rule.suppressingStatus;
      ruleId = rule.id;
      history = {
        issueId,
        actorKind: 'security_rule',
        actor: rule.name,
        field: 'status',
        oldValue: String(STATUS.new),
        newValue: String(status),
        comment: `Security rule ${rule.name}`,
        reason: { kind: 'security_rule', scan_id: scan.scan_result_id, rule_id: rule.id, rule_name: rule.name },
        at,
      };
    }
  } else {
    history = statusSetByScan(scan, at, issueId, null, status, f.suppression, null);
  }
  const cvss = [score(f.cvssV2), score(f.cvssV3), score(f.cvssV4), f.cvssScore ?? null].filter(
    (s): s is number => s !== null,
  );
  const issue: NewIssue = {
    id: issueId,
    projectCode: scan.project_code,
    scopeId: scope,
    matchKey: key,
    layerId: scan.layer_id,
    checkId: scan.check_id,
    scanId: scan.scan_result_id,
    firstScanId: scan.scan_result_id,
    toolId: scan.tool_id ?? '',
    toolName: ctx.toolName || f.tool,
    scanner: f.tool,
    category: f.toolCategory,
    title: f.title,
    description: f.description ?? null,
    severity: f.severity,
    severityRank: SEVERITY_RANK[f.severity] ?? 1,
    ruleId: f.ruleId ?? null,
    statusId: status,
    cve: cves.find((v) => v.startsWith('CVE-')) ?? null,
    vulnerabilityIds: cves,
    cwes: f.cwes ?? [],
    libName: f.library?.name ?? null,
    libVersion: f.library?.version ?? null,
    filePath: f.filePath ?? null,
    startLine: f.startLine ?? null,
    cvssV2: score(f.cvssV2),
    cvssV3: score(f.cvssV3),
    cvssV4: score(f.cvssV4),
    cvssUnknown: f.cvssScore ?? null,
    cvssMax: cvss.length ? Math.max(...cvss) : null,
    epss: f.epss?.score ?? null,
    knownExploited: f.knownExploited ?? false,
    fingerprint: f.fingerprint,
    occurrences,
    findings,
    suppression: f.suppression ?? null,
    securityRuleId: ruleId,
    firstDetectedAt: at,
    lastDetectedAt: at,
    updatedAt: at,
  };
  return { issue, history };
}

/**
 * A known issue found again: its status on a new scan (Fixed becomes Reopen, the report's suppression
 * applies), the history of a change, and the security rule it keeps only while its status is unchanged.
 */
export function redetection(
  ctx: PlanContext,
  { finding: f, occurrences, findings, rule }: KeyedFinding,
  current: KnownIssue,
): { detection: Detection; history?: HistoryEntry } {
  const { scan, at } = ctx;
  const newScan = current.scanId !== scan.scan_result_id;
  const status = newScan ? statusOnDetection(current.statusId, f.suppression) : current.statusId;
  const history =
    status === current.statusId
      ? undefined
      : statusSetByScan(scan, at, current.id, current.statusId, status, f.suppression, matchReason(rule));
  const detection: Detection = {
    id: current.id,
    scanId: scan.scan_result_id,
    checkId: scan.check_id,
    layerId: scan.layer_id,
    newScan,
    occurrences,
    findings,
    statusId: status,
    severity: f.severity,
    severityRank: SEVERITY_RANK[f.severity] ?? 1,
    startLine: f.startLine ?? null,
    suppression: f.suppression ?? null,
    securityRuleId: status === current.statusId ? current.securityRuleId : null,
  };
  return { detection, history };
}
