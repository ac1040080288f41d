import { expect } from 'chai';
import { importReport, mergeDuplicates, parseReport } from './index';

function semgrep(results: { line: number; code: string; rule?: string; path?: string }[]): Buffer {
  return Buffer.from(
    JSON.stringify({
      results: results.map((r) => ({
        check_id: r.rule ?? 'rules.eval',
        path: r.path ?? 'src/app.js',
        start: { line: r.line, col: 1 },
        end: { line: r.line, col: 10 },
        extra: { message: `eval on line ${r.line}`, severity: 'ERROR', lines: r.code, metadata: {} },
      })),
      errors: [],
      paths: { scanned: [] },
    }),
  );
}

describe('fingerprints', function () {
  it('do not change when code is added above a finding', function () {
    const before = parseReport(
      semgrep([
        { line: 10, code: 'eval(x)' },
        { line: 20, code: 'eval(y)' },
      ]),
    ).findings;
    const after = parseReport(
      semgrep([
        { line: 15, code: 'eval(x)' },
        { line: 25, code: 'eval(y)' },
      ]),
    ).findings;
    expect(after.map((f) => f.fingerprint)).to.deep.equal(before.map((f) => f.fingerprint));
  });

  it('separate identical code at two places in one file', function () {
    const findings = importReport(
      semgrep([
        { line: 10, code: 'eval(x)' },
        { line: 30, code: 'eval(x)' },
      ]),
    ).findings;
    expect(findings).to.have.length(2);
  });

  it('separate different rules, files and code', function () {
    const fps = parseReport(
      semgrep([
        { line: 10, code: 'eval(x)' },
        { line: 10, code: 'eval(x)', rule: 'rules.other' },
        { line: 10, code: 'eval(x)', path: 'src/other.js' },
        { line: 10, code: 'eval(z)' },
      ]),
    ).findings.map((f) => f.fingerprint);
    expect(new Set(fps).size).to.equal(4);
  });

  it('merge a record written twice and count its occurrences', function () {
    const merged = mergeDuplicates(
      parseReport(
        semgrep([
          { line: 10, code: 'eval(x)' },
          { line: 10, code: 'eval(x)' },
        ]),
      ).findings,
    );
    expect(merged).to.have.length(1);
    expect(merged[0].occurrences).to.equal(2);
  });

  it('use package coordinates for dependencies, not file lines', function () {
    const report = (version: string): Buffer =>
      Buffer.from(
        JSON.stringify({
          SchemaVersion: 2,
          Results: [
            {
              Target: 'package-lock.json',
              Class: 'lang-pkgs',
              Type: 'npm',
              Vulnerabilities: [
                { VulnerabilityID: 'CVE-2021-1', PkgName: 'lodash', InstalledVersion: version, Severity: 'HIGH' },
              ],
            },
          ],
        }),
      );
    const a = parseReport(report('4.17.20')).findings[0];
    const b = parseReport(report('4.17.20')).findings[0];
    const c = parseReport(report('4.17.21')).findings[0];
    expect(a.fingerprint).to.equal(b.fingerprint);
    expect(a.fingerprint).to.not.equal(c.fingerprint);
  });
});
