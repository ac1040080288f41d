import { expect } from 'chai';
import { execSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const MAIN = path.join(ROOT, 'packages', 'cli', 'dist', 'main.js');
const DD = path.resolve(ROOT, '..', 'shared', 'corpus', 'defectdojo');

function bulwark(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [MAIN, ...args], { cwd: ROOT, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('bulwark CLI', function () {
  this.timeout(180_000);

  before(function () {
    execSync('npx turbo run build --filter=@bulwark/cli...', { cwd: ROOT, stdio: 'ignore' });
  });

  it('lists the format ids', function () {
    const r = bulwark('formats');
    expect(r.code).to.equal(0);
    const ids = r.stdout
      .trim()
      .split('\n')
      .map((l) => l.split(/\s+/)[0]);
    expect(ids).to.include.members([
      'sarif',
      'cyclonedx-json',
      'cyclonedx-xml',
      'trivy',
      'zap',
      'generic-json',
      'generic-csv',
    ]);
    expect(ids.length).to.be.at.least(20);
    expect(r.stdout).to.match(/^nmap\s+Nmap XML.*\(tested with Nmap 6\.40 and 7\.60/m);
  });

  it('counts the distinct findings of one import', function () {
    const r = bulwark('parse', path.join(DD, 'semgrep', 'repeated_findings.json'), '--count');
    expect(r.code).to.equal(0);
    expect(r.stdout).to.equal('1\n');
    expect(bulwark('parse', path.join(DD, 'trufflehog', 'v2_many_vulns.json'), '--count').stdout).to.equal('18\n');
  });

  it('prints JSON lines of findings, with the summary on stderr', function () {
    const r = bulwark('parse', path.join(DD, 'bandit', 'dd.json'), '--json');
    expect(r.code).to.equal(0);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).to.have.length(47);
    expect(lines[0]).to.include({ tool: 'bandit', severity: 'medium', filePath: 'dojo/tools/acunetix/parser.py' });
    expect(lines[0].fingerprint).to.match(/^[0-9a-f]{64}$/);
    expect(r.stderr.trim().split('\n')).to.have.length(1);
    expect(r.stderr).to.match(/bandit, 47 findings/);
  });

  it('prints readable findings and a one-line summary', function () {
    const r = bulwark('parse', path.join(DD, 'zap', 'zap-xml-plus-format.xml'));
    expect(r.code).to.equal(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).to.have.length(2);
    expect(lines[0]).to.match(/^MEDIUM\s+zap\s+90028\s+http:\/\/localhost:8080\/.*Insecure HTTP Method - PUT$/);
    expect(lines[1]).to.match(/zap, 1 findings from 1 records/);
  });

  it('accepts a declared format and refuses a mismatching one with exit code 2', function () {
    const file = path.join(DD, 'semgrep', 'one_finding.json');
    expect(bulwark('parse', file, '--format', 'semgrep', '--count').stdout).to.equal('1\n');
    const r = bulwark('parse', file, '--format=trivy');
    expect(r.code).to.equal(2);
    expect(r.stdout).to.equal('');
    expect(r.stderr.trim().split('\n')).to.have.length(1);
    expect(r.stderr).to.include(file).and.include('format: trivy').and.include('looks like "semgrep"');
  });

  it('names the file, the detected format and the problem for invalid input', function () {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-cli-'));
    try {
      const truncated = path.join(dir, 'truncated.json');
      fs.writeFileSync(truncated, fs.readFileSync(path.join(DD, 'sarif', 'flawfinder.sarif')).subarray(0, 4000));
      const r = bulwark('parse', truncated);
      expect(r.code).to.equal(2);
      expect(r.stderr).to.match(
        new RegExp(
          `cannot parse ${truncated.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(format: not detected\\): truncated JSON`,
        ),
      );

      const generic = bulwark('parse', path.join(DD, 'generic', 'generic_empty.json'));
      expect(generic.code).to.equal(2);
      expect(generic.stderr).to.match(/\(format: generic-json\): finding #1: required fields are missing/);

      const empty = path.join(dir, 'empty.json');
      fs.writeFileSync(empty, '');
      expect(bulwark('parse', empty).stderr).to.match(/empty file/);
      expect(bulwark('parse', empty, '--format', 'nuclei', '--count').stdout).to.equal('0\n');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('exits with 2 on bad usage', function () {
    expect(bulwark().code).to.equal(2);
    expect(bulwark('parse').code).to.equal(2);
    expect(bulwark('parse', 'a', 'b').code).to.equal(2);
    expect(bulwark('parse', 'x.json', '--frobnicate').stderr).to.match(/unknown option --frobnicate/);
    expect(bulwark('parse', path.join(DD, 'bandit', 'dd.json'), '--format', 'nope').stderr).to.match(
      /unknown format id "nope"/,
    );
  });
});
