import { expect } from 'chai';
import { importReport, parseReport, ReportParseError } from '../src';

/** Fortify WebInspect has no corpus sample: these reports follow its documented XML exports. */
const read = (xml: string, format?: string) => parseReport(Buffer.from(xml), { name: 'report', format });

const issue = (id: string, severity: string, name: string) =>
  `<Issue id="${id}-i"><CheckTypeID>Vulnerability</CheckTypeID><EngineType>REQMOD</EngineType>` +
  `<VulnerabilityID>${id}</VulnerabilityID><Severity>${severity}</Severity><Name>${name}</Name>` +
  '<Classifications><Classification kind="CWE" identifier="CWE ID 89" href="https://cwe.mitre.org/data/definitions/89.html">Improper Neutralization</Classification>' +
  '<Classification kind="OWASP2021">A03 Injection</Classification></Classifications>' +
  '<ReportSection><Name>Summary</Name><SectionText><![CDATA[<p>The parameter is injectable.</p>]]></SectionText></ReportSection>' +
  '<ReportSection><Name>Fix</Name><SectionText><![CDATA[<p>Use prepared statements.</p>]]></SectionText></ReportSection>' +
  '<ReportSection><Name>Reference Info</Name><SectionText><![CDATA[<a href="https://owasp.org/sqli">OWASP</a>]]></SectionText></ReportSection>' +
  '</Issue>';

const session = (path: string, param: string, issues: string) =>
  `<Session requestId="${path}"><URL>https://shop.example${path}</URL><Scheme>https</Scheme><Host>shop.example</Host><Port>443</Port>` +
  `<AttackParamDescriptor>${param}</AttackParamDescriptor><Issues>${issues}</Issues>` +
  `<RawRequest><![CDATA[POST ${path} HTTP/1.1\nHost: shop.example\n\n]]></RawRequest></Session>`;

const scanExport =
  '<Sessions>' +
  session('/login', 'parameter=username', issue('11299', '4', 'SQL Injection')) +
  session('/search', 'q', issue('11299', '4', 'SQL Injection') + issue('10932', '1', 'Cache Management: Headers')) +
  session('/static', '', '') +
  '</Sessions>';

describe('Fortify WebInspect XML', function () {
  it('reads the scan export: a check on one host is one finding with each attacked URL as an endpoint', function () {
    const r = importReport(Buffer.from(scanExport), { name: 'report' });
    expect(r.format).to.equal('webinspect');
    expect(r.findings.map((f) => [f.title, f.severity])).to.deep.equal([
      ['SQL Injection', 'critical'],
      ['Cache Management: Headers', 'low'],
    ]);
    const sqli = r.findings[0];
    expect(sqli.endpoints).to.deep.equal([
      { url: 'https://shop.example/login', method: 'POST', parameter: 'username' },
      { url: 'https://shop.example/search', method: 'POST', parameter: 'q' },
    ]);
    expect(sqli.cwes).to.deep.equal([89]);
    expect(sqli.ruleId).to.equal('11299');
    expect(sqli.mitigation).to.equal('Use prepared statements.');
    expect(sqli.references).to.include.members([
      'https://owasp.org/sqli',
      'https://cwe.mitre.org/data/definitions/89.html',
    ]);
    expect(sqli.tags).to.deep.equal(['Vulnerability', 'A03 Injection']);
  });

  it('gives a rescan the same fingerprints, and another host its own finding', function () {
    const first = importReport(Buffer.from(scanExport), { name: 'report' }).findings.map((f) => f.fingerprint);
    const again = importReport(Buffer.from(scanExport.replace(/requestId="[^"]*"/g, 'requestId="other"')), {
      name: 'report',
    }).findings.map((f) => f.fingerprint);
    expect(again).to.deep.equal(first);
    const other = importReport(
      Buffer.from(
        scanExport
          .replace('<Host>shop.example</Host>', '<Host>x</Host>')
          .replace('https://shop.example/login', 'https://admin.example/login'),
      ),
      {
        name: 'report',
      },
    );
    expect(other.findings.filter((f) => f.title === 'SQL Injection')).to.have.length(2);
  });

  it('reads the findings export (<Scan> with issues carrying their URL)', function () {
    const r = read(
      '<Scan><Name>Site: https://shop.example/</Name><PolicyName>Standard</PolicyName><StartTime>9/11/2024 1:56:13 PM</StartTime>' +
        '<Issues><Issue><CheckTypeID>Vulnerability</CheckTypeID><URL>https://shop.example/a</URL><Scheme>https</Scheme>' +
        '<Host>shop.example</Host><Port>443</Port><VulnerabilityID>11306</VulnerabilityID><Severity>2</Severity>' +
        '<Name>Server Misconfiguration: Cache Policy</Name></Issue></Issues></Scan>',
    );
    expect(r.format).to.equal('webinspect');
    expect(r.findings[0]).to.include({ severity: 'medium', ruleId: '11306' });
    expect(r.findings[0].endpoints[0].url).to.equal('https://shop.example/a');
  });

  it('reads a scan that found nothing, and refuses a truncated export', function () {
    expect(read('<Sessions>' + session('/static', '', '') + '</Sessions>').findings).to.deep.equal([]);
    expect(read('<Sessions/>', 'webinspect').findings).to.deep.equal([]);
    expect(() => read(scanExport.slice(0, 400))).to.throw(ReportParseError);
  });
});
