import { expect } from 'chai';
import { trendRange } from './trend';

describe('trend intervals', () => {
  const to = new Date('2026-11-22T00:00:00.000Z');

  it('counts days, weeks or months by the length of the period', () => {
    expect(trendRange(new Date('2026-11-15T00:00:00.000Z'), to))
      .to.include({ interval: 'day' })
      .and.have.property('starts')
      .with.length(7);
    const weeks = trendRange(new Date('2026-08-22T00:00:00.000Z'), to);
    expect(weeks.interval).to.equal('week');
    expect(weeks.starts[1].toISOString()).to.equal('2026-08-29T00:00:00.000Z');
    expect(trendRange(null, to)).to.include({ interval: 'month' }).and.have.property('starts').with.length(12);
  });

  it('charts a range longer than ten years over its last ten', () => {
    const range = trendRange(new Date('1970-01-01T00:00:00.000Z'), to);
    expect(range.starts).to.have.length(120);
    expect(range.starts[0].toISOString()).to.equal('2016-11-22T00:00:00.000Z');
  });
});
