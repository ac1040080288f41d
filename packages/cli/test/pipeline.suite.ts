import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { SaxesParser } from 'saxes';
import { parse as parseYaml } from 'yaml';
import { gateOnHighs, type Json, manualCheck, projectWithSource, type SystemUnderTest } from '@bulwark/testkit';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const CLI = path.join(ROOT, 'packages', 'cli', 'dist', 'main.js');
const MANUAL_TOOL_TYPE = 20;

/** Semgrep's SARIF as `semgrep scan --sarif` writes it, with the given eval() lines. */
function semgrepSarif(lines: number[], file = 'app.py'): string {
  const rule = 'python.lang.security.audit.eval-detected';
  return JSON.stringify({
    version: '2.1.0',
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    runs: [
      {
        tool: {
          driver: {
            name: 'Semgrep OSS',
            semanticVersion: '1.100.0',
            rules: [
              {
                id: rule,
                name: rule,
                shortDescription: { text: 'eval detected' },
                defaultConfiguration: { level: 'error' },
                properties: { tags: ['CWE-95'], 'security-severity': '7.5' },
              },
            ],
          },
        },
        results: lines.map((line) => ({
          ruleId: rule,
          level: 'error',
          message: { text: 'Detected eval' },
          locations: [
            {
              physicalLocation: {
                artifactLocation: { uri: file, uriBaseId: '%SRCROOT%' },
                region: { startLine: line, snippet: { text: `eval(x${line})` } },
              },
            },
          ],
        })),
      },
    ],
  });
}

/** The `bulwark …` command lines of a CI example, in the order its jobs run them. */
function exampleCommands(file: string): string[] {
  const doc = parseYaml(fs.readFileSync(path.join(ROOT, 'docs', 'ci', file), 'utf8')) as Record<string, Json>;
  const lines: string[] = [];
  const jobs = doc.jobs
    ? Object.values(doc.jobs as Record<string, Json>)
    : Object.values(doc).filter((v) => v && typeof v === 'object' && !Array.isArray(v));
  for (const job of jobs) {
    const steps: string[] = job.steps
      ? job.steps.map((s: { run?: string }) => s.run).filter(Boolean)
      : [...(job.script ?? []), ...(job.after_script ?? [])];
    lines.push(...steps.filter((l) => /^bulwark /.test(l)));
  }
  return lines;
}

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command without blocking: in the one-process run mode Bulwark answers from this very
 * process, so a synchronous spawn would wait for a server it keeps from running.
 */
function run(command: string, args: string[], options: { cwd?: string; env: Record<string, string> }): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), 300_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Runs one command line of an example in a shell, with `bulwark` on PATH as the image has it. */
function runLine(line: string, cwd: string, env: Record<string, string>): Promise<Ran> {
  const bin = path.join(cwd, 'bin');
  fs.mkdirSync(bin, { recursive: true });
  if (!fs.existsSync(path.join(bin, 'bulwark'))) fs.symlinkSync(CLI, path.join(bin, 'bulwark'));
  return run('bash', ['-c', line], { cwd, env: { PATH: `${bin}:${process.env.PATH}`, HOME: cwd, ...env } });
}

/** The elements of an XML document with their attributes and text, in document order; throws when it is not well-formed. */
function xmlElements(text: string): { name: string; attributes: Record<string, string>; text: string }[] {
  const parser = new SaxesParser();
  const out: { name: string; attributes: Record<string, string>; text: string }[] = [];
  const open: { name: string; attributes: Record<string, string>; text: string }[] = [];
  parser.on('opentag', (tag) => {
    const el = { name: tag.name, attributes: tag.attributes as Record<string, string>, text: '' };
    out.push(el);
    open.push(el);
  });
  parser.on('text', (t) => open.length && (open[open.length - 1].text += t));
  parser.on('closetag', () => open.pop());
  parser.write(text).close();
  return out;
}

function cli(args: string[], env: Record<string, string>): Promise<Ran> {
  return run(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? '', ...env } });
}

export function cliPipelineSuite(t: SystemUnderTest): void {
  let env: Record<string, string>;
  let work: string;
  let checkId: string;
  let code: string;
  const ok = (res: { status: number; body: Json }) => {
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body;
  };

  before(async function () {
    this.timeout(60_000);
    code = `cli-${Math.random().toString(36).slice(2, 8)}`;
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-ci-'));
    const setup = await projectWithSource(t.admin, {
      code,
      sourceUrl: 'https://git.example.com/app.git',
      toolTypes: [MANUAL_TOOL_TYPE],
    });
    checkId = await manualCheck(t.admin, setup);
    await gateOnHighs(t.admin, setup.layerId, `no high ${code}`, 'lock');
    const token = ok(
      await t.admin.post('/api/v1/token', {
        name: `ci ${code}`,
        expires_at: new Date(Date.now() + 86_400_000).toISOString(),
      }),
    ).token as string;
    env = { BULWARK_URL: t.admin.baseUrl, BULWARK_TOKEN: token, BULWARK_CHECK_ID: checkId, BULWARK_PROJECT: code };
  });
  after(() => fs.rmSync(work, { recursive: true, force: true }));

  for (const example of ['github-actions.yml', 'gitlab-ci.yml']) {
    it(`runs the ${example} example: a failing gate fails the job, a clean report passes it`, async function () {
      this.timeout(240_000);
      const [upload, ...rest] = exampleCommands(example);
      expect(upload).to.match(/^bulwark upload /);

      fs.writeFileSync(path.join(work, 'semgrep.sarif'), semgrepSarif([3, 9]));
      const failing = await runLine(upload, work, env);
      expect(failing.code, failing.stderr).to.equal(1);
      expect(failing.stdout).to.match(/2 findings \(high 2\)/);
      expect(failing.stdout).to.contain('quality gate: failed (the layer is locked)');
      expect(failing.stdout).to.match(/FAIL {2}severity high not_greater_than 0: measured \d+/);

      for (const line of rest) {
        const r = await runLine(line, work, env);
        expect(r.code, r.stderr).to.equal(0);
      }
      if (rest.length)
        expect(fs.readFileSync(path.join(work, 'bulwark.md'), 'utf8')).to.contain(
          '| high | Detected eval | app.py:3 |',
        );
      if (upload.includes('--junit'))
        expect(
          xmlElements(fs.readFileSync(path.join(work, 'bulwark.xml'), 'utf8'))[0].attributes.failures,
        ).to.not.equal('0');

      fs.writeFileSync(path.join(work, 'semgrep.sarif'), semgrepSarif([]));
      const passing = await runLine(upload, work, env);
      expect(passing.code, passing.stderr + passing.stdout).to.equal(0);
      expect(passing.stdout).to.match(/new 0, unchanged 0, fixed 2 \(high 2\)/);
      expect(passing.stdout).to.contain('quality gate: passed');
      expect(passing.stdout).to.match(/pass {2}severity high not_greater_than 0: measured 0/);
    });
  }

  it('reads a verdict again, lists issues as CSV and JSON, and answers with documented exit codes', async function () {
    this.timeout(120_000);
    const report = path.join(work, 'one.sarif');
    fs.writeFileSync(report, semgrepSarif([42], 'new.py'));
    const uploaded = await cli(['upload', '--check', checkId, report, '--wait'], env);
    // --wait without --fail-on-gate reports the failed gate but does not fail.
    expect(uploaded.code, uploaded.stderr).to.equal(0);
    const scanId = /scan ([0-9a-f-]{36}) \(/.exec(uploaded.stdout)![1];
    const junit = path.join(work, 'bulwark.xml');
    const gate = await cli(['gate', '--scan-result', scanId, '--junit', junit], env);
    expect(gate.code).to.equal(1);
    expect(gate.stdout).to.contain('quality gate: failed');
    const elements = xmlElements(fs.readFileSync(junit, 'utf8'));
    const cases = elements.filter((e) => e.name === 'testcase');
    const gateCase = cases.find((c) => c.attributes.classname.startsWith('quality gate.'))!;
    expect(gateCase.attributes.name).to.equal('severity high not_greater_than 0');
    const newCase = cases.find((c) => c.attributes.classname.startsWith('new issue.'))!;
    expect(newCase.attributes).to.include({ name: 'high: Detected eval (new.py:42)', file: 'new.py' });
    expect(elements.filter((e) => e.name === 'failure').map((f) => f.attributes.type)).to.have.members([
      'quality-gate',
      'high',
    ]);
    expect(elements[0].attributes).to.include({ tests: String(cases.length), failures: '2' });

    const csv = await cli(['issues', '--project', code, '--format', 'csv', '--severity', 'high'], env);
    expect(csv.code, csv.stderr).to.equal(0);
    const rows = csv.stdout.trimEnd().split('\r\n');
    expect(rows[0]).to.match(/^id,severity,status,title,/);
    expect(rows.slice(1).some((r) => r.includes('new.py'))).to.equal(true);
    const json = JSON.parse((await cli(['issues', '--project', code, '--max', '1'], env)).stdout);
    expect(json).to.have.length(1);
    const sarif = JSON.parse((await cli(['issues', '--project', code, '--format', 'sarif'], env)).stdout);
    expect(sarif.version).to.equal('2.1.0');
    expect(
      sarif.runs[0].results.map(
        (r: { locations: { physicalLocation: { region: { startLine: number } } }[] }) =>
          r.locations[0].physicalLocation.region.startLine,
      ),
    ).to.include(42);

    expect((await cli(['upload', '--check', checkId, report], { ...env, BULWARK_TOKEN: 'not-a-token' })).code).to.equal(
      2,
    );
    expect((await cli(['upload', '--check', checkId, report], { BULWARK_URL: env.BULWARK_URL })).code).to.equal(2);
    expect((await cli(['upload', '--check', '00000000-0000-4000-8000-000000000000', report], env)).code).to.equal(2);
    expect((await cli(['upload', '--check', checkId, path.join(work, 'missing.sarif')], env)).code).to.equal(2);
    const garbage = path.join(work, 'garbage.txt');
    fs.writeFileSync(garbage, 'not a report');
    const refused = await cli(['upload', '--check', checkId, garbage], env);
    expect(refused.code).to.equal(2);
    expect(refused.stderr).to.match(/^bulwark: POST \/api\/v1\/check\/[0-9a-f-]+\/results \(garbage\.txt\): /);
    expect(
      (await cli(['upload', '--check', checkId, report], { ...env, BULWARK_URL: 'http://127.0.0.1:9' })).code,
    ).to.equal(3);
  });
}
