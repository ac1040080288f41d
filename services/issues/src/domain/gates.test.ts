import { expect } from 'chai';
import { compare, evaluateGate, GateCondition, gateProjects, IssueCounts, layerVerdict, Operator } from './gates';

describe('issues domain: quality gates', () => {
  const counts: IssueCounts = {
    total: 6,
    bySeverity: { critical: 1, high: 2, medium: 3 },
    newBySeverity: { high: 1 },
    byCategory: { sast: 4, sca: 2 },
    byCwe: { '79': 2 },
    byCvss: { '9.8': 1, '7.5': 2, '5.0': 3 },
    exploits: {
      knownExploited: 2,
      slaBreached: 4,
      byEpss: { '0.950': 1, '0.100': 2, '0.001': 3 },
      byRisk: { '90': 1, '64': 2, '20': 3 },
    },
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
    [c('known_exploited', '', 'equal', 0), 2, false],
    [c('epss', '0.1', 'not_greater_than', 3), 3, true],
    [c('epss', '0.5', 'equal', 0), 1, false],
    [c('risk_score', '64', 'less_than', 3), 3, false],
    [c('risk_score', '91', 'equal', 0), 0, true],
    [c('sla_breached', '', 'not_greater_than', 3), 4, false],
    [c('sla_breached', '', 'less_than', 5), 4, true],
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

  it('applies a gate to the projects of its layers and, through policies, to the projects carrying their tags', () => {
    const links = [
      { qualityGateId: 'g', projectCode: 'web' },
      { qualityGateId: 'g', projectCode: 'web' },
      { qualityGateId: 'g', projectCode: 'api' },
      { qualityGateId: 'other', projectCode: 'billing' },
    ];
    const policies = [
      { projectTags: ['pci'], qualityGates: [{ quality_gate_id: 'g' }] },
      { projectTags: ['internal'], qualityGates: [{ quality_gate_id: 'other' }] },
    ];
    expect(gateProjects('g', links, policies)).to.deep.equal({ every: false, codes: ['web', 'api'], tags: ['pci'] });
    expect(gateProjects('unlinked', links, policies)).to.deep.equal({ every: false, codes: [], tags: [] });
  });
});
