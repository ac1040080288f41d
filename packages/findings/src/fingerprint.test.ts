import { expect } from 'chai';
import { findingJson, importReport, mergeDuplicates, parseReport, streamImportReport } from './index';

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

  it('read once, amend a streamed finding whose group a later line or duplicate changed', function () {
    const report = semgrep([
      { line: 30, code: 'eval(x)' },
      { line: 5, code: 'eval(z)' },
      { line: 10, code: 'eval(x)' },
      { line: 30, code: 'eval(x)' },
      { line: 20, code: 'eval(x)' },
    ]);
    const streamed: string[] = [];
    const amended: number[] = [];
    streamImportReport(
      report,
      {},
      {
        found: (seq, _f, json) => (streamed[seq] = json.text),
        amended: (seq, _f, json) => {
          amended.push(seq);
          streamed[seq] = json.text;
        },
      },
    );
    // Line 30 was handed over first as rank 0; lines 10 and 20 rank below it, and its duplicate merged in.
    expect(amended).to.deep.equal([0]);
    const expected = importReport(report).findings;
    expect(expected[0].occurrences).to.equal(2);
    expect(streamed).to.deep.equal(expected.map((f) => findingJson(f).text));
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
