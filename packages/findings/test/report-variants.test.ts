import { expect } from 'chai';
import { importReport, parseReport } from '../src';

const parse = (doc: unknown, format?: string) =>
  parseReport(Buffer.from(typeof doc === 'string' ? doc : JSON.stringify(doc)), { format });

describe('report variants beyond the corpus', function () {
  describe('empty reports of a declared format give no findings', function () {
    const empties: [string, unknown][] = [
      ['gitlab-sast', { version: '2.3', vulnerabilities: [], remediations: [] }],
      ['gitlab-dependency-scanning', { version: '2.3', vulnerabilities: [] }],
      ['github-vulnerability', []],
      ['mend', { vulnerabilities: [] }],
      ['tfsec', { results: [] }],
      ['aws-security-hub', { Findings: [] }],
      ['prowler', []],
    ];
    for (const [format, doc] of empties) {
      it(format, function () {
        expect(parse(doc, format).findings).to.deep.equal([]);
      });
    }

    it('detects tfsec\u2019s {"results": null}, brakeman without warnings and a header-only Wiz or Prowler CSV', function () {
      expect(parse({ results: null }).format).to.equal('tfsec');
      expect(parse({ scan_info: { brakeman_version: '6.1.2' }, warnings: [], errors: [] }).format).to.equal('brakeman');
      expect(parse('Created At,Title,Severity,Status,Description,Resource external ID,Issue ID\n').format).to.equal(
        'wiz',
      );
      expect(parse('CHECK_ID;STATUS;STATUS_EXTENDED;SEVERITY;RESOURCE_UID\n').format).to.equal('prowler-csv');
    });
  });

  it('reads a GitLab secret detection report as gitlab-sast, with secrets as the category', function () {
    const r = parse({
      version: '15.0.4',
      scan: { type: 'secret_detection', scanner: { id: 'gitleaks', name: 'Gitleaks', version: '8.18.0' } },
      vulnerabilities: [
        {
          id: 'x',
          name: 'AWS access key',
          severity: 'Critical',
          location: { file: 'config.py', start_line: 3 },
          identifiers: [{ type: 'gitleaks_rule_id', name: 'AWS', value: 'AWS' }],
        },
      ],
    });
    expect(r.format).to.equal('gitlab-sast');
    expect(r.findings[0]).to.include({
      tool: 'gitleaks',
      toolCategory: 'secrets',
      ruleId: 'AWS',
      filePath: 'config.py',
      startLine: 3,
      severity: 'critical',
    });
  });

  it('reads a GitLab container scanning report as dependency findings on the image', function () {
    const [f] = parse({
      version: '15.0.4',
      scan: { type: 'container_scanning', scanner: { id: 'trivy' } },
      vulnerabilities: [
        {
          id: 'y',
          name: 'CVE-2023-1234 in openssl',
          severity: 'High',
          location: {
            image: 'registry/app:1',
            operating_system: 'alpine 3.18',
            dependency: { package: { name: 'openssl' }, version: '3.1.0' },
          },
          identifiers: [{ type: 'cve', name: 'CVE-2023-1234', value: 'CVE-2023-1234' }],
        },
      ],
    }).findings;
    expect(f).to.include({ toolCategory: 'container', filePath: 'registry/app:1' });
    expect(f.library).to.deep.equal({ name: 'openssl', version: '3.1.0' });
    expect(f.vulnerabilityIds).to.deep.equal(['CVE-2023-1234']);
  });

  it('reads GitHub\u2019s REST Dependabot alerts, dismissed ones suppressed', function () {
    const alert = (number: number, state: string) => ({
      number,
      state,
      html_url: `https://github.com/o/r/security/dependabot/${number}`,
      dependency: {
        package: { ecosystem: 'npm', name: 'lodash' },
        manifest_path: 'package-lock.json',
        scope: 'runtime',
      },
      security_advisory: {
        ghsa_id: 'GHSA-jf85-cpcp-j695',
        cve_id: 'CVE-2019-10744',
        summary: 'Prototype pollution',
        severity: 'critical',
        cwes: [{ cwe_id: 'CWE-1321' }],
      },
      security_vulnerability: { severity: 'critical', first_patched_version: { identifier: '4.17.12' } },
    });
    const r = parse([alert(1, 'open'), alert(2, 'dismissed')]);
    expect(r.format).to.equal('github-vulnerability');
    expect(r.findings[0]).to.include({ severity: 'critical', filePath: 'package-lock.json' });
    expect(r.findings[0].vulnerabilityIds).to.deep.equal(['CVE-2019-10744', 'GHSA-jf85-cpcp-j695']);
    expect(r.findings[0].cwes).to.deep.equal([1321]);
    expect(r.findings[1].suppression?.state).to.equal('dismissed');
  });

  it('reads a GitHub GraphQL search over several repositories, each repository\u2019s alerts', function () {
    const repo = (name: string) => ({
      name,
      vulnerabilityAlerts: {
        nodes: [
          {
            id: name,
            securityVulnerability: { severity: 'MODERATE', package: { name: 'x' }, advisory: { summary: 's' } },
          },
        ],
      },
    });
    const r = parse({ data: { search: { nodes: [repo('a'), repo('b')] } } });
    expect(r.findings.map((f) => f.tags)).to.deep.equal([['a'], ['b']]);
    expect(r.findings[0].severity).to.equal('medium');
  });

  it('reads Mend\u2019s Unified Agent scan report (vulnerabilities per library)', function () {
    const r = parse({
      libraries: [
        {
          keyUuid: 'k',
          filename: 'lib-1.0.jar',
          artifactId: 'lib',
          version: '1.0',
          vulnerabilities: [{ name: 'CVE-2020-1', severity: 'high', score: '7.5' }],
        },
      ],
    });
    expect(r.format).to.equal('mend');
    expect(r.findings[0]).to.include({ title: 'CVE-2020-1 | lib-1.0.jar', severity: 'high' });
    expect(r.findings[0].library).to.deep.equal({ name: 'lib', version: '1.0' });
  });

  it('reads Prowler v3 JSON, skipping PASS', function () {
    const result = (status: string, resource: string) => ({
      CheckID: 's3_bucket_public_access',
      CheckTitle: 'Ensure S3 buckets are not public',
      Status: status,
      StatusExtended: `Bucket ${resource} is public.`,
      Severity: 'critical',
      ResourceArn: `arn:aws:s3:::${resource}`,
      Provider: 'aws',
    });
    const r = parse([result('FAIL', 'a'), result('PASS', 'b'), result('FAIL', 'c')]);
    expect(r.format).to.equal('prowler');
    expect(r.findings.map((f) => f.resource?.id)).to.deep.equal(['arn:aws:s3:::a', 'arn:aws:s3:::c']);
  });

  it('tolerates ASFF findings without optional fields, and keeps one control on two resources apart', function () {
    const finding = (id: string, resource: string) => ({
      SchemaVersion: '2018-10-08',
      Id: id,
      ProductArn: 'arn:aws:securityhub:eu-west-1::product/aws/securityhub',
      GeneratorId: 'S3.8',
      AwsAccountId: '1',
      Title: 'S3.8 Block public access',
      Severity: { Normalized: 70 },
      Resources: [{ Type: 'AwsS3Bucket', Id: resource }],
    });
    const { findings } = importReport(
      Buffer.from(JSON.stringify({ Findings: [finding('1', 'arn:aws:s3:::a'), finding('2', 'arn:aws:s3:::b')] })),
    );
    expect(findings).to.have.length(2);
    expect(findings[0]).to.include({ severity: 'high', ruleId: 'S3.8' });
  });

  it('reads tfsec results missing optional fields, and skips passed ones', function () {
    const r = parse({
      results: [
        {
          rule_id: 'AVD-AWS-0086',
          long_id: 'aws-s3-block-public-acls',
          severity: 'HIGH',
          location: { filename: 'main.tf' },
          status: 0,
        },
        { rule_id: 'AVD-AWS-0087', severity: 'LOW', location: { filename: 'main.tf', start_line: 2 }, status: 1 },
        { rule_id: 'GEN001', severity: 'LOW', location: { filename: 'main.tf', start_line: 5 }, status: 'passed' },
      ],
    });
    expect(r.findings).to.have.length(1);
    expect(r.findings[0]).to.include({ ruleId: 'aws-s3-block-public-acls', filePath: 'main.tf', severity: 'high' });
  });

  it('reads MobSF 4.x dictionary sections (manifest, code, certificate and network findings)', function () {
    const r = parse({
      md5: 'x',
      app_name: 'App',
      package_name: 'com.example',
      permissions: {},
      manifest_analysis: {
        manifest_findings: [
          {
            rule: 'app_is_debuggable',
            title: 'Debug Enabled For App<br>[android:debuggable=true]',
            severity: 'high',
            description: 'd',
            name: 'n',
          },
        ],
        manifest_summary: {},
      },
      code_analysis: {
        findings: {
          android_logging: {
            files: { 'a/B.java': '3,7' },
            metadata: { description: 'The App logs information.', severity: 'info', cwe: 'CWE-532: Insertion' },
          },
        },
        summary: {},
      },
      certificate_analysis: {
        certificate_findings: [
          ['warning', 'Signed with SHA1withRSA', 'Certificate algorithm vulnerable to hash collision'],
        ],
        certificate_info: 'i',
      },
      network_security: {
        network_findings: [
          {
            scope: ['*'],
            description: 'Base config is insecurely configured to permit clear text traffic',
            severity: 'high',
          },
        ],
      },
      android_api: {
        api_ipc: { files: {}, metadata: { description: 'Inter Process Communication', severity: 'info' } },
      },
    });
    expect(r.format).to.equal('mobsf');
    expect(r.findings.map((f) => [f.ruleId, f.severity])).to.deep.equal([
      ['code:android_logging', 'info'],
      ['manifest:app_is_debuggable', 'high'],
      ['certificate:Certificate algorithm vulnerable to hash collision', 'medium'],
      ['network:Base config is insecurely configured to permit clear text traffic', 'high'],
    ]);
    expect(r.findings[0].cwes).to.deep.equal([532]);
    expect(r.findings[1].title).to.equal('Debug Enabled For App [android:debuggable=true]');
  });

  it('keeps Brakeman\u2019s ignored warnings, suppressed', function () {
    const warning = {
      warning_type: 'SQL Injection',
      check_name: 'SQL',
      message: 'Possible SQL injection',
      file: 'app/models/user.rb',
      line: 4,
      fingerprint: 'f1',
      confidence: 'High',
      code: 'User.where("id = #{params[:id]}")',
    };
    const r = parse({
      scan_info: { brakeman_version: '6.1.2' },
      warnings: [],
      ignored_warnings: [{ ...warning, note: 'false positive' }],
    });
    expect(r.findings).to.have.length(1);
    expect(r.findings[0].suppression).to.deep.equal({
      state: 'ignored',
      source: 'tool',
      justification: 'false positive',
    });
  });
});
