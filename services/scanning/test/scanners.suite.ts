import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { GitServer, requireInfra, startGitServer, SystemUnderTest } from '@bulwark/testkit';
import { scanSetup } from './scanning.suite';

export interface Expected {
  fixture: string;
  findings: { rule: string; file: string; line: number }[];
}

const FIXTURES = path.resolve(__dirname, 'fixtures');
/** Each shipped tool's findings on the fixture repositories, recorded from real runs. */
export const EXPECTED = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'expected.json'), 'utf8')) as Record<
  string,
  Expected
>;
export const TOOL_TYPE: Record<string, number> = { semgrep: 1, gitleaks: 2, bandit: 3, checkov: 4, eslint: 5 };
export const FINAL = ['completed', 'failed', 'stopped'];

export async function waitFor<T>(
  what: string,
  get: () => Promise<T>,
  done: (v: T) => boolean,
  timeoutMs = 300000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await get();
    if (done(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Processes whose command line mentions the scan's workspace: the scanner and anything it started. */
function processesOf(scanId: string): string[] {
  return execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes(`scan-${scanId}`));
}

/**
 * Real scanners end to end: a check of each tool on a deliberately vulnerable fixture repository
 * served by a real Git server, run through the gateway, with the findings the scanner is known to report.
 */
export function scannersSuite(t: SystemUnderTest): void {
  let git: GitServer;

  before(async function () {
    requireInfra(this, 'scanners');
    git = await startGitServer();
    for (const name of new Set(Object.values(EXPECTED).map((e) => e.fixture)))
      git.addRepository(name, path.join(FIXTURES, name));
  });
  after(async () => git?.close());

  const runScan = async (tool: string) => {
    const env = await scanSetup(t, git, EXPECTED[tool].fixture, [TOOL_TYPE[tool]]);
    const check = await t.admin.post('/api/v1/check', {
      layer_id: env.layerId,
      security_tool_id: env.tools[0],
      scan_source_id: env.sourceId,
      tool_settings: {},
      run_scan_task: { type: 'manual' },
      tags: [{ tag_name: 'main' }],
    });
    expect(check.status, JSON.stringify(check.body)).to.equal(200);
    const run = await t.admin.post(`/api/v1/check/${check.body.id}/run`);
    expect(run.status, JSON.stringify(run.body)).to.equal(200);
    expect(run.body.state).to.equal('queued');
    return { checkId: check.body.id as string, scanId: run.body.scan_result_id as string };
  };

  for (const tool of Object.keys(TOOL_TYPE)) {
    it(`${tool}: finds what it is known to find in its fixture`, async () => {
      const { scanId } = await runScan(tool);
      const result = await waitFor(
        'the scan',
        async () => (await t.admin.get(`/api/v1/scan-result/${scanId}`)).body,
        (r) => FINAL.includes(r.state),
      );
      expect(result.state, result.error).to.equal('completed');
      const findings = (await t.admin.get(`/api/v1/scan-result/${scanId}/findings?limit=1000`)).body.items as {
        ruleId: string;
        filePath: string;
        startLine: number;
      }[];
      expect(result.findings_count).to.equal(findings.length);
      const seen = findings.map((f) => `${f.ruleId} ${f.filePath}:${f.startLine}`);
      for (const e of EXPECTED[tool].findings)
        expect(seen, `${e.rule} at ${e.file}:${e.line}`).to.include(`${e.rule} ${e.file}:${e.line}`);
      expect(processesOf(scanId)).to.deep.equal([]);
    });
  }

  it('refuses a second run while a scan is in flight, and stop kills the running scanner and cleans its workspace', async () => {
    const { checkId, scanId } = await runScan('checkov');
    await waitFor(
      'the scanner to run',
      async () => (await t.admin.get(`/api/v1/scan-result/${scanId}`)).body,
      (r) => r.stage === 'scan' || FINAL.includes(r.state),
    );
    await waitFor(
      'the scanner process',
      async () => processesOf(scanId),
      (p) => p.length > 0,
      60000,
    );
    const again = await t.admin.post(`/api/v1/check/${checkId}/run`);
    expect(again.status).to.equal(409);
    expect(again.body.error.message).to.contain(scanId);
    const stopped = await t.admin.post(`/api/v1/check/${checkId}/stop`);
    expect(stopped.status, JSON.stringify(stopped.body)).to.equal(200);
    expect(stopped.body.state).to.equal('stopped');
    await waitFor(
      'the scanner to be gone',
      async () => processesOf(scanId),
      (p) => p.length === 0,
      30000,
    );
    const scanDirs = fs
      .readdirSync(path.join(os.tmpdir(), 'bulwark-scans'))
      .filter((d) => d.startsWith(`scan-${scanId}`));
    expect(scanDirs).to.deep.equal([]);
  });

  // Only the scaled mode has a scanning process to kill apart from the test itself.
  if (t.mode === 'scaled')
    it('leaves no scan running forever when the scanning process is killed mid-scan, and no orphaned scanner', async () => {
      const { scanId } = await runScan('checkov');
      await waitFor(
        'the scanner to run',
        async () => (await t.admin.get(`/api/v1/scan-result/${scanId}`)).body,
        (r) => r.stage === 'scan' || FINAL.includes(r.state),
      );
      await t.sys.crashAndRestart!('services');
      const result = await waitFor(
        'the scan to end after the crash',
        async () => (await t.admin.get(`/api/v1/scan-result/${scanId}`)).body,
        (r) => FINAL.includes(r.state),
        300000,
      );
      expect(result.state, result.error).to.equal('completed');
      expect(processesOf(scanId)).to.deep.equal([]);
    });
}
