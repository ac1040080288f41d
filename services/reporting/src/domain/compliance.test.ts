import { expect } from 'chai';
import { buildCompliance, CWE_TOP25_2024, OWASP_TOP10_2021 } from './compliance';

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
