import { expect } from 'chai';
import { periodStart } from './period';

describe('reporting domain', () => {
  it('starts each period the calendar unit before its end (UTC)', () => {
    const end = new Date('2026-03-31T12:00:00Z');
    expect(periodStart('all', end)).to.equal(null);
    expect(periodStart('day', end)?.toISOString()).to.equal('2026-03-30T12:00:00.000Z');
    expect(periodStart('week', end)?.toISOString()).to.equal('2026-03-24T12:00:00.000Z');
    expect(periodStart('month', end)?.toISOString()).to.equal('2026-02-28T12:00:00.000Z');
    expect(periodStart('year', new Date('2028-02-29T00:00:00Z'))?.toISOString()).to.equal('2027-02-28T00:00:00.000Z');
    expect(periodStart('quarter', end)?.toISOString()).to.equal('2025-12-31T12:00:00.000Z');
    expect(periodStart('year', end)?.toISOString()).to.equal('2025-03-31T12:00:00.000Z');
  });
});
