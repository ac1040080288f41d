import { expect } from 'chai';
import { parseReport } from '../src';
import { serviceUrl, siteUrl } from '../src/parsers/locations';
import { htmlLinks, htmlText, isoDate } from '../src/parsers/text';

/** Reports of Burp, Nikto, Acunetix, OpenVAS, Nessus, Qualys, Fortify, SpotBugs, Veracode and Black Duck beyond the corpus. */
function parse(text: string, format?: string) {
  return parseReport(Buffer.from(text), { name: 'report', format });
}

describe('DAST, infrastructure and SAST formats', function () {
  describe('reports of scans that found nothing', function () {
    const empty: [string, string, boolean][] = [
      ['burp', '<?xml version="1.0"?><issues burpVersion="2024.1" exportTime="x"></issues>', true],
      ['burp', '<issues/>', false],
      [
        'nikto-xml',
        '<niktoscan><niktoscan version="2.5.0"><scandetails targetip="10.0.0.1" sitename="http://a/"><statistics/></scandetails></niktoscan></niktoscan>',
        true,
      ],
      ['nikto-json', '{"host":"a","ip":"10.0.0.1","port":"80","banner":"","vulnerabilities":[]}', true],
      ['nikto-json', '[]', false],
      [
        'acunetix-xml',
        '<ScanGroup ExportedOn="x"><Scan><StartURL>http://a</StartURL><ReportItems/></Scan></ScanGroup>',
        true,
      ],
      ['acunetix-xml', '<ScanGroup/>', false],
      ['acunetix360', '{"Generated":"x","Target":{"Url":"http://a/"},"Vulnerabilities":[]}', true],
      ['spotbugs', '<BugCollection version="4.8.0"><Project/></BugCollection>', true],
      ['veracode-xml', '<detailedreport xmlns="https://www.veracode.com/schema/reports/export/1.0" app_id="1"/>', true],
      ['veracode-json', '{"_links":{},"page":{"size":20,"total_elements":0}}', false],
      ['veracode-json', '{"findings":[]}', false],
      [
        'openvas-xml',
        '<report id="1" format_id="a994b278"><report id="1"><results max="-1" start="1"/></report></report>',
        true,
      ],
      ['openvas-csv', 'IP,Hostname,Port,Port Protocol,CVSS,Severity,NVT Name,Summary,NVT OID,CVEs\n', true],
      ['nessus', '<NessusClientData_v2><Report name="scan"/></NessusClientData_v2>', true],
      ['tenable-csv', 'Plugin ID,CVE,CVSS,Risk,Host,Protocol,Port,Name\n', true],
      ['qualys-csv', 'IP,DNS,QID,Title,Severity,Port,Protocol\n', true],
      ['qualys-xml', '<ASSET_DATA_REPORT><HEADER/></ASSET_DATA_REPORT>', true],
      ['fortify-xml', '<ReportDefinition type="standard"><ReportSection/></ReportDefinition>', true],
      ['fortify-fvdl', '<FVDL version="1.12"><Vulnerabilities/></FVDL>', true],
      [
        'blackduck-csv',
        'Project id,Version id,Project name,Version,Vulnerability id,Description,Security Risk\n',
        true,
      ],
    ];
    for (const [format, text, detectable] of empty) {
      it(`${format}: ${detectable ? 'detected, and ' : ''}read as no findings when declared (${text.slice(0, 40)}…)`, function () {
        expect(parse(text, format).findings).to.deep.equal([]);
        if (detectable) expect(parse(text).format).to.equal(format);
      });
    }
  });

  describe('reports whose finding arrays are over 1 MiB (left on disk and read lazily)', function () {
    const pad = 'x'.repeat(200);
    it('Nikto JSON', function () {
      const vulns = Array.from({ length: 6000 }, (_, i) => ({
        id: String(i),
        OSVDB: '0',
        method: 'GET',
        url: `/p${i}`,
        msg: `Check ${i} ${pad}`,
      }));
      const { format, findings } = parse(
        JSON.stringify({ host: 'a', ip: '10.0.0.1', port: '80', banner: '', vulnerabilities: vulns }),
      );
      expect(format).to.equal('nikto-json');
      expect(findings).to.have.length(6000);
    });

    it('Veracode JSON and Acunetix 360', function () {
      const findings = Array.from({ length: 6000 }, (_, i) => ({
        issue_id: i,
        scan_type: 'STATIC',
        description: pad,
        finding_status: { status: 'OPEN' },
        finding_details: { severity: 3, file_path: `f${i}.java`, file_line_number: 1 },
      }));
      expect(parse(JSON.stringify({ _embedded: { findings } })).format).to.equal('veracode-json');
      const vulns = Array.from({ length: 6000 }, (_, i) => ({
        Name: `N${i}`,
        Severity: 'Low',
        Url: `http://a/${i}`,
        Description: pad,
      }));
      expect(
        parse(JSON.stringify({ Generated: 'x', Target: { Url: 'http://a/' }, Vulnerabilities: vulns })).findings,
      ).to.have.length(6000);
    });
  });

  describe('missing optional fields', function () {
    it('Burp: an issue without request, classifications or background', function () {
      const [f] = parse(
        '<issues burpVersion="1"><issue><type>1</type><name>X</name><host>https://a.example</host><path>/p</path><severity>Low</severity></issue></issues>',
      ).findings;
      expect(f).to.include({ title: 'X', severity: 'low' });
      expect(f.endpoints).to.deep.equal([{ url: 'https://a.example/p', method: undefined }]);
      expect(f.cwes).to.deep.equal([]);
    });

    it('Nessus: an item without risk_factor, CVEs or vectors takes its severity level; a host without properties its name', function () {
      const [f] = parse(
        '<NessusClientData_v2><Report><ReportHost name="10.0.0.5"><ReportItem port="0" protocol="tcp" severity="4" pluginID="1" pluginName="P"/></ReportHost></Report></NessusClientData_v2>',
      ).findings;
      expect(f).to.include({ title: 'P', severity: 'critical' });
      expect(f.endpoints[0].url).to.equal('tcp://10.0.0.5');
    });

    it('Nessus: compliance checks of one audit plugin are findings of their own; passed checks none', function () {
      const item = (name: string, result: string, sev: string): string =>
        `<ReportItem port="0" protocol="tcp" severity="${sev}" pluginID="21156" pluginName="Unix Compliance Checks" pluginFamily="Policy Compliance"><cm:compliance-check-name>${name}</cm:compliance-check-name><cm:compliance-result>${result}</cm:compliance-result></ReportItem>`;
      const doc = `<NessusClientData_v2 xmlns:cm="http://www.nessus.org/cm"><Report><ReportHost name="h">${item('1.1 tmp is a partition', 'FAILED', '3')}${item('1.2 noexec on tmp', 'FAILED', '3')}${item('1.3 nodev on tmp', 'PASSED', '0')}</ReportHost></Report></NessusClientData_v2>`;
      expect(parseReport(Buffer.from(doc)).findings.map((f) => f.title)).to.deep.equal([
        '1.1 tmp is a partition',
        '1.2 noexec on tmp',
      ]);
    });

    it('Nessus CSV: a Tenable.sc export without CVE or vector columns', function () {
      const [f] = parse(
        'Plugin,Plugin Name,Severity,IP Address,Port,Protocol\n19506,Scan Information,Info,10.0.0.1,0,TCP\n',
      ).findings;
      expect(f).to.include({ severity: 'info', ruleId: '19506' });
    });

    it('SpotBugs: a bug without source lines or a pattern, located nowhere', function () {
      const [f] = parse(
        '<BugCollection><BugInstance type="DM_DEFAULT_ENCODING" priority="3"><ShortMessage>Default encoding</ShortMessage></BugInstance></BugCollection>',
      ).findings;
      expect(f).to.include({ title: 'Default encoding', severity: 'low' });
      expect(f.filePath).to.equal(undefined);
    });

    it('OpenVAS: a result without threat word, refs or tags takes its score', function () {
      const [f] = parse(
        '<report format_id="x"><report><results><result><host>10.0.0.9</host><port>general/tcp</port><nvt oid="1.2"><name>N</name></nvt><severity>7.5</severity></result></results></report></report>',
      ).findings;
      expect(f).to.include({ title: 'N', severity: 'high' });
      expect(f.endpoints[0].url).to.equal('tcp://10.0.0.9');
    });

    it('OpenVAS: a GMP get_reports response wraps the report', function () {
      const gmp =
        '<get_reports_response status="200"><report id="1" format_id="x"><report id="1"><results><result><host>10.0.0.2</host><port>22/tcp</port><threat>Medium</threat><nvt oid="1.3"><name>SSH</name></nvt></result></results></report></report></get_reports_response>';
      const { format, findings } = parse(gmp);
      expect(format).to.equal('openvas-xml');
      expect(findings[0].endpoints[0].url).to.equal('tcp://10.0.0.2:22');
    });

    it('Qualys asset data report: host detections joined with the glossary', function () {
      const doc = `<ASSET_DATA_REPORT><HOST_LIST><HOST><IP>10.0.0.3</IP><DNS>web1</DNS><VULN_INFO_LIST>
        <VULN_INFO><QID id="qid_38170">38170</QID><TYPE>Vuln</TYPE><PORT>443</PORT><PROTOCOL>tcp</PROTOCOL><VULN_STATUS>Active</VULN_STATUS></VULN_INFO>
        <VULN_INFO><QID id="qid_38170">38170</QID><TYPE>Vuln</TYPE><PORT>8443</PORT><PROTOCOL>tcp</PROTOCOL><VULN_STATUS>Fixed</VULN_STATUS></VULN_INFO>
        </VULN_INFO_LIST></HOST></HOST_LIST><GLOSSARY><VULN_DETAILS_LIST><VULN_DETAILS id="qid_38170"><QID>38170</QID><TITLE>SSL Certificate - Subject Common Name Does Not Match</TITLE><SEVERITY>2</SEVERITY>
        <CVE_ID_LIST><CVE_ID><ID>CVE-2020-0001</ID></CVE_ID></CVE_ID_LIST></VULN_DETAILS></VULN_DETAILS_LIST></GLOSSARY></ASSET_DATA_REPORT>`;
      const { format, findings } = parse(doc);
      expect(format).to.equal('qualys-xml');
      expect(findings.map((f) => [f.title, f.severity, f.endpoints[0].url, f.suppression?.state])).to.deep.equal([
        ['QID-38170 | SSL Certificate - Subject Common Name Does Not Match', 'low', 'tcp://web1:443', undefined],
        ['QID-38170 | SSL Certificate - Subject Common Name Does Not Match', 'low', 'tcp://web1:8443', 'fixed'],
      ]);
      expect(findings[0].vulnerabilityIds).to.deep.equal(['CVE-2020-0001']);
    });

    it('Veracode JSON: a finding without status or CWE is kept', function () {
      const [f] = parse(
        '{"findings":[{"scan_type":"STATIC","finding_details":{"severity":4,"file_path":"a.java","file_line_number":3,"finding_category":{"name":"SQL Injection"}}}]}',
      ).findings;
      expect(f).to.include({ title: 'SQL Injection', severity: 'high', filePath: 'a.java', startLine: 3 });
    });

    it('Acunetix 360: a vulnerability without classification or request', function () {
      const [f] = parse(
        '{"Generated":"x","Target":{"Url":"http://a/"},"Vulnerabilities":[{"Name":"N","Severity":"BestPractice","Url":"http://a/x"}]}',
      ).findings;
      expect(f).to.include({ title: 'N', severity: 'info' });
    });
  });

  describe('shared helpers', function () {
    it('writes service and site URLs', function () {
      expect(serviceUrl('10.0.0.1', '443', 'TCP')).to.equal('tcp://10.0.0.1:443');
      expect(serviceUrl('h', '0')).to.equal('tcp://h');
      expect(siteUrl('www.example.com', '/a')).to.equal('http://www.example.com/a');
      expect(siteUrl('https://e.example/', 'x/y')).to.equal('https://e.example/x/y');
      expect(siteUrl('https://e.example', 'http://other.example/z')).to.equal('http://other.example/z');
    });

    it('reads day-first and month-first dates, with 12-hour times', function () {
      expect(isoDate('24/09/2018, 18:09:55', 'dmy')).to.equal('2018-09-24T18:09:55');
      expect(isoDate('16/06/2021 12:30 PM', 'dmy')).to.equal('2021-06-16T12:30:00');
      expect(isoDate('05/25/2021 07:36:58', 'mdy')).to.equal('2021-05-25T07:36:58');
      expect(isoDate('4/29/14', 'mdy')).to.equal('2014-04-29');
      expect(isoDate('yesterday', 'mdy')).to.equal(undefined);
    });

    it('turns HTML fragments into text and links', function () {
      expect(htmlText('<p>a &amp; b</p><ul><li>c</li></ul>')).to.equal('a & b\nc');
      expect(htmlLinks('<a href="https://x.example/1">x</a> <a href=\'https://x.example/2\'>y</a>')).to.deep.equal([
        'https://x.example/1',
        'https://x.example/2',
      ]);
      expect(htmlLinks('see https://x.example/3.')).to.deep.equal(['https://x.example/3']);
    });
  });
});
