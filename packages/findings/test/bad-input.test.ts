import { expect } from 'chai';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseReport, ReportParseError } from '../src';
import { MAX_COMPONENT_FIELD_CHARS, MAX_LICENSE_CHARS, MAX_LICENSES } from '../src/components';
import { CORPUS } from './paths';

function rejects(input: string | Buffer, pattern: RegExp, format?: string): ReportParseError {
  let error: unknown;
  try {
    parseReport(typeof input === 'string' ? Buffer.from(input) : input, { name: 'report', format });
  } catch (e) {
    error = e;
  }
  expect(error, 'an error').to.be.instanceOf(ReportParseError);
  const err = error as ReportParseError;
  expect(err.message).to.match(pattern);
  expect(err.file).to.equal('report');
  expect(err.message.split('\n')).to.have.length(1);
  return err;
}

const sarif = fs.readFileSync(path.join(CORPUS, 'defectdojo', 'sarif', 'flawfinder.sarif'));

describe('bad input', function () {
  it('refuses truncated JSON and names the format it was detected as', function () {
    rejects(sarif.subarray(0, 5000), /truncated JSON/);
  });

  it('turns the NUL character, which no store can hold, into U+FFFD in every field of a finding', function () {
    const doc = {
      version: '2.1.0',
      runs: [
        {
          tool: { driver: { name: 'to\u0000ol', rules: [] } },
          results: [
            {
              ruleId: 'r\u0000',
              level: 'error',
              message: { text: 'a\u0000b' },
              locations: [
                { physicalLocation: { artifactLocation: { uri: 'src/a\u0000.py' }, region: { startLine: 1 } } },
              ],
            },
          ],
        },
      ],
    };
    const [finding] = parseReport(Buffer.from(JSON.stringify(doc)), { name: 'report' }).findings;
    expect(JSON.stringify(finding)).not.to.contain('\\u0000');
    expect(finding).to.include({
      tool: 'to\ufffdol',
      ruleId: 'r\ufffd',
      title: 'a\ufffdb',
      filePath: 'src/a\ufffd.py',
    });
  });

  it('refuses invalid JSON', function () {
    rejects('{"runs": [1, 2,, 3], "version": "2.1.0"}', /invalid JSON/);
    rejects('{"a": 1}}', /invalid JSON|unbalanced/);
  });

  it('refuses truncated and invalid XML', function () {
    const zap = fs.readFileSync(path.join(CORPUS, 'defectdojo', 'zap', 'dvwa_baseline_dojo.xml'));
    rejects(zap.subarray(0, 3000), /invalid XML/);
    rejects('<OWASPZAPReport><site></OWASPZAPReport>', /invalid XML/);
  });

  it('refuses content it cannot recognize', function () {
    rejects('{"hello": "world"}', /unrecognized JSON report/);
    rejects('<html><body>hi</body></html>', /an HTML page/);
    rejects('<report><item/></report>', /unrecognized XML report/);
    rejects(Buffer.from([0x00, 0x01, 0x02, 0xff, 0xfe]), /unrecognized content/);
    rejects('just some words', /unrecognized content/);
  });

  it('refuses a DOCTYPE that declares entities, external entities and entity expansion without expanding anything', function () {
    rejects(
      '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><OWASPZAPReport>&x;</OWASPZAPReport>',
      /DOCTYPE is refused/,
    );
    const laughs =
      '<!DOCTYPE l [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]><bom xmlns="http://cyclonedx.org/schema/bom/1.4">&c;</bom>';
    rejects(laughs, /DOCTYPE is refused/);
    rejects('<OWASPZAPReport>&undefined;</OWASPZAPReport>', /invalid XML/);
  });

  it('reads a DOCTYPE that only names a DTD or declares elements (Burp, Nikto), loading nothing', function () {
    const burp =
      '<?xml version="1.0"?><!DOCTYPE issues [<!ELEMENT issues (issue*)><!ATTLIST issues burpVersion CDATA "">]><issues burpVersion="1"/>';
    expect(parseReport(Buffer.from(burp)).format).to.equal('burp');
    const nikto = '<?xml version="1.0" ?><!DOCTYPE niktoscan SYSTEM "file:///etc/passwd"><niktoscan/>';
    expect(parseReport(Buffer.from(nikto)).findings).to.deep.equal([]);
    rejects('<!DOCTYPE issues [<!ELEMENT issues ANY>]><issues burpVersion="1">&x;</issues>', /invalid XML/);
  });

  it('refuses huge single values without holding them', function () {
    const big = Buffer.alloc(17 << 20, 0x61);
    rejects(
      Buffer.concat([Buffer.from('{"runs": [], "version": "2.1.0", "x": "'), big, Buffer.from('"}')]),
      /longer than 16 MiB/,
    );
    rejects(
      Buffer.concat([Buffer.from('<OWASPZAPReport><site>'), big, Buffer.from('</site></OWASPZAPReport>')]),
      /longer than 16 MiB/,
    );
  });

  it('refuses deeply nested JSON and XML', function () {
    rejects('['.repeat(100_000) + ']'.repeat(100_000), /nested deeper than 128/);
    rejects('<a>'.repeat(10_000) + '</a>'.repeat(10_000), /nested deeper than 128/);
  });

  it('refuses a 0-byte file unless the declared format may be empty', function () {
    rejects('', /empty file/);
    rejects('  \n', /empty file/);
    rejects('', /empty file/, 'sarif');
    expect(parseReport(Buffer.alloc(0), { format: 'nuclei' }).findings).to.have.length(0);
    rejects('null', /JSON null/);
    expect(parseReport(Buffer.from('null'), { format: 'trivy' }).findings).to.have.length(0);
  });

  it('refuses a report of another tool than the one declared', function () {
    const semgrep = fs.readFileSync(path.join(CORPUS, 'defectdojo', 'semgrep', 'one_finding.json'));
    const err = rejects(semgrep, /does not match the declared format.*looks like "semgrep"/, 'trivy');
    expect(err.format).to.equal('trivy');
    rejects(semgrep, /unknown format id "nope"/, 'nope');
  });

  it('reports missing required fields of the generic format', function () {
    rejects('{"findings": [{"title": "x"}]}', /finding #1: required fields are missing: description, severity/);
  });

  it('reports a file that cannot be read', function () {
    expect(() => parseReport(path.join(CORPUS, 'no-such-file.json'))).to.throw(ReportParseError, /cannot read file/);
  });

  it('bounds the licences an SBOM states for a component, and ignores licence entries of the wrong shape', function () {
    const many = Array.from({ length: 1000 }, (_, i) => ({ license: { id: `L-${i}` } }));
    const doc = {
      bomFormat: 'CycloneDX',
      specVersion: '1.5',
      components: [
        { name: 'many', licenses: many },
        {
          name: 'long',
          licenses: [{ expression: 'x'.repeat(1_000_000) }, { expression: 'MIT' }, { expression: 'MIT' }],
        },
        { name: 'odd', licenses: [42, 'MIT', { license: 'MIT' }, { license: { id: { nested: true } } }, null] },
        { name: 'not a list', licenses: { license: { id: 'MIT' } } },
      ],
    };
    const r = parseReport(Buffer.from(JSON.stringify(doc)), { name: 'bom.json' });
    const of = (name: string) => r.components.find((c) => c.name === name)?.licenses;
    expect(of('many')).to.deep.equal(many.slice(0, MAX_LICENSES).map((l) => l.license.id));
    expect(of('long')).to.deep.equal(['x'.repeat(MAX_LICENSE_CHARS), 'MIT']);
    expect(of('odd')).to.equal(undefined);
    expect(of('not a list')).to.equal(undefined);
  });

  it("cuts an SBOM component's name, group, version, type and purl to a bound the dependency index takes", function () {
    const long = 'é'.repeat(100_000);
    const doc = {
      bomFormat: 'CycloneDX',
      specVersion: '1.5',
      components: [{ name: long, group: long, version: long, type: long, purl: long }],
    };
    const [c] = parseReport(Buffer.from(JSON.stringify(doc)), { name: 'bom.json' }).components;
    for (const field of [c.name, c.group, c.version, c.type, c.purl])
      expect(field).to.equal('é'.repeat(MAX_COMPONENT_FIELD_CHARS));
  });

  it('cuts the components of an SPDX SBOM, JSON or tag-value, to the same bounds as CycloneDX', function () {
    const long = 'é'.repeat(100_000);
    const json = {
      spdxVersion: 'SPDX-2.3',
      SPDXID: 'SPDXRef-DOCUMENT',
      packages: [
        {
          SPDXID: 'SPDXRef-p',
          name: long,
          versionInfo: long,
          licenseConcluded: 'x'.repeat(1_000_000),
          externalRefs: [{ referenceCategory: 'PACKAGE-MANAGER', referenceType: 'purl', referenceLocator: long }],
        },
      ],
    };
    const tagValue = [
      'SPDXVersion: SPDX-2.3',
      `PackageName: ${long}`,
      `PackageVersion: ${long}`,
      ...Array.from({ length: 1000 }, (_, i) => `PackageLicenseDeclared: L-${i}`),
    ].join('\n');
    const [fromJson] = parseReport(Buffer.from(JSON.stringify(json)), { name: 'sbom.spdx.json' }).components;
    const [fromText] = parseReport(Buffer.from(tagValue), { name: 'sbom.spdx' }).components;
    for (const field of [fromJson.name, fromJson.version, fromJson.purl, fromText.name, fromText.version])
      expect(field).to.equal('é'.repeat(MAX_COMPONENT_FIELD_CHARS));
    expect(fromJson.licenses).to.deep.equal(['x'.repeat(MAX_LICENSE_CHARS)]);
    expect(fromText.licenses).to.have.length(MAX_LICENSES);
  });
});
