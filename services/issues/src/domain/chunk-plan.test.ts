import { expect } from 'chai';
import type { Finding } from '@bulwark/findings';
import { KeyedFinding, KnownIssue, planChunk, PlanContext } from './chunk-plan';
import { DEFAULT_RULE } from './match-key';
import { STATUS } from './statuses';
import type { SecurityRuleRecord } from '../store/security-rules';

const AT = '2026-11-23T10:00:00.000Z';
const SCAN = 'scan-2';

const finding = (over: Partial<Finding> = {}): Finding => ({
  tool: 'Semgrep',
  toolCategory: 'sast',
  format: 'semgrep',
  ruleId: 'r1',
  title: 'SQL injection',
  severity: 'high',
  tags: [],
  cwes: [89],
  vulnerabilityIds: [],
  references: [],
  endpoints: [],
  toolFingerprints: {},
  fingerprint: 'fp',
  occurrences: 1,
  filePath: 'app.py',
  startLine: 7,
  ...over,
});

const keyed = (key: string, over: Partial<Finding> = {}, occurrences = 1): [string, KeyedFinding] => [
  `scope|${key}`,
  { finding: finding(over), scope: 'scope', key, occurrences, findings: 1, rule: DEFAULT_RULE },
];

const rule = (over: Partial<SecurityRuleRecord> = {}): SecurityRuleRecord => ({
  id: 'rule-1',
  name: 'No SQL injection in demo',
  ruleParams: { cwe: 89 },
  suppressingStatus: STATUS.riskAccepted,
  expiryStatus: STATUS.new,
  expiresAt: null,
  expired: false,
  author: 'admin',
  createdAt: AT,
  updatedAt: AT,
  ...over,
});

const context = (rules: SecurityRuleRecord[] = []): PlanContext => ({
  scan: { project_code: 'DEMO', layer_id: 'layer-1', check_id: 'check-1', scan_result_id: SCAN, tool_id: 'tool-1' },
  at: AT,
  toolName: 'Semgrep',
  rules,
});

const ids = () => {
  let n = 0;
  return () => `issue-${++n}`;
};

describe('issues: planning a chunk of findings', () => {
  it('creates an issue per unknown finding, status New, from the finding and the scan', () => {
    const plan = planChunk(
      context(),
      new Map([
        keyed('a', {
          cvssV3: { vector: 'v3', score: 7.5 },
          cvssScore: 9.1,
          vulnerabilityIds: ['GHSA-x', 'CVE-2024-1'],
        }),
      ]),
      new Map(),
      ids(),
    );
    expect(plan).to.include({ created: 1, updated: 0, reopened: 0 });
    expect(plan.detections).to.deep.equal([]);
    expect(plan.history).to.deep.equal([]);
    expect(plan.inserts[0]).to.include({
      id: 'issue-1',
      projectCode: 'DEMO',
      matchKey: 'a',
      scanId: SCAN,
      firstScanId: SCAN,
      statusId: STATUS.new,
      severityRank: 4,
      cve: 'CVE-2024-1',
      cvssV3: 7.5,
      cvssMax: 9.1,
      securityRuleId: null,
      firstDetectedAt: AT,
    });
    expect(plan.known.get('scope|a')).to.deep.equal({
      id: 'issue-1',
      statusId: STATUS.new,
      scanId: SCAN,
      securityRuleId: null,
    });
  });

  it('gives a new issue the first matching security rule’s status and writes why', () => {
    const plan = planChunk(
      context([rule({ id: 'other', ruleParams: { cwe: 79 } }), rule()]),
      new Map([keyed('a')]),
      new Map(),
      ids(),
    );
    expect(plan.inserts[0]).to.include({ statusId: STATUS.riskAccepted, securityRuleId: 'rule-1' });
    expect(plan.history).to.deep.equal([
      {
        issueId: 'issue-1',
        actorKind: 'security_rule',
        actor: 'No SQL injection in demo',
        field: 'status',
        oldValue: String(STATUS.new),
        newValue: String(STATUS.riskAccepted),
        comment: 'Security rule No SQL injection in demo',
        reason: { kind: 'security_rule', scan_id: SCAN, rule_id: 'rule-1', rule_name: 'No SQL injection in demo' },
        at: AT,
      },
    ]);
  });

  it('takes a suppressed finding’s status from the report, before any security rule', () => {
    const plan = planChunk(
      context([rule()]),
      new Map([keyed('a', { suppression: { state: 'not_affected', source: 'vex' } })]),
      new Map(),
      ids(),
    );
    expect(plan.inserts[0]).to.include({ statusId: STATUS.falsePositive, securityRuleId: null });
    expect(plan.history[0]).to.include({ actorKind: 'scan', actor: SCAN, oldValue: null });
  });

  it('reopens a fixed issue found by a new scan, and counts it', () => {
    const known: KnownIssue = { id: 'old', statusId: STATUS.fixed, scanId: 'scan-1', securityRuleId: 'rule-1' };
    const plan = planChunk(context(), new Map([keyed('a', {}, 3)]), new Map([['scope|a', known]]), ids());
    expect(plan).to.include({ created: 0, updated: 1, reopened: 1 });
    expect(plan.inserts).to.deep.equal([]);
    expect(plan.detections[0]).to.include({
      id: 'old',
      newScan: true,
      occurrences: 3,
      statusId: STATUS.reopen,
      securityRuleId: null,
    });
    expect(plan.history[0]).to.include({
      oldValue: String(STATUS.fixed),
      comment: 'Detected again after it was fixed',
    });
    expect(plan.known.get('scope|a')).to.deep.equal({
      id: 'old',
      statusId: STATUS.reopen,
      scanId: SCAN,
      securityRuleId: null,
    });
  });

  it('keeps status and security rule of an issue this scan already wrote, without history', () => {
    const known: KnownIssue = { id: 'same', statusId: STATUS.fixed, scanId: SCAN, securityRuleId: 'rule-1' };
    const plan = planChunk(context(), new Map([keyed('a')]), new Map([['scope|a', known]]), ids());
    expect(plan).to.include({ updated: 1, reopened: 0 });
    expect(plan.detections[0]).to.include({ newScan: false, statusId: STATUS.fixed, securityRuleId: 'rule-1' });
    expect(plan.history).to.deep.equal([]);
  });

  it('keeps the order of the findings in what it writes', () => {
    const known: KnownIssue = { id: 'k', statusId: STATUS.new, scanId: 'scan-1', securityRuleId: null };
    const plan = planChunk(
      context([rule({ ruleParams: { cwe: 22 } })]),
      new Map([keyed('a', { cwes: [22] }), keyed('b'), keyed('c', { cwes: [22] })]),
      new Map([['scope|b', known]]),
      ids(),
    );
    expect(plan.inserts.map((i) => i.matchKey)).to.deep.equal(['a', 'c']);
    expect(plan.history.map((h) => h.issueId)).to.deep.equal(['issue-1', 'issue-2']);
    expect([...plan.known.keys()]).to.deep.equal(['scope|a', 'scope|b', 'scope|c']);
  });
});
