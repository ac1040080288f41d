import { expect } from 'chai';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cwes as toCwes } from '../src/normalize';
import {
  countReport,
  Finding,
  findingJson,
  importReport,
  parseReport,
  ReportParseError,
  streamImportReport,
} from '../src';
import { CORPUS } from './paths';

const DD = path.join(CORPUS, 'defectdojo');

interface Entry {
  parser: string;
  file: string;
  expected_findings: number | null;
  expected_findings_by_option?: Record<string, number>;
  first_finding?: Record<string, unknown>;
  expect_error?: { message?: string; message_contains?: string[] };
}

/** DefectDojo parser name → the Bulwark format ids its files may be. */
const FORMAT_OF: Record<string, string[]> = {
  sarif: ['sarif'],
  semgrep: ['semgrep'],
  trivy: ['trivy'],
  gitleaks: ['gitleaks'],
  bandit: ['bandit'],
  zap: ['zap'],
  npm_audit: ['npm-audit'],
  npm_audit_7_plus: ['npm-audit'],
  dependency_check: ['dependency-check'],
  cyclonedx: ['cyclonedx-json', 'cyclonedx-xml'],
  generic: ['generic-json', 'generic-csv'],
  snyk: ['snyk'],
  sonarqube: ['sonarqube'],
  checkmarx_one: ['checkmarx-one'],
  checkmarx: ['checkmarx-json', 'checkmarx-xml'],
  osv_scanner: ['osv-scanner'],
  eslint: ['eslint'],
  retirejs: ['retirejs'],
  trufflehog: ['trufflehog'],
  nuclei: ['nuclei'],
  anchore_grype: ['grype'],
  kics: ['kics'],
  checkov: ['checkov'],
  // DAST and infrastructure scanners, XML/CSV/archive formats
  acunetix: ['acunetix-xml', 'acunetix360'],
  burp: ['burp'],
  nexpose: ['nexpose'],
  nikto: ['nikto-xml', 'nikto-json'],
  nmap: ['nmap'],
  spotbugs: ['spotbugs'],
  veracode: ['veracode-xml', 'veracode-json'],
  openscap: ['openscap'],
  openvas: ['openvas-xml', 'openvas-csv'],
  tenable: ['nessus', 'tenable-csv'],
  qualys: ['qualys-csv', 'qualys-xml'],
  fortify: ['fortify-xml', 'fortify-fpr', 'fortify-fvdl'],
  blackduck: ['blackduck-csv', 'blackduck-zip'],
  brakeman: ['brakeman'],
  hcl_appscan: ['hcl-appscan'],
  invicti: ['acunetix360'],
  horusec: ['horusec'],
  gitlab_sast: ['gitlab-sast'],
  gitlab_dep_scan: ['gitlab-dependency-scanning'],
  github_vulnerability: ['github-vulnerability'],
  jfrog_xray_unified: ['jfrog-xray-unified'],
  mend: ['mend'],
  mobsf: ['mobsf', 'mobsfscan'],
  netsparker: ['acunetix360'],
  ms_defender: ['ms-defender', 'ms-defender-zip'],
  tfsec: ['tfsec'],
  awssecurityhub: ['aws-security-hub'],
  prowler: ['prowler', 'prowler-csv'],
  sslyze: ['sslyze-json', 'sslyze-xml'],
  stackhawk: ['stackhawk'],
  testssl: ['testssl-csv', 'testssl-json'],
  wiz: ['wiz'],
  anchore_engine: ['anchore-engine'],
  aqua: ['aqua'],
  dockle: ['dockle'],
  hadolint: ['hadolint'],
  kubeaudit: ['kubeaudit'],
  kubebench: ['kube-bench'],
  kubescape: ['kubescape'],
  neuvector: ['neuvector'],
  scout_suite: ['scout-suite'],
  sysdig_reports: ['sysdig'],
  terrascan: ['terrascan'],
  trivy_operator: ['trivy-operator'],
  twistlock: ['twistlock', 'twistlock-csv'],
  bundler_audit: ['bundler-audit', 'bundler-audit-json'],
  cargo_audit: ['cargo-audit'],
  composer_audit: ['composer-audit'],
  cppcheck: ['sarif', 'cppcheck'],
  dependency_track: ['dependency-track'],
  detect_secrets: ['detect-secrets'],
  ggshield: ['ggshield'],
  gosec: ['gosec'],
  govulncheck: ['govulncheck'],
  pip_audit: ['pip-audit'],
  pnpm_audit: ['pnpm-audit'],
  sonatype: ['sonatype'],
  spdx: ['spdx-json', 'spdx-tag-value'],
  trufflehog3: ['trufflehog3'],
  veracode_sca: ['veracode-sca-json', 'veracode-sca-csv'],
  yarn_audit: ['yarn-audit'],
  wpscan: ['wpscan'],
};

/**
 * Where Bulwark deliberately differs from DefectDojo's count. Every entry is also in the README's
 * agreement table, with the same reason.
 */
const DEVIATIONS: Record<string, { count?: number; error?: RegExp; reason: string }> = {
  'sarif/bash-report.sarif': {
    count: 12,
    reason:
      '27 results are 12 distinct ones written up to 4 times (same rule, file, line, snippet); Bulwark merges exact duplicates',
  },
  'sarif/gitleaks_7.5.0.sarif': {
    count: 4,
    reason:
      'the same secret at the same file and line in two commits is one finding, as for the native gitleaks report of this scan (4)',
  },
  'horusec/version_2.6.3.json': {
    count: 266,
    reason:
      'Horusec wrote one Bandit result twice (same file, line, code, details and vulnHash); Bulwark merges exact duplicates',
  },
  'wiz/resolved_findings.csv': {
    count: 2,
    reason:
      'two rows carry one Wiz Issue ID (one issue written twice, differing in title suffix and resolution); the issue id is Wiz\u2019s identity of an issue, so Bulwark merges them',
  },
  'sonarqube/sonar-4-findings-3-to-aggregate.html': {
    error: /an HTML page, not a machine-readable report/,
    reason: 'sonar-report HTML is a rendering for people; Bulwark reads the SonarQube API or sonar-report JSON instead',
  },
  'sslyze/report_one_target_one_vuln.xml': {
    count: 2,
    reason:
      'the certificate has expired for every trust store: a finding as in SSLyze\u2019s JSON layout (which DefectDojo reads so), while DefectDojo\u2019s XML reader skips certificate validation',
  },
  'qualys/Qualys_Sample_Report.csv': {
    count: 6,
    reason:
      'one finding per QID and host, as for Nessus and OpenVAS: QID 105971 on four hosts is four findings; DefectDojo merges a QID across hosts',
  },
  'yarn_audit/yarn_audit_multiple_cwes2.json': {
    count: 3,
    reason:
      'advisory 1064843 affects two installed versions of ansi-regex (3.0.0 and 4.1.0), each upgraded on its own: one finding per advisory and installed version, as for npm audit; DefectDojo merges per advisory',
  },
};

/**
 * Files DefectDojo rejects where Bulwark deliberately differs: `format` when Bulwark reads the file as
 * that format, `error` when it rejects it with its own message. Also in the README's agreement table.
 */
const REJECTION_DEVIATIONS: Record<string, { format?: string; error?: RegExp; reason: string }> = {
  'govulncheck/empty.json': {
    error: /empty file/,
    reason: 'a 0-byte file names no tool: Bulwark says the file is empty where DefectDojo says "Invalid JSON format"',
  },
  'govulncheck/issue_15033_sarif.json': {
    format: 'sarif',
    reason:
      'govulncheck -format sarif writes SARIF 2.1.0, which Bulwark reads as SARIF; DefectDojo\u2019s govulncheck parser refuses it and points to its SARIF parser',
  },
};

/**
 * Files compared with DefectDojo's second scan type of their format, whose reading Bulwark shares:
 * the first-finding values that parser gives instead (the corpus README and the file's notes).
 */
const SECOND_SCAN_TYPE: Record<string, { scanType: string; first: Record<string, unknown> }> = {
  // Fortify Scan v2 stores the line Fortify reports (8), v1 the first line of the snippet around it (5).
  'fortify/hello_world.fpr': { scanType: 'Fortify Scan v2', first: { line: 8 } },
};

/** For files whose DefectDojo count depends on an option, Bulwark matches the detailed mode: it never aggregates distinct results. */
function expectedCount(e: Entry): number | null {
  const byOption = e.expected_findings_by_option;
  const detailed = byOption && Object.entries(byOption).find(([k]) => /^detailed/.test(k));
  return detailed ? detailed[1] : e.expected_findings;
}

const corpus: Entry[] = JSON.parse(fs.readFileSync(path.join(DD, 'expected.json'), 'utf8'));
/** The files of the formats Bulwark reads. */

/** A declared format only where the content cannot tell (0 bytes, JSON null, `{}`, `[]`): a scanner that found nothing may write that. */
function declaredFormat(e: Entry): string | undefined {
  const file = path.join(DD, e.file);
  const text = fs.readFileSync(file, 'utf8').trim();
  return /^(null|\{\s*\}|\[\s*\])?$/.test(text) ? FORMAT_OF[e.parser][0] : undefined;
}

function compareFirst(f: Finding, expected: Record<string, unknown>, file: string): void {
  const where = `${file} first finding`;
  if ('severity' in expected) expect(f.severity, `${where} severity`).to.equal(String(expected.severity).toLowerCase());
  if ('file_path' in expected) expect(f.filePath, `${where} file path`).to.equal(expected.file_path);
  if ('line' in expected) {
    // DefectDojo keeps a tool's line 0; Bulwark reads 0 as "no line", like null.
    const want = expected.line === null || Number(expected.line) === 0 ? undefined : Number(expected.line);
    expect(f.startLine, `${where} line`).to.equal(want);
  }
  if ('cwe' in expected) {
    const want = toCwes(expected.cwe);
    // DefectDojo writes 0 for "no CWE".
    if (want.length === 0) expect(f.cwes, `${where} cwe`).to.be.empty;
    else expect(f.cwes[0], `${where} cwe`).to.equal(want[0]);
  }
  if ('cwes' in expected) expect([...f.cwes].sort(), `${where} cwes`).to.deep.equal(toCwes(expected.cwes).sort());
  if ('cwe_one_of' in expected) expect(toCwes(expected.cwe_one_of), `${where} cwe`).to.include(f.cwes[0]);
  if ('vulnerability_ids' in expected) {
    const ids = (expected.vulnerability_ids as string[] | null) ?? [];
    if (ids.length === 0) expect(f.vulnerabilityIds, `${where} vulnerability ids`).to.be.empty;
    for (const id of ids) expect(f.vulnerabilityIds, `${where} vulnerability ids`).to.include(id);
  }
  if ('vulnerability_ids_first' in expected)
    expect(f.vulnerabilityIds[0], `${where} first id`).to.equal(expected.vulnerability_ids_first);
  if ('cve' in expected && expected.cve === null) {
    expect(
      f.vulnerabilityIds.filter((id) => id.startsWith('CVE-')),
      `${where} CVE`,
    ).to.be.empty;
  }
}

/**
 * The findings of `streamImportReport` in their order, as JSON (what the stores keep), read with large
 * JSON arrays left in the file from 1 KiB on, so the corpus's JSON reports take the path a 100 MB
 * report takes. Both ways of handing them over must give `importReport`'s result: amended as they
 * stream, and settled at the end.
 */
function streamed(file: string, format?: string): { format: string; findings: unknown[] } {
  const jsonLimits = {
    lazyArrayBytes: 1024,
    maxDepth: 128,
    maxStringBytes: 16 << 20,
    maxSkeletonBytes: 64 << 20,
    chunkBytes: 4096,
  };
  const asStreamed: string[] = [];
  const amended = new Set<number>();
  const r = streamImportReport(
    file,
    { format, jsonLimits },
    {
      found: (seq, f, json) => {
        expect(asStreamed[seq], `seq ${seq} found once`).to.equal(undefined);
        expect(json.text).to.equal(findingJson(f).text);
        asStreamed[seq] = json.text;
      },
      amended: (seq, f, json) => {
        expect(asStreamed[seq], `seq ${seq} amended after it was found`).to.be.a('string');
        expect(amended.has(seq), `seq ${seq} amended once`).to.equal(false);
        expect(f.severity).to.equal((JSON.parse(asStreamed[seq]) as Finding).severity);
        amended.add(seq);
        asStreamed[seq] = json.text;
      },
    },
  );
  const settled: string[] = [];
  streamImportReport(
    file,
    { format, jsonLimits },
    {
      found: (seq, _f, json) => {
        expect(seq, 'settled findings come in order').to.equal(settled.length);
        settled.push(json.text);
      },
    },
  );
  expect(asStreamed.length).to.equal(r.count);
  expect(settled, 'settled at the end, in order').to.deep.equal(asStreamed);
  return { format: r.format, findings: asStreamed.map((text) => JSON.parse(text) as unknown) };
}

/** An import's findings as JSON, as `streamed` gives them. */
const asJson = (r: { format: string; findings: Finding[] }) => ({
  format: r.format,
  findings: r.findings.map((f) => JSON.parse(findingJson(f).text) as unknown),
});

const counted = corpus.filter((e) => expectedCount(e) !== null);
const agreed: string[] = [];

describe('DefectDojo corpus', function () {
  after(function () {
    const rate = (100 * agreed.length) / counted.length;
    // The README's agreement rate is this line.
    console.log(
      `      corpus agreement: ${agreed.length}/${counted.length} files (${rate.toFixed(1)}%) agree without deviation`,
    );
  });

  describe('counts and first findings', function () {
    for (const e of counted) {
      it(`${e.file}`, function () {
        const file = path.join(DD, e.file);
        const deviation = DEVIATIONS[e.file];
        if (deviation?.error) {
          expect(() => parseReport(file)).to.throw(ReportParseError, deviation.error);
          return;
        }
        const { format, findings } = importReport(file, { format: declaredFormat(e) });
        expect(FORMAT_OF[e.parser], `${e.file} detected format`).to.include(format);
        const want = deviation?.count ?? expectedCount(e);
        expect(findings.length, `${e.file} count`).to.equal(want);
        expect(countReport(file, { format: declaredFormat(e) }).count, `${e.file} streamed count`).to.equal(want);
        expect(streamed(file, declaredFormat(e)), `${e.file} streamed import`).to.deep.equal(
          asJson({ format, findings }),
        );
        const second = SECOND_SCAN_TYPE[e.file];
        if (e.first_finding && findings.length) {
          compareFirst(
            findings[0],
            { ...e.first_finding, ...second?.first },
            second ? `${e.file} (as ${second.scanType})` : e.file,
          );
        }
        if (!deviation) agreed.push(e.file);
      });
    }
  });

  describe('files that must be rejected', function () {
    for (const e of corpus.filter((x) => x.expect_error)) {
      it(`${e.file}`, function () {
        const file = path.join(DD, e.file);
        const deviation = REJECTION_DEVIATIONS[e.file];
        if (deviation?.format) {
          expect(parseReport(file).format).to.equal(deviation.format);
          return;
        }
        if (deviation?.error) {
          expect(() => parseReport(file)).to.throw(ReportParseError, deviation.error);
          return;
        }
        let error: unknown;
        try {
          parseReport(file);
        } catch (err) {
          error = err;
        }
        expect(error).to.be.instanceOf(ReportParseError);
        const err = error as ReportParseError;
        expect(err.file).to.equal(file);
        for (const part of e.expect_error!.message_contains ?? []) expect(err.message).to.include(part);
        expect(() => streamed(file)).to.throw(ReportParseError, err.reason);
      });
    }
  });

  describe('files used only for import deduplication parse', function () {
    for (const e of corpus.filter((x) => expectedCount(x) === null && !x.expect_error)) {
      it(`${e.file}`, function () {
        const imported = importReport(path.join(DD, e.file));
        expect(imported.findings.length).to.be.greaterThan(0);
        expect(streamed(path.join(DD, e.file))).to.deep.equal(asJson(imported));
      });
    }
  });

  describe('summary', function () {
    it('reads every parser of the corpus (FORMAT_OF names its formats)', function () {
      for (const parser of new Set(corpus.map((e) => e.parser))) expect(FORMAT_OF, parser).to.have.property(parser);
    });

    it('detects the format of every non-empty corpus file from its content alone', function () {
      for (const e of counted.filter((x) => !declaredFormat(x) && !DEVIATIONS[x.file]?.error)) {
        expect(FORMAT_OF[e.parser], e.file).to.include(parseReport(path.join(DD, e.file)).format);
      }
    });

    it('agrees with at least 95% of the counted files, and deviates only on listed files', function () {
      for (const file of Object.keys(DEVIATIONS)) expect(counted.map((e) => e.file)).to.include(file);
      expect(agreed.length / counted.length).to.be.at.least(0.95);
    });
  });
});
