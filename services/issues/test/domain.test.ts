import { expect } from 'chai';
import type { Finding } from '@bulwark/findings';
import { compare, evaluateGate, GateCondition, IssueCounts, layerVerdict, Operator } from '../src/domain/gates';
import { DEFAULT_RULE, matchKey, ruleFor, scopeOf } from '../src/domain/match-key';
import { ruleMatches, RuleParams, RuleSubject } from '../src/domain/rules';
import {
  allowedTargets,
  DEFAULT_TRANSITIONS,
  isAllowedTransition,
  STATUS,
  statusForSuppression,
  statusOnDetection,
} from '../src/domain/statuses';

const finding = (over: Partial<Finding> = {}): Finding => ({
  tool: 'Semgrep',
  toolCategory: 'sast',
  format: 'semgrep',
  ruleId: 'r1',
  title: 'Title',
  severity: 'high',
  tags: [],
  cwes: [78],
  vulnerabilityIds: [],
  references: [],
  endpoints: [],
  toolFingerprints: {},
  fingerprint: 'fp1',
  occurrences: 1,
  filePath: 'app.py',
  startLine: 4,
  ...over,
});

describe('issues domain: match keys', () => {
  const cases: [string, Partial<Finding>, Partial<Finding>, boolean][] = [
    ['a line shift keeps the key', { startLine: 4 }, { startLine: 40 }, true],
    ['another fingerprint is another issue', {}, { fingerprint: 'fp2' }, false],
    [
      'the tool fingerprint wins over the computed one',
      { toolFingerprints: { a: '1' }, fingerprint: 'x' },
      { toolFingerprints: { a: '1' }, fingerprint: 'y' },
      true,
    ],
    [
      'another tool fingerprint is another issue',
      { toolFingerprints: { a: '1' } },
      { toolFingerprints: { a: '2' } },
      false,
    ],
    ['tool names compare without case', { tool: 'Semgrep' }, { tool: 'semgrep' }, true],
    ['another tool is another issue', { tool: 'Semgrep' }, { tool: 'Bandit' }, false],
  ];
  for (const [name, a, b, same] of cases) {
    it(name, () => expect(matchKey(finding(a), DEFAULT_RULE) === matchKey(finding(b), DEFAULT_RULE)).to.equal(same));
  }

  it('keys by the configured fields only', () => {
    const rule = { toolName: 'semgrep', fields: ['rule_id', 'file_path'] as const, scope: 'layer' as const };
    const r = { ...rule, fields: [...rule.fields] };
    expect(matchKey(finding({ fingerprint: 'a', snippet: 'x' }), r)).to.equal(
      matchKey(finding({ fingerprint: 'b', snippet: 'y' }), r),
    );
    expect(matchKey(finding({ filePath: './app.py' }), r)).to.equal(matchKey(finding({ filePath: 'app.py' }), r));
    expect(matchKey(finding({ ruleId: 'r2' }), r)).not.to.equal(matchKey(finding(), r));
    expect(scopeOf(r, 'layer-1')).to.equal('layer-1');
    expect(scopeOf(DEFAULT_RULE, 'layer-1')).to.equal('');
  });

  it('picks the tool\u2019s rule by any of its names, else the default rule, else the built-in one', () => {
    const own = { toolName: 'Semgrep', fields: ['fingerprint' as const], scope: 'project' as const };
    const def = { toolName: null, fields: ['title' as const], scope: 'project' as const };
    expect(ruleFor([def, own], ['My semgrep', 'semgrep'])).to.equal(own);
    expect(ruleFor([def, own], ['Bandit'])).to.equal(def);
    expect(ruleFor([own], ['Bandit'])).to.equal(DEFAULT_RULE);
  });
});

describe('issues domain: statuses', () => {
  const T = DEFAULT_TRANSITIONS.map(([from, to]) => ({ from, to }));
  const transitions: [number, number, boolean][] = [
    [STATUS.new, STATUS.confirmed, true],
    [STATUS.new, STATUS.reopen, false],
    [STATUS.fixed, STATUS.reopen, true],
    [STATUS.fixed, STATUS.new, false],
    [STATUS.reopen, STATUS.fixed, true],
    [STATUS.suppressed, STATUS.confirmed, false],
  ];
  for (const [from, to, allowed] of transitions)
    it(`${from} -> ${to} is ${allowed ? 'allowed' : 'refused'}`, () =>
      expect(isAllowedTransition(T, from, to)).to.equal(allowed));
  it('names the allowed targets in order', () =>
    expect(allowedTargets(T, STATUS.fixed)).to.deep.equal([STATUS.reopen]));

  const suppressions: [string, 'sarif' | 'vex' | 'tool', number | undefined][] = [
    ['accepted', 'sarif', STATUS.suppressed],
    ['not_affected', 'vex', STATUS.falsePositive],
    ['false_positive', 'tool', STATUS.falsePositive],
    ['NOT EXPLOITABLE', 'tool', STATUS.falsePositive],
    ['resolved', 'vex', STATUS.fixed],
    ['will_not_fix', 'vex', STATUS.riskAccepted],
    ['WONTFIX', 'tool', STATUS.riskAccepted],
    ['exploitable', 'vex', STATUS.confirmed],
    ['in_triage', 'vex', undefined],
    ['suppressed', 'tool', STATUS.suppressed],
  ];
  for (const [state, source, status] of suppressions)
    it(`maps ${source} ${state} to ${status}`, () => expect(statusForSuppression({ state, source })).to.equal(status));

  const detections: [number | undefined, string | undefined, number][] = [
    [undefined, undefined, STATUS.new],
    [undefined, 'not_affected', STATUS.falsePositive],
    [STATUS.fixed, undefined, STATUS.reopen],
    [STATUS.new, 'not_affected', STATUS.falsePositive],
    [STATUS.confirmed, 'not_affected', STATUS.confirmed],
    [STATUS.inProgress, undefined, STATUS.inProgress],
    [STATUS.riskAccepted, undefined, STATUS.riskAccepted],
    [STATUS.fixed, 'resolved', STATUS.reopen],
  ];
  for (const [current, state, next] of detections) {
    it(`a detection of a ${current ?? 'new'} issue${state ? ` (${state})` : ''} gives ${next}`, () =>
      expect(statusOnDetection(current, state ? { state, source: 'vex' } : undefined)).to.equal(next));
  }
});

describe('issues domain: quality gates', () => {
  const counts: IssueCounts = {
    total: 6,
    bySeverity: { critical: 1, high: 2, medium: 3 },
    newBySeverity: { high: 1 },
    byCategory: { sast: 4, sca: 2 },
    byCwe: { '79': 2 },
    byCvss: { '9.8': 1, '7.5': 2, '5.0': 3 },
  };
  const c = (
    conditionType: GateCondition['conditionType'],
    conditionValue: string,
    operator: Operator,
    value: number,
  ): GateCondition => ({ id: 'c', qualityGateId: 'g', conditionType, conditionValue, operator, value });
  const table: [GateCondition, number, boolean][] = [
    [c('severity', 'high', 'not_greater_than', 2), 2, true],
    [c('severity', 'critical', 'not_greater_than', 0), 1, false],
    [c('severity', 'low', 'equal', 0), 0, true],
    [c('cvss', '7.0', 'less_than', 3), 3, false],
    [c('cvss', '9', 'not_greater_than', 1), 1, true],
    [c('new_issues', '', 'greater_than', 0), 1, true],
    [c('new_issues', 'medium', 'equal', 0), 0, true],
    [c('category', 'SCA', 'not_less_than', 2), 2, true],
    [c('cwe', 'CWE-79', 'not_equal', 2), 2, false],
    [c('total', '', 'not_greater_than', 5), 6, false],
  ];
  for (const [cond, measured, passed] of table) {
    it(`${cond.conditionType} ${cond.conditionValue} ${cond.operator} ${cond.value}: measures ${measured}, ${passed ? 'passes' : 'fails'}`, () => {
      const v = evaluateGate([cond], counts);
      expect(v.conditions[0]).to.include({ measured, passed });
      expect(v.passed).to.equal(passed);
    });
  }
  it('compares with every operator', () => {
    expect([
      compare(1, 'not_greater_than', 1),
      compare(1, 'less_than', 1),
      compare(1, 'not_less_than', 1),
      compare(1, 'greater_than', 1),
      compare(1, 'equal', 1),
      compare(1, 'not_equal', 1),
    ]).to.deep.equal([true, false, true, false, true, false]);
  });
  it('fails the layer only for a failing lock gate', () => {
    const failing = [c('total', '', 'equal', 0)];
    expect(layerVerdict([{ id: 'g', name: 'g', action: 'inform', conditions: failing }], counts)).to.include({
      status: 'passed',
      locked: false,
    });
    expect(layerVerdict([{ id: 'g', name: 'g', action: 'lock', conditions: failing }], counts)).to.include({
      status: 'failed',
      locked: true,
    });
    expect(layerVerdict([], counts).status).to.equal('passed');
  });
});

describe('issues domain: security rules', () => {
  const s: RuleSubject = {
    projectCode: 'p1',
    toolName: 'My Trivy',
    scanner: 'Trivy',
    category: 'sca',
    cves: ['CVE-2024-1'],
    cwes: [79],
  };
  const table: [string, RuleParams, boolean][] = [
    ['no parameter covers nothing', {}, false],
    ['the CVE, in any case', { cve: 'cve-2024-1' }, true],
    ['another CVE', { cve: 'CVE-2024-2' }, false],
    ['the CWE as text', { cwe: 'CWE-79' }, true],
    ['the CWE as a number', { cwe: 79 }, true],
    ['the scanner name', { tool_type_name: 'trivy' }, true],
    ['the catalog tool name', { tool_type_name: 'my trivy' }, true],
    ['the tool category', { instrument_type: 'SCA', cve: 'CVE-2024-1' }, true],
    ['another category', { instrument_type: 'sast' }, false],
    ['a project rule of another project', { cve: 'CVE-2024-1', active_for_all: false, project_codes: ['p2'] }, false],
    ['a project rule of this project', { cve: 'CVE-2024-1', active_for_all: false, project_codes: ['p1'] }, true],
  ];
  for (const [name, params, matches] of table) it(name, () => expect(ruleMatches(params, s)).to.equal(matches));
});
