import { buildCompliance, CWE_TOP25_2024, OWASP_TOP10_2021 } from '../src/domain/compliance';
import { trendRange } from '../src/domain/trend';
import { expect } from 'chai';
import { periodStart } from '../src/domain/period';
import { buildSnapshot } from '../src/domain/summary';

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

  it('adds the issues service\u2019s groups up into totals, projects and tools, open and not', () => {
    const meta = {
      id: 'r',
      name: 'n',
      type: 'summary',
      author: 'a',
      created_at: '',
      generated_at: '',
      period: 'all',
      from: null,
      to: '',
      project_codes: [],
    };
    const g = (
      projectCode: string,
      toolName: string,
      severity: string,
      statusId: number,
      open: boolean,
      count: number,
    ) => ({ projectCode, toolName, category: 'sast', severity, statusId, open, count });
    const s = buildSnapshot(
      meta,
      [
        g('a', 'Semgrep', 'high', 1, true, 3),
        g('a', 'Semgrep', 'high', 4, false, 2),
        g('b', 'Trivy', 'critical', 8, true, 1),
        g('b', 'Trivy', 'odd', 1, true, 1),
      ],
      [
        { id: 1, name: 'New' },
        { id: 4, name: 'Fixed' },
      ],
      [],
      10,
    );
    expect(s.totals).to.deep.include({
      issues: 7,
      open: 5,
      by_severity: { critical: 1, high: 5, medium: 0, low: 0, info: 1 },
    });
    expect(s.totals.by_status).to.deep.equal([
      { status_id: 1, name: 'New', count: 4 },
      { status_id: 4, name: 'Fixed', count: 2 },
      { status_id: 8, name: '8', count: 1 },
    ]);
    expect(s.projects).to.deep.equal([
      { project_code: 'a', total: 5, open: 3, open_by_severity: { critical: 0, high: 3, medium: 0, low: 0, info: 0 } },
      { project_code: 'b', total: 2, open: 2, open_by_severity: { critical: 1, high: 0, medium: 0, low: 0, info: 1 } },
    ]);
    expect(s.tools).to.deep.equal([
      { tool_name: 'Semgrep', category: 'sast', total: 5, open: 3 },
      { tool_name: 'Trivy', category: 'sast', total: 2, open: 2 },
    ]);
  });
});

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

describe('compliance mapping', () => {
  it('counts an issue once per category, a dependency as A06, and what maps nowhere', () => {
    const c = buildCompliance([
      { cwes: [79, 89], severity: 'high', open: true, library: false, count: 2 },
      { cwes: [1321], severity: 'medium', open: true, library: true, count: 3 },
      { cwes: [787], severity: 'critical', open: false, library: false, count: 1 },
      { cwes: [], severity: 'low', open: true, library: false, count: 4 },
    ]);
    const owasp = (id: string) => c.owasp_top10_2021.find((x) => x.id === id)!;
    expect(owasp('A03:2021')).to.deep.include({ cwes: [79, 89], total: 2, open: 2 });
    expect(owasp('A03:2021').open_by_severity.high).to.equal(2);
    expect(owasp('A06:2021')).to.deep.include({ cwes: [], total: 3, open: 3 });
    expect(c.cwe_top25_2024.find((x) => x.id === '#2 CWE-787')).to.deep.include({ total: 1, open: 0 });
    expect(c).to.include({ unmapped: 1, without_cwe: 4 });
  });

  it('has the ten OWASP 2021 categories and the 25 CWEs of 2024, each CWE in one OWASP category at most', () => {
    expect(OWASP_TOP10_2021.map((x) => x.id)).to.deep.equal(
      Array.from({ length: 10 }, (_, i) => `A${String(i + 1).padStart(2, '0')}:2021`),
    );
    expect(new Set(CWE_TOP25_2024.map((x) => x.cwes[0])).size).to.equal(25);
    const all = OWASP_TOP10_2021.flatMap((x) => x.cwes);
    expect(new Set(all).size).to.equal(all.length);
  });
});
