import { expect } from 'chai';
import { strToU8, zipSync } from 'fflate';
import { importReport, parseReport, ReportParseError } from '../src';

/** Variants of the infrastructure, TLS and DAST formats of issue #32 that the corpus does not show. */
const parse = (doc: unknown, format?: string) =>
  parseReport(Buffer.from(typeof doc === 'string' ? doc : JSON.stringify(doc)), { name: 'report', format });

/** A report that must be detected as `format`. */
function parseAs(format: string, doc: unknown) {
  const r = parse(doc);
  expect(r.format, 'detected format').to.equal(format);
  return r;
}

const imported = (doc: unknown) =>
  importReport(Buffer.from(typeof doc === 'string' ? doc : JSON.stringify(doc)), { name: 'report' });

describe('network, TLS and DAST formats of issue #32', function () {
  describe('SSLyze', function () {
    it('reads the 5.x+ layout (scan_result with status and result), skipping servers it could not scan', function () {
      const r = parse({
        sslyze_version: '6.0.0',
        sslyze_url: 'https://github.com/nabla-c0d3/sslyze',
        date_scans_started: '2024-05-01T10:00:00',
        server_scan_results: [
          {
            server_location: { hostname: 'a.example', port: 443, ip_address: '10.0.0.1' },
            scan_status: 'COMPLETED',
            scan_result: {
              heartbleed: { status: 'COMPLETED', result: { is_vulnerable_to_heartbleed: false } },
              openssl_ccs_injection: { status: 'COMPLETED', result: { is_vulnerable_to_ccs_injection: true } },
              tls_1_0_cipher_suites: {
                status: 'COMPLETED',
                result: { accepted_cipher_suites: [{ cipher_suite: { name: 'TLS_RSA_WITH_AES_128_CBC_SHA' } }] },
              },
              tls_1_3_cipher_suites: {
                status: 'COMPLETED',
                result: { accepted_cipher_suites: [{ cipher_suite: { name: 'TLS_AES_256_GCM_SHA384' } }] },
              },
              certificate_info: {
                status: 'COMPLETED',
                result: {
                  certificate_deployments: [
                    {
                      leaf_certificate_subject_matches_hostname: true,
                      path_validation_results: [
                        { trust_store: { name: 'Mozilla', version: '2024' }, was_validation_successful: true },
                      ],
                    },
                  ],
                },
              },
              robot: { status: 'ERROR', error_reason: 'timeout' },
            },
          },
          { server_location: { hostname: 'down.example', port: 443 }, scan_status: 'ERROR_NO_CONNECTIVITY' },
        ],
      });
      expect(r.format).to.equal('sslyze-json');
      expect(r.findings.map((f) => [f.ruleId, f.severity, f.vulnerabilityIds[0]])).to.deep.equal([
        ['openssl_ccs_injection', 'high', 'CVE-2014-0224'],
        ['protocol:TLS 1.0', 'medium', undefined],
      ]);
      expect(r.findings[0].endpoints).to.deep.equal([{ url: 'tcp://a.example:443' }]);
    });

    it('reads the 2.x layout (accepted_targets with commands_results)', function () {
      const r = parse({
        sslyze_version: '2.1.4',
        accepted_targets: [
          {
            server_info: { hostname: 'b.example', port: 8443 },
            commands_results: {
              heartbleed: { is_vulnerable_to_heartbleed: true },
              sslv3: { accepted_cipher_suites: [{ openssl_name: 'DES-CBC3-SHA' }] },
            },
          },
        ],
      });
      expect(r.findings.map((f) => f.title)).to.deep.equal(['Heartbleed', 'SSL 3.0 not recommended']);
      expect(r.findings[0].endpoints[0].url).to.equal('tcp://b.example:8443');
    });
  });

  describe('testssl.sh', function () {
    it('reads --jsonfile records like the CSV: OK and rating records skipped, one finding per CVE', function () {
      const r = parse([
        {
          id: 'SSLv3',
          ip: 'a.example/10.0.0.1',
          port: '443',
          severity: 'HIGH',
          cve: 'CVE-2014-3566',
          finding: 'offered',
        },
        { id: 'TLS1_3', ip: 'a.example/10.0.0.1', port: '443', severity: 'OK', finding: 'offered' },
        { id: 'overall_grade', ip: 'a.example/10.0.0.1', port: '443', severity: 'MEDIUM', finding: 'B' },
      ]);
      expect(r.format).to.equal('testssl-json');
      expect(r.findings).to.have.length(1);
      expect(r.findings[0]).to.include({ title: 'SSLv3', severity: 'high' });
      expect(r.findings[0].vulnerabilityIds).to.deep.equal(['CVE-2014-3566']);
    });

    it('reads --jsonfile-pretty, section by section, at the target host', function () {
      const r = parse({
        Invocation: 'testssl.sh --jsonfile-pretty x.json a.example',
        at: 'host:/usr/bin/openssl',
        version: '3.2.0',
        openssl: 'OpenSSL 3.0.13',
        startTime: '1714550000',
        scanResult: [
          {
            targetHost: 'a.example',
            ip: '10.0.0.1',
            port: '443',
            service: 'HTTP',
            protocols: [{ id: 'TLS1', severity: 'LOW', finding: 'offered (deprecated)' }],
            vulnerabilities: [
              { id: 'BEAST', severity: 'LOW', cve: 'CVE-2011-3389', cwe: 'CWE-20', finding: 'VULNERABLE' },
            ],
          },
        ],
      });
      expect(r.format).to.equal('testssl-json');
      expect(r.findings.map((f) => f.ruleId)).to.deep.equal(['TLS1', 'BEAST']);
      expect(r.findings[1].cwes).to.deep.equal([20]);
      expect(r.findings[1].endpoints[0].url).to.equal('tcp://a.example:443');
    });
  });

  it('WPScan: a CVSS score from the WPScan API sets the severity; a theme vulnerability is located at the theme', function () {
    const r = parse({
      banner: { description: 'WordPress Security Scanner by the WPScan Team', version: '3.8.25' },
      target_url: 'https://blog.example/',
      effective_url: 'https://blog.example/',
      interesting_findings: [],
      version: { number: '6.4.1', vulnerabilities: [] },
      main_theme: {
        slug: 'twentytwenty',
        location: 'https://blog.example/wp-content/themes/twentytwenty/',
        version: { number: '1.0' },
        vulnerabilities: [
          {
            title: 'Twenty Twenty < 1.1 - XSS',
            fixed_in: '1.1',
            references: { cve: ['2023-0001'], wpvulndb: ['abc'] },
            cvss: { score: 9.1, vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:N' },
          },
        ],
      },
      plugins: {},
    });
    expect(r.format).to.equal('wpscan');
    expect(r.findings[0]).to.include({ severity: 'critical', ruleId: 'abc' });
    expect(r.findings[0].vulnerabilityIds).to.deep.equal(['CVE-2023-0001']);
    expect(r.findings[0].endpoints[0].url).to.equal('https://blog.example/wp-content/themes/twentytwenty/');
  });

  it('StackHawk: every path accepted as a risk suppresses the finding; a mixed triage leaves it open', function () {
    const finding = (id: string, statuses: string[]) => ({
      pluginId: id,
      pluginName: `Plugin ${id}`,
      severity: 'Medium',
      host: 'https://app.example',
      paths: statuses.map((status, i) => ({ path: `/p${i}`, method: 'GET', status })),
    });
    const r = parse({
      service: 'StackHawk',
      scanCompleted: {
        scan: { id: 's', application: 'App', env: 'Prod', scanURL: 'https://app.stackhawk.com/scans/s' },
        findings: [finding('1', ['RISK_ACCEPTED', 'RISK_ACCEPTED']), finding('2', ['NEW', 'FALSE_POSITIVE'])],
      },
    });
    expect(r.findings.map((f) => f.suppression?.state)).to.deep.equal(['risk_accepted', undefined]);
    expect(r.findings[1].endpoints.map((e) => e.url)).to.deep.equal([
      'https://app.example/p0',
      'https://app.example/p1',
    ]);
  });

  describe('Nmap', function () {
    it('names a host without host names by its address, and skips closed and open|filtered ports', function () {
      const r = parse(
        '<nmaprun scanner="nmap" start="1700000000"><host><address addr="10.0.0.5" addrtype="ipv4"/>' +
          '<address addr="00:11:22:33:44:55" addrtype="mac"/><ports>' +
          '<port protocol="tcp" portid="22"><state state="open"/><service name="ssh"/></port>' +
          '<port protocol="tcp" portid="23"><state state="closed"/></port>' +
          '<port protocol="udp" portid="161"><state state="open|filtered"/></port>' +
          '</ports></host></nmaprun>',
      );
      expect(r.format).to.equal('nmap');
      expect(r.findings.map((f) => [f.title, f.endpoints[0].url])).to.deep.equal([
        ['Open port: 22/tcp', 'tcp://10.0.0.5:22'],
      ]);
      expect(r.findings[0].detectedAt).to.equal('2023-11-14T22:13:20Z');
    });

    it('keeps the same port on two hosts apart and gives a rescan the same fingerprints', function () {
      const scan = (start: string) =>
        `<nmaprun start="${start}">` +
        ['a', 'b']
          .map(
            (h) =>
              `<host><address addr="${h}.example" addrtype="ipv4"/><ports><port protocol="tcp" portid="443"><state state="open"/></port></ports></host>`,
          )
          .join('') +
        '</nmaprun>';
      const first = imported(scan('1700000000')).findings.map((f) => f.fingerprint);
      expect(new Set(first).size).to.equal(2);
      expect(imported(scan('1800000000')).findings.map((f) => f.fingerprint)).to.deep.equal(first);
    });
  });

  it('Nexpose: a vulnerability on two nodes is one finding with both as endpoints, its CVEs and severity 9 critical', function () {
    const node = (address: string) =>
      `<node address="${address}" status="alive"><tests><test id="v-1" status="vulnerable-version"/></tests></node>`;
    const r = parse(
      `<NexposeReport version="2.0"><nodes>${node('10.0.0.1')}${node('10.0.0.2')}</nodes>` +
        '<VulnerabilityDefinitions><vulnerability id="V-1" title="Old OpenSSL" severity="9" cvssScore="9.8">' +
        '<references><reference source="CVE">CVE-2022-0778</reference><reference source="URL">https://x.example/a</reference></references>' +
        '</vulnerability></VulnerabilityDefinitions></NexposeReport>',
    );
    expect(r.findings[0]).to.include({ title: 'Old OpenSSL', severity: 'critical' });
    expect(r.findings[0].vulnerabilityIds).to.deep.equal(['CVE-2022-0778']);
    expect(r.findings[0].endpoints.map((e) => e.url)).to.deep.equal(['tcp://10.0.0.1', 'tcp://10.0.0.2']);
    expect(r.findings.map((f) => f.title)).to.deep.equal(['Old OpenSSL', 'Host Up']);
  });

  describe('OpenSCAP', function () {
    it('reads a bare XCCDF 1.2 TestResult: failed rules only, the rule result\u2019s severity, CVE idents', function () {
      const r = parseAs(
        'openscap',
        '<TestResult xmlns="http://checklists.nist.gov/xccdf/1.2" id="xccdf_r"><target>web1</target><target-address>10.0.0.9</target-address>' +
          '<rule-result idref="xccdf_rule_a" severity="high"><result>fail</result><ident system="http://cve.mitre.org">CVE-2024-1</ident></rule-result>' +
          '<rule-result idref="xccdf_rule_b" severity="low"><result>pass</result></rule-result>' +
          '<rule-result idref="xccdf_rule_c"><result>notapplicable</result></rule-result></TestResult>',
      );
      expect(r.findings).to.have.length(1);
      expect(r.findings[0]).to.include({ ruleId: 'xccdf_rule_a', severity: 'high' });
      expect(r.findings[0].vulnerabilityIds).to.deep.equal(['CVE-2024-1']);
      expect(r.findings[0].resource?.id).to.equal('web1');
    });

    it('finds the benchmark and results of an ARF report collection', function () {
      const r = parse(
        '<arf:asset-report-collection xmlns:arf="urn:arf"><arf:report-requests><arf:report-request><arf:content>' +
          '<Benchmark id="b"><Rule id="r1" severity="medium"><title>Disable telnet</title></Rule></Benchmark>' +
          '</arf:content></arf:report-request></arf:report-requests><arf:reports><arf:report><arf:content>' +
          '<TestResult id="t"><target>h</target><rule-result idref="r1"><result>fail</result></rule-result></TestResult>' +
          '</arf:content></arf:report></arf:reports></arf:asset-report-collection>',
      );
      expect(r.findings.map((f) => [f.title, f.severity])).to.deep.equal([['Disable telnet', 'medium']]);
    });
  });

  it('HCL AppScan: a SAST report locates issues at their file and line, its issue type resolved by reference', function () {
    const r = parseAs(
      'hcl-appscan',
      '<xml-report name="AppScan Report" technology="SAST" xmlExportVersion="2.8">' +
        '<issue-type-group><item id="SQLi"><name>SQL Injection</name><cwe>89</cwe></item></issue-type-group>' +
        '<issue-group><item id="42"><severity>High</severity><issue-type><ref>SQLi</ref></issue-type>' +
        '<source-file>src/Dao.java</source-file><line>17</line></item></issue-group></xml-report>',
    );
    expect(r.findings[0]).to.include({
      title: 'SQL Injection',
      severity: 'high',
      toolCategory: 'sast',
      filePath: 'src/Dao.java',
      startLine: 17,
    });
    expect(r.findings[0].cwes).to.deep.equal([89]);
  });

  describe('Microsoft Defender zip export', function () {
    const page = (value: unknown[]) => strToU8(JSON.stringify({ '@odata.context': 'x', value }));
    const vuln = {
      cveId: 'CVE-2024-2',
      machineId: 'm1',
      productName: 'edge',
      productVendor: 'microsoft',
      productVersion: '1.0',
      severity: 'High',
    };

    it('joins machines by id: the machine\u2019s DNS name is the endpoint, its id the resource', function () {
      const zip = Buffer.from(
        zipSync({
          'export/machines/page1.json': page([{ id: 'm1', computerDnsName: 'pc-1.corp', lastIpAddress: '10.1.1.1' }]),
          'export/vulnerabilities/page1.json': page([vuln]),
        }),
      );
      const r = parseReport(zip, { name: 'report' });
      expect(r.format).to.equal('ms-defender-zip');
      expect(r.findings[0]).to.include({ severity: 'high' });
      expect(r.findings[0].endpoints).to.deep.equal([{ url: 'tcp://pc-1.corp' }]);
      expect(r.findings[0].resource?.id).to.equal('m1');
      expect(r.findings[0].library).to.deep.include({ name: 'microsoft edge', version: '1.0' });
    });

    it('refuses a page that is not JSON with a ReportParseError', function () {
      const zip = Buffer.from(zipSync({ 'vulnerabilities/page1.json': strToU8('{"value": [') }));
      expect(() => parseReport(zip, { name: 'report' })).to.throw(ReportParseError);
    });
  });

  describe('hostile and malformed input is a ReportParseError', function () {
    const cases: [string, string][] = [
      ['nmap', '<nmaprun><host><ports><port'],
      ['nexpose', '<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><NexposeReport>&e;</NexposeReport>'],
      ['sslyze-json', '{"sslyze_version": "5.0", "server_scan_results": [{"scan_result": '],
      ['wpscan', '{"banner": {"description": "WPScan"}, "target_url": '],
    ];
    for (const [format, text] of cases) {
      it(format, function () {
        expect(() => parse(text, format)).to.throw(ReportParseError);
      });
    }
  });

  it('detects reports that found nothing from their markers', function () {
    expect(parse('"id","fqdn/ip","port","severity","finding","cve","cwe"\n').format).to.equal('testssl-csv');
    expect(parse({ service: 'StackHawk', scanCompleted: { scan: {}, findings: [] } }).format).to.equal('stackhawk');
    expect(parse('<nmaprun scanner="nmap"></nmaprun>').format).to.equal('nmap');
    expect(parse({ sslyze_version: '5.2.0', server_scan_results: [] }).format).to.equal('sslyze-json');
    expect(parse('<NexposeReport version="2.0"><nodes/></NexposeReport>').findings).to.deep.equal([]);
  });
});
