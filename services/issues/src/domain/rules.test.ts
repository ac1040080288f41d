import { expect } from 'chai';
import { ruleFilterValues, ruleMatches, RuleParams, ruleProjects, RuleSubject } from './rules';

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

  it('applies a rule to every project unless active_for_all is false, then to its project_codes', () => {
    expect(ruleProjects({ cve: 'CVE-1' })).to.include({ every: true });
    expect(ruleProjects({ active_for_all: true, project_codes: ['a'] })).to.include({ every: true });
    expect(ruleProjects({ active_for_all: false, project_codes: ['a', 'a', 'b'] })).to.deep.equal({
      every: false,
      codes: ['a', 'b'],
      tags: [],
    });
  });

  it('gathers the values rules take per filter, once each', () => {
    const rule = (author: string, ruleParams: RuleParams) => ({
      suppressingStatus: 6,
      expiryStatus: 2,
      author,
      ruleParams,
    });
    expect(ruleFilterValues([rule('ann', { cve: 'CVE-1', cwe: 79 }), rule('bob', { cve: 'CVE-1' })])).to.deep.include({
      cve: ['CVE-1'],
      cwe: ['79'],
      author: ['ann', 'bob'],
      suppressingStatus: [6],
    });
  });
});
