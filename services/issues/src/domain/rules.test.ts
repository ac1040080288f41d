import { expect } from 'chai';
import { ruleMatches, RuleParams, RuleSubject } from './rules';

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
