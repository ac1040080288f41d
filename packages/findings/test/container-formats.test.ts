import { expect } from 'chai';
import * as path from 'node:path';
import { importReport, parseReport, ReportParseError } from '../src';
import { CORPUS } from './paths';

const parse = (doc: unknown, format?: string) =>
  parseReport(Buffer.from(typeof doc === 'string' ? doc : JSON.stringify(doc)), { format });

const trivyReport = (kind: string, report: unknown) => ({
  apiVersion: 'aquasecurity.github.io/v1alpha1',
  kind,
  metadata: {
    name: 'replicaset-web-1',
    namespace: 'shop',
    labels: {
      'trivy-operator.resource.kind': 'ReplicaSet',
      'trivy-operator.resource.name': 'web-1',
      'trivy-operator.resource.namespace': 'shop',
      'trivy-operator.container.name': 'nginx',
    },
  },
  report,
});

describe('container, Kubernetes and cloud formats (issue 32)', function () {
  it('reads kube-bench 0.6+ {Controls, Totals}: FAIL medium, WARN info, PASS skipped, per node type', function () {
    const result = (test_number: string, status: string) => ({
      test_number,
      test_desc: `check ${test_number}`,
      status,
    });
    const r = parse({
      Controls: [
        {
          id: '1',
          version: 'cis-1.8',
          text: 'Control Plane',
          node_type: 'master',
          tests: [{ section: '1.1', desc: 'Files', results: [result('1.1.1', 'FAIL'), result('1.1.2', 'PASS')] }],
        },
        { id: '4', text: 'Worker', node_type: 'node', tests: [{ section: '4.1', results: [result('4.1.1', 'WARN')] }] },
      ],
      Totals: { total_pass: 1, total_fail: 1, total_warn: 1, total_info: 0 },
    });
    expect(r.format).to.equal('kube-bench');
    expect(r.findings.map((f) => [f.ruleId, f.severity, f.resource?.id])).to.deep.equal([
      ['1.1.1', 'medium', 'node-type/master'],
      ['4.1.1', 'info', 'node-type/node'],
    ]);
  });

  it('reads a Trivy Operator List of reports: one finding per vulnerability with the workload, AVD ids for checks', function () {
    const vuln = trivyReport('VulnerabilityReport', {
      artifact: { repository: 'library/nginx', tag: '1.25' },
      registry: { server: 'index.docker.io' },
      vulnerabilities: [
        {
          vulnerabilityID: 'CVE-2023-1',
          resource: 'curl',
          installedVersion: '8.0',
          fixedVersion: '8.1',
          severity: 'HIGH',
          score: 7.5,
        },
      ],
    });
    const audit = trivyReport('RbacAssessmentReport', {
      checks: [
        { checkID: 'KSV041', title: 'Manage secrets', severity: 'CRITICAL', success: false },
        { checkID: 'KSV042', title: 'Delete logs', severity: 'MEDIUM', success: true },
      ],
    });
    const r = parse({ apiVersion: 'v1', kind: 'List', items: [vuln, audit] });
    expect(r.format).to.equal('trivy-operator');
    expect(r.findings).to.have.length(2);
    expect(r.findings[0]).to.deep.include({
      severity: 'high',
      vulnerabilityIds: ['CVE-2023-1'],
      library: { name: 'curl', version: '8.0', fixedVersion: '8.1', ecosystem: undefined },
    });
    expect(r.findings[0].resource?.id).to.equal('shop/ReplicaSet/web-1/nginx');
    expect(r.findings[1]).to.deep.include({ severity: 'critical', vulnerabilityIds: ['AVD-KSV-0041'] });
  });

  it('keeps one CVE in two workloads apart (Trivy Operator), and one package at two paths apart (Anchore Engine)', function () {
    const one = (name: string) => ({
      ...trivyReport('VulnerabilityReport', {
        vulnerabilities: [
          { vulnerabilityID: 'CVE-2023-1', resource: 'curl', installedVersion: '8.0', severity: 'LOW' },
        ],
      }),
      metadata: { name, labels: { 'trivy-operator.resource.name': name, 'trivy-operator.resource.kind': 'Pod' } },
    });
    expect(importReport(Buffer.from(JSON.stringify([one('a'), one('b')]))).findings).to.have.length(2);
    const record = (path: string) => ({
      vuln: 'VULNDB-1',
      package_name: 'jersey',
      package_version: '1.13',
      package_path: path,
      severity: 'Medium',
      fix: 'None',
    });
    const anchore = importReport(
      Buffer.from(JSON.stringify({ imageDigest: 'sha256:1', vulnerabilities: [record('/a.jar'), record('/b.jar')] })),
    );
    expect(anchore.format).to.equal('anchore-engine');
    expect(anchore.findings.map((f) => [f.filePath, f.library?.fixedVersion])).to.deep.equal([
      ['/a.jar', undefined],
      ['/b.jar', undefined],
    ]);
  });

  it('reads Dockle checkpoints: FATAL high, WARN medium, INFO low; PASS and SKIP are not findings', function () {
    const r = parse({
      image: 'app:1',
      summary: { fatal: 1, warn: 1, info: 1, skip: 1, pass: 10 },
      details: [
        { code: 'CIS-DI-0010', title: 'Do not store credential', level: 'FATAL', alerts: ['/app/.env'] },
        { code: 'CIS-DI-0001', title: 'Create a user', level: 'WARN', alerts: ['Last user should not be root'] },
        { code: 'CIS-DI-0005', title: 'Content trust', level: 'INFO', alerts: [] },
        { code: 'CIS-DI-0008', title: 'setuid', level: 'SKIP', alerts: [] },
      ],
    });
    expect(r.format).to.equal('dockle');
    expect(r.findings.map((f) => [f.ruleId, f.severity])).to.deep.equal([
      ['CIS-DI-0010', 'high'],
      ['CIS-DI-0001', 'medium'],
      ['CIS-DI-0005', 'low'],
    ]);
  });

  it('reads Hadolint violations with file and line, and Terrascan violations (skipped ones suppressed)', function () {
    const h = parse([
      { line: 3, code: 'SC2086', message: 'Double quote', column: 1, file: 'Dockerfile', level: 'info' },
    ]);
    expect(h.format).to.equal('hadolint');
    expect(h.findings[0]).to.include({ filePath: 'Dockerfile', startLine: 3, severity: 'low', ruleId: 'SC2086' });
    const violation = {
      rule_name: 's3Versioning',
      description: 'Enable versioning',
      rule_id: 'AC_AWS_0214',
      severity: 'HIGH',
      category: 'Resilience',
      resource_name: 'bucket',
      resource_type: 'aws_s3_bucket',
      file: 'main.tf',
      line: 12,
    };
    const t = parse({
      results: {
        violations: [violation],
        skipped_violations: [{ ...violation, resource_name: 'logs' }],
        scan_summary: { violated_policies: 1 },
      },
    });
    expect(t.format).to.equal('terrascan');
    expect(t.findings.map((f) => [f.severity, f.filePath, f.startLine, f.suppression?.state])).to.deep.equal([
      ['high', 'main.tf', 12, undefined],
      ['high', 'main.tf', 12, 'ignored'],
    ]);
  });

  it('reads an Aqua API v2 vulnerability list and a Prisma Cloud API image array', function () {
    const aqua = parse({
      count: 1,
      page: 1,
      pagesize: 50,
      result: [
        {
          name: 'CVE-2022-1',
          image_name: 'shop:2',
          registry: 'Docker Hub',
          resource: { name: 'openssl', version: '1.1.1k', format: 'deb' },
          aqua_severity: 'negligible',
          nvd_severity_v3: 'high',
          fix_version: '1.1.1n',
        },
      ],
    });
    expect(aqua.format).to.equal('aqua');
    expect(aqua.findings[0]).to.deep.include({ severity: 'info', vulnerabilityIds: ['CVE-2022-1'] });
    expect(aqua.findings[0].resource?.id).to.equal('Docker Hub/shop:2');
    const prisma = parse([
      {
        _id: 'sha256:abc',
        id: 'sha256:abc',
        repoTag: { registry: 'registry.example', repo: 'shop', tag: '2' },
        vulnerabilityDistribution: { total: 1 },
        vulnerabilities: [
          { cve: 'CVE-2022-2', severity: 'important', packageName: 'zlib', packageVersion: '1.2', cvss: 7.5 },
        ],
        complianceIssues: [{ id: 41, title: 'Image should be created with a non-root user', severity: 'high' }],
      },
    ]);
    expect(prisma.format).to.equal('twistlock');
    expect(prisma.findings.map((f) => [f.title, f.severity, f.resource?.id])).to.deep.equal([
      ['CVE-2022-2: zlib - 1.2', 'high', 'registry.example/shop:2'],
      ['Compliance: Image should be created with a non-root user', 'high', 'registry.example/shop:2'],
    ]);
  });

  it('reads Kubescape failed controls with their resource and a severity from the score factor', function () {
    const r = parse({
      summaryDetails: { controls: { 'C-0057': { name: 'Privileged container', scoreFactor: 8 } } },
      resources: [
        { resourceID: '/v1/prod/Pod/api', object: { kind: 'Pod', metadata: { name: 'api', namespace: 'prod' } } },
      ],
      results: [
        {
          resourceID: '/v1/prod/Pod/api',
          controls: [
            { controlID: 'C-0057', name: 'Privileged container', status: { status: 'failed' } },
            { controlID: 'C-0017', name: 'Immutable FS', status: { status: 'passed' } },
          ],
        },
      ],
    });
    expect(r.format).to.equal('kubescape');
    expect(r.findings.map((f) => [f.ruleId, f.severity, f.resource?.id, f.filePath])).to.deep.equal([
      ['C-0057', 'high', '/v1/prod/Pod/api', undefined],
    ]);
  });

  it('reads Kubescape v1 framework reports, one finding per failed control and object across frameworks', function () {
    const control = {
      controlID: 'C-0057',
      name: 'Privileged container',
      baseScore: 8,
      ruleReports: [
        {
          name: 'rule-privilege-escalation',
          ruleResponses: [
            {
              alertMessage: 'the following pods are defined as privileged: api',
              alertStatus: 'failed',
              alertObject: {
                k8sApiObjects: [{ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'api', namespace: 'prod' } }],
              },
            },
          ],
        },
      ],
    };
    const r = importReport(
      Buffer.from(
        JSON.stringify([
          { name: 'NSA', controlReports: [control] },
          { name: 'MITRE', controlReports: [control] },
        ]),
      ),
    );
    expect(r.format).to.equal('kubescape');
    expect(r.findings.map((f) => [f.ruleId, f.severity, f.resource?.id, f.occurrences])).to.deep.equal([
      ['C-0057', 'high', 'prod/Pod/api', 2],
    ]);
  });

  it('reads Scout Suite results written as bare JSON, one finding per flagged item', function () {
    const r = parse({
      provider_code: 'aws',
      account_id: '123',
      last_run: {},
      services: {
        s3: {
          buckets: { b1: { name: 'logs' } },
          findings: {
            's3-bucket-no-mfa-delete': {
              description: 'MFA delete disabled',
              level: 'danger',
              items: ['s3.buckets.b1.mfa'],
              id_suffix: 'mfa',
            },
            's3-bucket-world-readable': { description: 'World readable', level: 'danger', items: [] },
          },
        },
      },
    });
    expect(r.format).to.equal('scout-suite');
    expect(r.findings.map((f) => [f.ruleId, f.severity, f.resource?.name, f.cwes])).to.deep.equal([
      ['aws:s3-bucket-no-mfa-delete', 'high', 'logs', [1032]],
    ]);
  });

  it('accepts what the tools write when they found nothing, with the format declared', function () {
    expect(parse([], 'hadolint').findings).to.deep.equal([]);
    expect(parseReport(Buffer.alloc(0), { format: 'kubeaudit' }).findings).to.deep.equal([]);
    expect(parse({ apiVersion: 'v1', kind: 'List', items: [], metadata: {} }, 'trivy-operator').findings).to.deep.equal(
      [],
    );
    expect(() => parse({ apiVersion: 'v1', kind: 'List', items: [], metadata: {} })).to.throw(ReportParseError);
  });

  it('rejects hostile and malformed input as ReportParseError, never a crash', function () {
    expect(() => parse('scoutsuite_results = {"provider_code": ')).to.throw(ReportParseError);
    expect(() =>
      parse('Vulnerability ID,Severity,Package name,Image ID,Package suggested fix\nnot an id,High,x,y,z\n'),
    ).to.throw(ReportParseError, /not a vulnerability id/);
    // Records of the wrong shape inside a detected report are read as far as they go.
    expect(
      parse({
        Controls: [{ id: '1', node_type: 'master', tests: ['x', { results: [null, 'y', { status: 7 }] }] }],
        Totals: {},
      }).findings,
    ).to.deep.equal([]);
    expect(parse({ imageDigest: 'x', vulnerabilities: [null, 'x', 3] }).findings).to.have.length(3);
  });

  it('joins the parts of a compound locator with "|": a NUL there became U+FFFD and cost a copy of every finding', function () {
    const corpus = (file: string) => parseReport(path.join(CORPUS, 'defectdojo', file)).findings;
    const terrascan = parse({
      results: {
        violations: [{ rule_id: 'AC_AWS_0214', severity: 'HIGH', resource_name: 'b', resource_type: 'aws_s3_bucket' }],
        scan_summary: {},
      },
    }).findings;
    const byFormat = {
      kubeaudit: corpus('kubeaudit/kubeaudit.json'),
      kubescape: corpus('kubescape/with_a_failure.json'),
      terrascan,
      'trivy-operator': corpus('trivy_operator/exposedsecretreport_single_vuln.json'),
    };
    for (const [format, findings] of Object.entries(byFormat)) {
      expect(findings, format).to.not.be.empty;
      for (const f of findings) expect(f.locator, format).to.match(/^[^\u0000\ufffd]+\|[^\u0000\ufffd]*$/);
    }
    expect(terrascan[0].locator).to.equal('AC_AWS_0214|aws_s3_bucket.b');
  });
});
