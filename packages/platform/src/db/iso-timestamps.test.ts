import { expect } from 'chai';
import pg from 'pg';
import { iso } from './rows';
import { isoTimestamp } from './iso-timestamps';

/** What the API wrote before: the driver's Date, written by `iso()`. */
const throughDate = (text: string) => iso(pg.types.getTypeParser(1184, 'text')(text) as Date);

describe('isoTimestamp (a timestamptz straight from its text)', () => {
  it("writes what the driver's Date wrote for every fraction of a second PostgreSQL writes (six digits at most)", () => {
    const different: string[] = [];
    for (let micros = 0; micros < 1_000_000; micros++) {
      // PostgreSQL leaves the fraction's trailing zeros out, and the point too when nothing is left.
      const fraction = `.${String(micros).padStart(6, '0')}`.replace(/\.?0+$/, '');
      const text = `2026-11-29 23:59:59${fraction}+00`;
      if (isoTimestamp(text) !== throughDate(text)) different.push(text);
    }
    expect(different).to.deep.equal([]);
  });

  it('writes the same as the driver for other years, time zones and eras', () => {
    for (const text of [
      '1970-01-01 00:00:00+00',
      '0050-03-01 12:00:00.5+00',
      '9999-12-31 00:00:00+00',
      '2024-02-29 08:30:00.123456+05:30',
      '2026-06-01 00:00:00-07',
      '0044-03-15 12:00:00+00 BC',
      '12026-01-01 00:00:00+00',
    ])
      expect(isoTimestamp(text), text).to.equal(throughDate(text));
  });

  it('is left as it is by iso(), which still writes Dates and other texts of a time', () => {
    expect(iso('2026-11-29T23:59:59.028Z')).to.equal('2026-11-29T23:59:59.028Z');
    expect(iso(new Date(Date.UTC(2026, 10, 29)))).to.equal('2026-11-29T00:00:00.000Z');
    expect(iso('2026-11-29 12:00:00+01')).to.equal('2026-11-29T11:00:00.000Z');
  });
});
