import { expect } from 'chai';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { importReport, parseCvss, parseReport } from '../src';
import { CORPUS } from './paths';

const dir = (name: string): string[] => fs.readdirSync(path.join(CORPUS, name)).map((f) => path.join(CORPUS, name, f));

describe('sarif-sdk and cyclonedx-examples', function () {
  for (const file of [...dir('sarif-sdk'), ...dir('cyclonedx-examples')]) {
    it(`parses ${path.basename(file)}`, function () {
      const r = parseReport(file);
      expect(r.format).to.match(/^(sarif|cyclonedx-json|cyclonedx-xml)$/);
      for (const f of r.findings) {
        expect(f.fingerprint).to.match(/^[0-9a-f]{64}$/);
        expect(['critical', 'high', 'medium', 'low', 'info']).to.include(f.severity);
      }
    });
  }

  it('reads SARIF 2.0.0 drafts: fileLocation, resources.rules and message strings', function () {
    const [f] = parseReport(path.join(CORPUS, 'sarif-sdk', 'Comprehensive.sarif')).findings;
    expect(f.filePath).to.equal('file:///home/buildAgent/src/collections/list.h');
    expect(f.startLine).to.equal(15);
    expect(f.suppression?.source).to.equal('sarif');
  });

  it('reads a file with a UTF-8 byte order mark like the same bytes without it', function () {
    const bytes = fs.readFileSync(path.join(CORPUS, 'sarif-sdk', 'elfie-arriba-utf8-bom.sarif'));
    expect([...bytes.subarray(0, 3)]).to.deep.equal([0xef, 0xbb, 0xbf]);
    const a = parseReport(bytes).findings;
    const b = parseReport(bytes.subarray(3)).findings;
    expect(a).to.have.length(5);
    expect(a).to.deep.equal(b);
  });

  it('keeps SARIF suppressions and baseline states', function () {
    const findings = parseReport(path.join(CORPUS, 'sarif-sdk', 'SuppressionTestCurrent.sarif')).findings;
    expect(findings.some((f) => f.suppression)).to.equal(true);
    const baseline = parseReport(path.join(CORPUS, 'sarif-sdk', 'NewAndOldResults.sarif')).findings;
    expect(new Set(baseline.map((f) => f.baselineState)).size).to.be.greaterThan(1);
  });

  it('skips SARIF results whose kind is not fail', function () {
    const file = path.join(CORPUS, 'sarif-sdk', 'InvocationOverridesRuleDefaultConfigurationOfError.sarif');
    const all = JSON.parse(fs.readFileSync(file, 'utf8')).runs[0].results as { kind?: string }[];
    const failing = all.filter((r) => !r.kind || r.kind === 'fail').length;
    expect(parseReport(file).findings).to.have.length(failing);
    expect(failing).to.be.lessThan(all.length);
  });

  it('gives one finding per vulnerability and affected product with its VEX state', function () {
    const findings = parseReport(
      path.join(CORPUS, 'cyclonedx-examples', 'VEX__CISA-Use-Cases__Case-8__vex.json'),
    ).findings;
    expect(findings).to.have.length(11);
    expect(new Set(findings.map((f) => f.suppression?.state))).to.deep.equal(
      new Set(['exploitable', 'not_affected', 'resolved']),
    );
  });

  it('lists SBOM components without inventing findings', function () {
    const r = parseReport(path.join(CORPUS, 'cyclonedx-examples', 'SBOM__laravel-7.12.0__bom.1.4.xml'));
    expect(r.findings).to.have.length(0);
    expect(r.components.length).to.be.greaterThan(10);
    expect(r.components[0].name).to.be.a('string');
    expect(r.components.find((c) => c.name === 'framework')?.licenses).to.deep.equal(['MIT']);
  });

  it('keeps each SBOM component’s licences, as SPDX ids, names or expressions, in JSON and XML alike', function () {
    const json = parseReport(path.join(CORPUS, 'cyclonedx-examples', 'SBOM__laravel-7.12.0__bom.1.4.json'));
    const xml = parseReport(path.join(CORPUS, 'cyclonedx-examples', 'SBOM__laravel-7.12.0__bom.1.4.xml'));
    expect(json.components.map((c) => c.licenses)).to.deep.equal(xml.components.map((c) => c.licenses));
    expect(json.components.filter((c) => c.licenses?.length)).to.have.length.greaterThan(10);
  });

  it('scores CVSS vectors of versions 2.0, 3.0, 3.1 and 4.0 and refuses incomplete ones', function () {
    expect(parseCvss('AV:N/AC:L/Au:N/C:P/I:P/A:P')).to.include({ version: '2.0', score: 7.5 });
    expect(parseCvss('CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:L')).to.include({ version: '3.0', score: 5.3 });
    expect(parseCvss('CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:U/C:N/I:N/A:H')).to.include({ version: '3.1', score: 6.5 });
    expect(parseCvss('CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N')).to.include({
      version: '4.0',
      score: 9.3,
    });
    expect(parseCvss('CVSS:3.1/AV:N')).to.equal(undefined);
    expect(parseCvss('not a vector')).to.equal(undefined);
  });

  it('fills dependency, CVSS and EPSS fields from native reports', function () {
    const [snyk] = importReport(path.join(CORPUS, 'defectdojo', 'snyk', 'snykcontainer_issue_epss.json')).findings;
    expect(snyk.epss).to.deep.equal({ score: 0.00046, percentile: 0.14414 });
    const trivy = importReport(path.join(CORPUS, 'defectdojo', 'trivy', 'scheme_2_many_vulns.json')).findings[0];
    expect(trivy.library).to.include({ name: 'freetype', version: '2.9.1-r2', fixedVersion: '2.9.1-r3' });
    expect(trivy.cvssV3?.vector).to.equal('CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:U/C:N/I:N/A:H');
    expect(trivy.cvssV2?.score).to.equal(4.3);
    const [npm] = importReport(path.join(CORPUS, 'defectdojo', 'npm_audit_7_plus', 'one_vuln.json')).findings;
    expect(npm.vulnerabilityIds).to.deep.equal(['GHSA-gxpj-cx7g-858c', 'GHSA-9vvw-cc9w-f27h']);
    expect(npm.cvssV3).to.deep.equal({ vector: 'CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:L', score: 5.3 });
  });
});
