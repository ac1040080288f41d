import { expect } from 'chai';
import { riskFactors, riskScoreOf } from './risk';

describe('risk score', () => {
  const base = {
    severity: 'high',
    cvssMax: null,
    epss: null,
    knownExploited: false,
    projectCriticality: 'medium' as const,
  };

  it('is 100 for a CVSS 10 issue known exploited in a critical project', () => {
    expect(
      riskScoreOf(riskFactors({ ...base, cvssMax: 10, knownExploited: true, projectCriticality: 'critical' })),
    ).to.equal(100);
  });

  it('weighs severity without CVSS, EPSS between unknown and known exploited, and the project', () => {
    const f = riskFactors(base);
    expect(f).to.include({
      impact: 0.8,
      impact_from: 'severity',
      likelihood: 0.5,
      likelihood_from: 'none',
      criticality_weight: 0.8,
    });
    expect(riskScoreOf(f)).to.equal(32);
    expect(riskScoreOf(riskFactors({ ...base, epss: 0.9 }))).to.equal(60);
    expect(riskScoreOf(riskFactors({ ...base, epss: 0.001 }))).to.equal(19);
    expect(riskScoreOf(riskFactors({ ...base, knownExploited: true, epss: 0.1 }))).to.equal(64);
    expect(riskScoreOf(riskFactors({ ...base, projectCriticality: 'low' }))).to.equal(24);
    expect(riskScoreOf(riskFactors({ ...base, severity: 'info', cvssMax: 5.5 }))).to.equal(22);
  });
});
