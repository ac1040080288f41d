import { expect } from 'chai';
import { SlaProjectDays, slaRedates } from './sla';

describe('SLA re-dating', () => {
  const days: SlaProjectDays = { critical: 7, high: 30, medium: 90, low: 180, info: null, knownExploited: 14 };
  const redates = (before: SlaProjectDays | null, after: SlaProjectDays | null) =>
    slaRedates({ projectCode: 'p', before, after }).map((r) => [r.severityRank, r.knownExploitedOnly]);

  it('re-dates the severities whose days changed, and no other', () => {
    expect(redates(days, { ...days, high: 14 })).to.deep.equal([[4, false]]);
    expect(redates(days, { ...days, critical: 3, info: 365 })).to.deep.equal([
      [5, false],
      [1, false],
    ]);
    expect(redates(days, { ...days })).to.deep.equal([]);
  });

  it('re-dates only the known-exploited issues of the other severities when the KEV days change', () => {
    expect(redates(days, { ...days, knownExploited: null, low: 90 })).to.deep.equal([
      [5, true],
      [4, true],
      [3, true],
      [2, false],
      [1, true],
    ]);
  });

  it('re-dates every severity of a project gaining or losing its days', () => {
    const every = [5, 4, 3, 2, 1].map((rank) => [rank, false]);
    expect(redates(null, days)).to.deep.equal(every);
    expect(redates(days, null)).to.deep.equal(every);
  });
});
