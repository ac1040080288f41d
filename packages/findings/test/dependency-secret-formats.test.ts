import { expect } from 'chai';
import { importReport, parseReport, ReportParseError } from '../src';

/** Variants of the issue #32 dependency, SBOM and secret formats that the corpus does not show. */
function parse(text: string, format?: string) {
  return parseReport(Buffer.from(text), { name: 'report', format });
}

/** With duplicates inside the report merged, as an import does. */
function imported(text: string) {
  return importReport(Buffer.from(text), { name: 'report' });
}

const lines = (...docs: unknown[]) => docs.map((d) => JSON.stringify(d)).join('\n');

describe('dependency, SBOM and secret formats', function () {
  it('reads govulncheck 1.0 JSON lines: one finding per OSV id and module, tagged by reachability', function () {
    const osv = { id: 'GO-2023-1840', aliases: ['CVE-2023-29403'], summary: 'Unsafe behavior', affected: [] };
    const frame = (fn?: string) => ({ module: 'stdlib', version: 'v1.20.1', package: 'runtime', function: fn });
    const r = parse(
      lines(
        { config: { protocol_version: 'v1.0.0', scanner_name: 'govulncheck' } },
        { osv },
        { finding: { osv: 'GO-2023-1840', fixed_version: 'v1.20.5', trace: [frame()] } },
        { finding: { osv: 'GO-2023-1840', fixed_version: 'v1.20.5', trace: [frame('BlockProfile')] } },
      ),
    );
    expect(r.format).to.equal('govulncheck');
    expect(r.findings).to.have.length(1);
    const f = r.findings[0];
    expect(f.vulnerabilityIds).to.deep.equal(['CVE-2023-29403', 'GO-2023-1840']);
    expect(f.library).to.include({ name: 'stdlib', version: 'v1.20.1', fixedVersion: 'v1.20.5' });
    expect(f.tags).to.deep.equal(['called']);
  });

  it('reads pip-audit 2.x {dependencies, fixes} with aliases and fix versions', function () {
    const r = parse(
      JSON.stringify({
        dependencies: [
          {
            name: 'jinja2',
            version: '2.4.1',
            vulns: [{ id: 'PYSEC-2019-217', fix_versions: ['2.10.1'], aliases: ['CVE-2019-10906'] }],
          },
        ],
        fixes: [],
      }),
    );
    expect(r.format).to.equal('pip-audit');
    expect(r.findings[0].vulnerabilityIds).to.deep.equal(['CVE-2019-10906', 'PYSEC-2019-217']);
    expect(r.findings[0].library).to.include({ name: 'jinja2', fixedVersion: '2.10.1' });
  });

  it('reads yarn 1 JSON lines: one finding per advisory and version, and rejects a run that failed', function () {
    const advisory = {
      id: 1325,
      module_name: 'handlebars',
      title: 'Prototype Pollution',
      severity: 'high',
      cves: ['CVE-2019-19919'],
      findings: [{ version: '4.5.2', paths: ['a>handlebars'] }],
    };
    const r = imported(
      lines(
        { type: 'auditAdvisory', data: { resolution: { path: 'a>handlebars' }, advisory } },
        { type: 'auditAdvisory', data: { resolution: { path: 'b>handlebars' }, advisory } },
        { type: 'auditSummary', data: { vulnerabilities: { high: 1 } } },
      ),
    );
    expect(r.format).to.equal('yarn-audit');
    expect(r.findings).to.have.length(1);
    expect(r.findings[0]).to.include({ severity: 'high' });
    expect(r.findings[0].vulnerabilityIds).to.deep.equal(['CVE-2019-19919']);
    expect(() => parse(lines({ type: 'warning', data: 'x' }, { type: 'error', data: 'ECONNREFUSED' }))).to.throw(
      ReportParseError,
      /yarn audit report contains errors/,
    );
  });

  it('reads composer audit advisories written as a list or, with gaps in their keys, as an object', function () {
    const advisory = { advisoryId: 'PKSA-1', packageName: 'a/b', title: 'XSS', cve: 'CVE-2024-1', severity: 'high' };
    const r = parse(
      JSON.stringify({
        advisories: { 'a/b': { '1': advisory }, 'c/d': [{ ...advisory, packageName: 'c/d' }] },
        abandoned: [],
      }),
    );
    expect(r.format).to.equal('composer-audit');
    expect(r.findings.map((f) => f.library?.name)).to.deep.equal(['a/b', 'c/d']);
    expect(r.findings[0]).to.include({ severity: 'high' });
  });

  it('maps severities and states the corpus does not show', function () {
    const cargo = parse(
      JSON.stringify({
        database: {},
        lockfile: {},
        vulnerabilities: {
          list: [
            {
              advisory: {
                id: 'RUSTSEC-2022-0001',
                aliases: ['CVE-2022-1'],
                cvss: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N',
              },
              package: { name: 'x', version: '1.0.0' },
            },
          ],
        },
        warnings: { unmaintained: [{ advisory: { id: 'RUSTSEC-2020-0002' }, package: { name: 'y' } }] },
      }),
    );
    expect(cargo.findings.map((f) => f.severity)).to.deep.equal(['medium']);
    const gosec = parse(
      JSON.stringify({
        Issues: [
          {
            severity: 'HIGH',
            confidence: 'MEDIUM',
            rule_id: 'G101',
            details: 'creds',
            file: 'a.go',
            line: '79-81',
            cwe: { id: '798' },
          },
        ],
        Stats: { nosec: 0 },
      }),
    );
    expect(gosec.findings[0]).to.include({ severity: 'high', startLine: 79, endLine: 81 });
    const baseline = parse(
      JSON.stringify({
        plugins_used: [],
        results: {
          'a.py': [{ type: 'Secret Keyword', filename: 'a.py', hashed_secret: 'h', line_number: 3, is_secret: false }],
        },
      }),
    );
    expect(baseline.findings[0].suppression).to.deep.include({ state: 'false_positive' });
    const dt = parse(
      JSON.stringify({
        meta: { application: 'Dependency-Track' },
        findings: [
          {
            component: { name: 'c', version: '1' },
            vulnerability: { vulnId: 'CVE-2020-1', severity: 'UNASSIGNED' },
            analysis: { state: 'NOT_AFFECTED', isSuppressed: true },
            matrix: 'p:c:v',
          },
        ],
      }),
    );
    expect(dt.findings[0]).to.include({ severity: 'info' });
    expect(dt.findings[0].suppression).to.deep.include({ state: 'NOT_AFFECTED' });
  });

  it('tells pnpm audit from npm 6 audit by npm’s actions and muted', function () {
    const advisories = {
      '1': {
        id: 1,
        module_name: 'minimist',
        severity: 'critical',
        findings: [{ version: '1.2.0', paths: ['.>minimist'] }],
      },
    };
    expect(parse(JSON.stringify({ advisories, metadata: {} })).format).to.equal('pnpm-audit');
    expect(parse(JSON.stringify({ actions: [], advisories, muted: [], metadata: {} })).format).to.equal('npm-audit');
  });

  it('reads SPDX tag-value like SPDX JSON, and refuses SPDX 3', function () {
    const r = parse(
      [
        'SPDXVersion: SPDX-2.3',
        'DataLicense: CC0-1.0',
        'DocumentComment: <text>spans',
        'PackageName: not a package',
        '</text>',
        'PackageName: openssl',
        'SPDXID: SPDXRef-Package-openssl',
        'PackageVersion: 1.1.1k',
        'PackageLicenseDeclared: Apache-2.0',
        'ExternalRef: PACKAGE-MANAGER purl pkg:generic/openssl@1.1.1k',
        'ExternalRef: SECURITY advisory https://nvd.nist.gov/vuln/detail/CVE-2021-3711',
        'ExternalRef: SECURITY fix https://github.com/openssl/openssl/commit/59f5e75',
        '',
        'PackageName: zlib',
        'PackageVersion: 1.2.13',
      ].join('\n'),
    );
    expect(r.format).to.equal('spdx-tag-value');
    expect(r.findings).to.have.length(1);
    expect(r.findings[0].vulnerabilityIds).to.deep.equal(['CVE-2021-3711']);
    expect(r.findings[0].library).to.include({
      name: 'openssl',
      version: '1.1.1k',
      purl: 'pkg:generic/openssl@1.1.1k',
    });
    expect(r.components.map((c) => c.name)).to.deep.equal(['openssl', 'zlib']);
    expect(() => parse(JSON.stringify({ spdxVersion: 'SPDX-3.0', '@graph': [] }))).to.throw(
      ReportParseError,
      /does not support/,
    );
  });

  it('reads bundler-audit 0.7+ text (CVE and GHSA lines) and its JSON', function () {
    const text = parse(
      'Name: actionpack\nVersion: 6.0.0\nCVE: CVE-2020-8164\nGHSA: GHSA-xq5j-gw7f-jgj8\nCriticality: High\nURL: https://x\nTitle: Possible Strong Parameters Bypass\nSolution: upgrade to ~> 6.0.3.1\n\nVulnerabilities found!\n',
    );
    expect(text.format).to.equal('bundler-audit');
    expect(text.findings[0]).to.include({ severity: 'high' });
    expect(text.findings[0].vulnerabilityIds).to.deep.equal(['CVE-2020-8164', 'GHSA-xq5j-gw7f-jgj8']);
    const json = parse(
      JSON.stringify({
        version: '0.9.1',
        created_at: '2024-01-01',
        results: [
          {
            type: 'unpatched_gem',
            gem: { name: 'rack', version: '1.4.7' },
            advisory: {
              id: 'CVE-2018-16471',
              cve: '2018-16471',
              ghsa: 'h6w8-4h6x-2xw3',
              cvss_v3: 6.1,
              criticality: null,
            },
          },
          { type: 'insecure_source', source: 'http://rubygems.org/' },
        ],
      }),
    );
    expect(json.format).to.equal('bundler-audit-json');
    expect(json.findings.map((f) => f.severity)).to.deep.equal(['medium', 'medium']);
    expect(json.findings[0].vulnerabilityIds).to.deep.equal(['CVE-2018-16471', 'GHSA-h6w8-4h6x-2xw3']);
  });

  it('reads Cppcheck XML version 2 at its first location and leaves out information messages', function () {
    const r = parse(
      '<?xml version="1.0"?><results version="2"><cppcheck version="2.13"/><errors>' +
        '<error id="nullPointer" severity="error" msg="Null pointer dereference: p" cwe="476"><location file="a.c" line="12" column="3"/><location file="a.c" line="10"/></error>' +
        '<error id="missingIncludeSystem" severity="information" msg="Include file not found"/>' +
        '</errors></results>',
    );
    expect(r.format).to.equal('cppcheck');
    expect(r.findings).to.have.length(1);
    expect(r.findings[0]).to.include({ severity: 'high', filePath: 'a.c', startLine: 12 });
    expect(r.findings[0].cwes).to.deep.equal([476]);
  });

  it('keeps secrets out of truffleHog3 titles and descriptions', function () {
    const secret = 'AKIAIOSFODNN7EXAMPLEKEY';
    const r = parse(
      JSON.stringify([
        {
          rule: { id: 'aws', message: 'AWS key', severity: 'HIGH' },
          path: 'a.env',
          line: '2',
          secret,
          context: { '2': `KEY=${secret}` },
        },
      ]),
    );
    expect(r.format).to.equal('trufflehog3');
    expect(`${r.findings[0].title}${r.findings[0].description}`).not.to.include(secret);
    expect(r.findings[0]).to.include({ severity: 'high', filePath: 'a.env', startLine: 2 });
  });

  it('reads a ggshield path scan and merges one secret found in two commits', function () {
    const incident = { type: 'AWS Keys', ignore_sha: 'abc', validity: 'valid', occurrences: [{ line_start: 3 }] };
    const entity = { filename: 'a.py', incidents: [incident] };
    const commitRange = JSON.stringify({
      id: 'x',
      type: 'commit-range',
      total_incidents: 2,
      scans: [
        { id: 'c1', entities_with_incidents: [entity] },
        { id: 'c2', entities_with_incidents: [entity] },
      ],
    });
    expect(parse(commitRange).format).to.equal('ggshield');
    expect(imported(commitRange).findings).to.have.length(1);
    const path = parse(
      JSON.stringify({ id: 'p', type: 'path_scan', total_incidents: 1, entities_with_incidents: [entity] }),
    );
    expect(path.findings[0]).to.include({ severity: 'critical', filePath: 'a.py', startLine: 3 });
  });

  it('rejects malformed reports of these formats with a ReportParseError', function () {
    for (const text of [
      '{"database":{},"lockfile":{},"vulnerabilities":{"list":[null,1,"x"]}}',
      '{"Issues":"x","Stats":{"nosec":0}}',
      '{"meta":{"application":"Dependency-Track"},"findings":{"a":1}}',
      'Name: rack\nVersion: 1\nAdvisory: \u0000',
    ]) {
      let findings: unknown[] | undefined;
      try {
        findings = parse(text).findings;
      } catch (e) {
        expect(e, text).to.be.instanceOf(ReportParseError);
        continue;
      }
      expect(findings, text).to.be.an('array');
    }
  });
});
