import { expect } from 'chai';
import { parseReport, ReportParseError } from '../src';

describe('reports of scans that found nothing', () => {
  it('reads Gitleaks\u2019 empty list as no findings when the format is declared', () => {
    expect(parseReport(Buffer.from('[]'), { format: 'gitleaks' }).findings).to.deep.equal([]);
  });

  it('reads Checkov\u2019s bare summary (nothing to check) as no findings when the format is declared', () => {
    const summary = JSON.stringify({
      passed: 0,
      failed: 0,
      skipped: 0,
      parsing_errors: 0,
      resource_count: 0,
      checkov_version: '3.3.30',
    });
    expect(parseReport(Buffer.from(summary), { format: 'checkov' }).findings).to.deep.equal([]);
  });

  it('still refuses an empty list without a declared format, and another tool\u2019s report under the declared one', () => {
    expect(() => parseReport(Buffer.from('[]'))).to.throw(ReportParseError);
    expect(() =>
      parseReport(Buffer.from(JSON.stringify({ passed: 0, failed: 0, resource_count: 0 })), { format: 'gitleaks' }),
    ).to.throw(ReportParseError);
  });
});
