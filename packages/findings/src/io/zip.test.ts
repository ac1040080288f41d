import { expect } from 'chai';
import { strToU8, zipSync } from 'fflate';
import { parseReport, ReportParseError } from '../index';
import { InputError } from '../errors';
import { BufferSource } from './source';
import { ZipArchive } from './zip';

function zip(files: Record<string, string | Uint8Array>): Buffer {
  const entries = Object.fromEntries(
    Object.entries(files).map(([k, v]) => [k, typeof v === 'string' ? strToU8(v) : v]),
  );
  return Buffer.from(zipSync(entries));
}

function refused(buf: Buffer, pattern: RegExp): void {
  expect(() => parseReport(buf, { name: 'report.zip' })).to.throw(ReportParseError, pattern);
}

const SECURITY_HEADER =
  'Project id,Version id,Project name,Version,Vulnerability id,Description,Base score,Remediation status,Security Risk\n';

describe('zip archives', function () {
  it('reads a Black Duck archive with its report in a folder and a dated name', function () {
    const buf = zip({
      'proj_1.0/security_2024-01-01_120000.csv': `${SECURITY_HEADER}c1,v1,Lodash,4.17.15,CVE-2021-23337,Command injection,7.2,NEW,HIGH\n`,
    });
    const { format, findings } = parseReport(buf);
    expect(format).to.equal('blackduck-zip');
    expect(findings).to.have.length(1);
    expect(findings[0].library).to.include({ name: 'Lodash', version: '4.17.15' });
    expect(findings[0].vulnerabilityIds).to.deep.equal(['CVE-2021-23337']);
  });

  it('reads an empty Black Duck security report as no findings', function () {
    expect(parseReport(zip({ 'security.csv': '', 'files.csv': '' })).findings).to.deep.equal([]);
  });

  it('reads a Fortify .fpr whose FVDL has no vulnerabilities as no findings', function () {
    const { format, findings } = parseReport(
      zip({ 'audit.fvdl': '<FVDL xmlns="xmlns://www.fortifysoftware.com/schema/fvdl"><Vulnerabilities/></FVDL>' }),
    );
    expect(format).to.equal('fortify-fpr');
    expect(findings).to.deep.equal([]);
  });

  it('refuses entries with parent or absolute paths', function () {
    refused(zip({ '../evil.csv': 'x' }), /parent path/);
    refused(zip({ '/etc/passwd': 'x' }), /absolute or parent path/);
  });

  it('refuses an entry that inflates far beyond its compressed size (zip bomb)', function () {
    refused(zip({ 'security.csv': new Uint8Array(2 << 20) }), /compresses more than 200:1/);
  });

  it('refuses archives over the entry count and uncompressed size limits before inflating', function () {
    const many = zip(Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`f${i}.csv`, 'a,b\n'])));
    const limits = {
      maxArchiveBytes: 1 << 20,
      maxEntries: 10,
      maxEntryBytes: 1 << 20,
      maxTotalBytes: 1 << 20,
      maxRatio: 200,
    };
    expect(() => new ZipArchive(new BufferSource(many), limits)).to.throw(InputError, /more than 10 entries/);
    const big = zip({ 'a.csv': 'x'.repeat(4096), 'b.csv': 'y'.repeat(4096) });
    expect(() => new ZipArchive(new BufferSource(big), { ...limits, maxTotalBytes: 6000 })).to.throw(
      InputError,
      /uncompressed/,
    );
  });

  it('refuses a zip of no known format, and a truncated archive', function () {
    refused(zip({ 'readme.txt': 'hello' }), /no known format/);
    const buf = zip({ 'security.csv': SECURITY_HEADER });
    refused(buf.subarray(0, buf.length - 30), /invalid zip archive/);
  });
});
