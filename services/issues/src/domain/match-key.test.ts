import { expect } from 'chai';
import type { Finding } from '@bulwark/findings';
import { DEFAULT_RULE, matchKey, ruleFor, scopeOf } from './match-key';

const finding = (over: Partial<Finding> = {}): Finding => ({
  tool: 'Semgrep',
  toolCategory: 'sast',
  format: 'semgrep',
  ruleId: 'r1',
  title: 'Title',
  severity: 'high',
  tags: [],
  cwes: [78],
  vulnerabilityIds: [],
  references: [],
  endpoints: [],
  toolFingerprints: {},
  fingerprint: 'fp1',
  occurrences: 1,
  filePath: 'app.py',
  startLine: 4,
  ...over,
});

describe('issues domain: match keys', () => {
  const cases: [string, Partial<Finding>, Partial<Finding>, boolean][] = [
    ['a line shift keeps the key', { startLine: 4 }, { startLine: 40 }, true],
    ['another fingerprint is another issue', {}, { fingerprint: 'fp2' }, false],
    [
      'the tool fingerprint wins over the computed one',
      { toolFingerprints: { a: '1' }, fingerprint: 'x' },
      { toolFingerprints: { a: '1' }, fingerprint: 'y' },
      true,
    ],
    [
      'another tool fingerprint is another issue',
      { toolFingerprints: { a: '1' } },
      { toolFingerprints: { a: '2' } },
      false,
    ],
    ['tool names compare without case', { tool: 'Semgrep' }, { tool: 'semgrep' }, true],
    ['another tool is another issue', { tool: 'Semgrep' }, { tool: 'Bandit' }, false],
  ];
  for (const [name, a, b, same] of cases) {
    it(name, () => expect(matchKey(finding(a), DEFAULT_RULE) === matchKey(finding(b), DEFAULT_RULE)).to.equal(same));
  }

  it('keys by the configured fields only', () => {
    const rule = { toolName: 'semgrep', fields: ['rule_id', 'file_path'] as const, scope: 'layer' as const };
    const r = { ...rule, fields: [...rule.fields] };
    expect(matchKey(finding({ fingerprint: 'a', snippet: 'x' }), r)).to.equal(
      matchKey(finding({ fingerprint: 'b', snippet: 'y' }), r),
    );
    expect(matchKey(finding({ filePath: './app.py' }), r)).to.equal(matchKey(finding({ filePath: 'app.py' }), r));
    expect(matchKey(finding({ ruleId: 'r2' }), r)).not.to.equal(matchKey(finding(), r));
    expect(scopeOf(r, 'layer-1')).to.equal('layer-1');
    expect(scopeOf(DEFAULT_RULE, 'layer-1')).to.equal('');
  });

  it('picks the tool\u2019s rule by any of its names, else the default rule, else the built-in one', () => {
    const own = { toolName: 'Semgrep', fields: ['fingerprint' as const], scope: 'project' as const };
    const def = { toolName: null, fields: ['title' as const], scope: 'project' as const };
    expect(ruleFor([def, own], ['My semgrep', 'semgrep'])).to.equal(own);
    expect(ruleFor([def, own], ['Bandit'])).to.equal(def);
    expect(ruleFor([own], ['Bandit'])).to.equal(DEFAULT_RULE);
  });
});
