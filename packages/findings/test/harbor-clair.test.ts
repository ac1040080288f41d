import { expect } from 'chai';
import { importReport, parseReport, ReportParseError } from '../src';

/** Harbor and Clair have no corpus samples: these reports follow their documented output. */
const parse = (doc: unknown, format?: string) => parseReport(Buffer.from(JSON.stringify(doc)), { format });

const harborReport = {
  generated_at: '2024-05-02T10:00:00Z',
  artifact: {
    repository: 'library/shop',
    digest: 'sha256:aa',
    tag: '2.1',
    mime_type: 'application/vnd.oci.image.manifest.v1+json',
  },
  scanner: { name: 'Trivy', vendor: 'Aqua Security', version: 'v0.50.1' },
  severity: 'Critical',
  vulnerabilities: [
    {
      id: 'CVE-2023-38545',
      package: 'curl',
      version: '7.88.1-10',
      fix_version: '7.88.1-10+deb12u4',
      severity: 'Critical',
      description: 'SOCKS5 heap buffer overflow',
      links: ['https://avd.aquasec.com/nvd/cve-2023-38545'],
      preferred_cvss: { score_v3: 9.8, vector_v3: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' },
      cwe_ids: ['CWE-787'],
    },
    { id: 'CVE-2011-3374', package: 'apt', version: '2.6.1', severity: 'Negligible', links: [] },
  ],
};

describe('Harbor vulnerability reports', function () {
  it('reads the API answer keyed by its media type (Harbor 2.x, v1.1)', function () {
    const r = parse({ 'application/vnd.security.vulnerability.report; version=1.1': harborReport });
    expect(r.format).to.equal('harbor');
    expect(r.findings).to.have.length(2);
    const [f, g] = r.findings;
    expect(f).to.deep.include({
      tool: 'harbor/trivy',
      severity: 'critical',
      vulnerabilityIds: ['CVE-2023-38545'],
      cwes: [787],
      library: { name: 'curl', version: '7.88.1-10', fixedVersion: '7.88.1-10+deb12u4' },
    });
    expect(f.cvssV3?.score).to.equal(9.8);
    expect(f.resource?.id).to.equal('library/shop');
    expect(g.severity).to.equal('info');
  });

  it('reads the scanner adapter report as such and the 1.0 media type', function () {
    expect(parse(harborReport).format).to.equal('harbor');
    const old = parse({ 'application/vnd.scanner.adapter.vuln.report.harbor+json; version=1.0': harborReport });
    expect(old.findings.map((f) => f.ruleId)).to.deep.equal(['CVE-2023-38545', 'CVE-2011-3374']);
  });

  it('merges a vulnerability written twice for one package and version, and reads an empty report', function () {
    const twice = {
      ...harborReport,
      vulnerabilities: [harborReport.vulnerabilities[0], harborReport.vulnerabilities[0]],
    };
    expect(importReport(Buffer.from(JSON.stringify(twice))).findings).to.have.length(1);
    expect(parse({ ...harborReport, vulnerabilities: [] }).findings).to.deep.equal([]);
  });
});

describe('Clair image scans', function () {
  const v2Vuln = {
    Name: 'CVE-2019-5094',
    NamespaceName: 'debian:10',
    Description: 'e2fsprogs quota file overflow',
    Link: 'https://security-tracker.debian.org/tracker/CVE-2019-5094',
    Severity: 'Medium',
    FixedBy: '1.44.5-1+deb10u2',
    Metadata: { NVD: { CVSSv2: { Score: 4.6, Vectors: 'AV:L/AC:L/Au:N/C:P/I:P/A:P' } } },
  };

  it('reads klar JSON: vulnerabilities grouped by severity, each with its feature', function () {
    const r = parse({
      LayerCount: 6,
      Vulnerabilities: {
        Medium: [{ ...v2Vuln, FeatureName: 'e2fsprogs', FeatureVersion: '1.44.5-1' }],
        Defcon1: [{ ...v2Vuln, Name: 'CVE-2020-1', Severity: 'Defcon1', FeatureName: 'zlib', FeatureVersion: '1.2' }],
      },
    });
    expect(r.format).to.equal('clair');
    expect(r.findings.map((f) => [f.ruleId, f.severity, f.library?.name, f.library?.fixedVersion])).to.deep.equal([
      ['CVE-2019-5094', 'medium', 'e2fsprogs', '1.44.5-1+deb10u2'],
      ['CVE-2020-1', 'critical', 'zlib', '1.44.5-1+deb10u2'],
    ]);
    expect(r.findings[0].cvssV2?.vector).to.equal('AV:L/AC:L/Au:N/C:P/I:P/A:P');
  });

  it('reads the Clair v2 layer API with Features', function () {
    const r = parse({
      Layer: {
        Name: 'sha256:bb',
        NamespaceName: 'debian:10',
        Features: [
          { Name: 'e2fsprogs', Version: '1.44.5-1', Vulnerabilities: [v2Vuln] },
          { Name: 'bash', Version: '5.0' },
        ],
      },
    });
    expect(r.findings).to.have.length(1);
    expect(r.findings[0]).to.deep.include({ title: 'CVE-2019-5094 - e2fsprogs (1.44.5-1)', severity: 'medium' });
    expect(r.findings[0].resource?.id).to.equal('sha256:bb');
  });

  it('reads clair-scanner reports, keeping whitelisted vulnerabilities suppressed', function () {
    const vuln = (vulnerability: string, severity: string) => ({
      featurename: 'openssl',
      featureversion: '1.1.1d',
      vulnerability,
      namespace: 'debian:10',
      description: 'd',
      link: `https://security-tracker.debian.org/tracker/${vulnerability}`,
      severity,
      fixedby: '1.1.1g',
    });
    const r = parse({
      image: 'shop:2',
      unapproved: ['CVE-2020-1967'],
      vulnerabilities: [vuln('CVE-2020-1967', 'High'), vuln('CVE-2019-1551', 'Low')],
    });
    expect(r.format).to.equal('clair');
    expect(r.findings.map((f) => [f.ruleId, f.severity, f.suppression?.state])).to.deep.equal([
      ['CVE-2020-1967', 'high', undefined],
      ['CVE-2019-1551', 'low', 'approved'],
    ]);
  });

  it('reads a Clair v4 vulnerability report, joining packages and vulnerabilities', function () {
    const r = parse({
      manifest_hash: 'sha256:cc',
      packages: { '10': { id: '10', name: 'openssl', version: '1.1.1n-0+deb11u3' } },
      distributions: {},
      environments: {},
      package_vulnerabilities: { '10': ['200'] },
      vulnerabilities: {
        '200': {
          id: '200',
          updater: 'debian/updater/bullseye',
          name: 'CVE-2023-0286',
          description: 'X.400 address type confusion',
          links: 'https://security-tracker.debian.org/tracker/CVE-2023-0286',
          severity: 'high',
          normalized_severity: 'High',
          fixed_in_version: '1.1.1n-0+deb11u4',
        },
      },
    });
    expect(r.findings).to.have.length(1);
    expect(r.findings[0]).to.deep.include({
      ruleId: 'CVE-2023-0286',
      severity: 'high',
      vulnerabilityIds: ['CVE-2023-0286'],
      library: { name: 'openssl', version: '1.1.1n-0+deb11u3', fixedVersion: '1.1.1n-0+deb11u4' },
    });
  });

  it('rejects a truncated report as ReportParseError', function () {
    expect(() => parseReport(Buffer.from('{"LayerCount": 3, "Vulnerabilities": {"High": [{"Name": '))).to.throw(
      ReportParseError,
    );
  });
});
