import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { GitServer, requireInfra, startGitServer, SystemUnderTest } from '@bulwark/testkit';
import { HOSTILE_RULE, markersIn, writeHostileRepository } from './hostile-repository';
import { EXPECTED, FINAL, TOOL_TYPE, waitFor } from './scanners.suite';
import { scanSetup } from './scanning.suite';

/**
 * Every shipped CLI tool type, through the gateway with the default runner and sandbox, on a hostile
 * repository served by a real Git server: configuration files that would run its code (writing a
 * marker, reading a secret, connecting to a listener of this test, dumping the environment) or turn
 * the rules off, and symbolic links to a secret file outside the checkout. None of it may succeed.
 */
export function hostileRepositorySuite(t: SystemUnderTest): void {
  let git: GitServer;
  let root: string;
  let markerDir: string;
  let listener: net.Server;
  let connections = 0;
  let env: Awaited<ReturnType<typeof scanSetup>>;
  const secret = `hostile-secret-${randomBytes(12).toString('hex')}`;
  const envSecret = `hostile-env-${randomBytes(12).toString('hex')}`;

  before(async function () {
    requireInfra(this, 'scanners');
    // Reachable by any user of this host: only the sandbox stands between the scanners and these.
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-hostile-'));
    fs.chmodSync(root, 0o755);
    markerDir = path.join(root, 'markers');
    fs.mkdirSync(markerDir, { mode: 0o777 });
    fs.chmodSync(markerDir, 0o777);
    const secretFile = path.join(root, 'data', 'secrets', 'master-key');
    fs.mkdirSync(path.dirname(secretFile), { recursive: true, mode: 0o755 });
    fs.writeFileSync(secretFile, `password = "${secret}"\n`, { mode: 0o644 });
    // Whatever inherits this process's environment would carry it.
    process.env.BULWARK_HOSTILE_TEST_SECRET = envSecret;
    listener = net.createServer((s) => {
      connections++;
      s.destroy();
    });
    await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));
    const repo = path.join(root, 'repository');
    writeHostileRepository(
      repo,
      { markerDir, secretFile, port: (listener.address() as net.AddressInfo).port },
      { links: true },
    );
    git = await startGitServer();
    git.addRepository('hostile', repo);
    env = await scanSetup(t, git, 'hostile', Object.values(TOOL_TYPE));
  });
  after(async () => {
    delete process.env.BULWARK_HOSTILE_TEST_SECRET;
    await git?.close();
    await new Promise((r) => (listener ? listener.close(r) : r(undefined)));
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  for (const [tool, typeId] of Object.entries(TOOL_TYPE)) {
    it(`${tool}: the repository runs no code, reads no secret, reaches nothing, and changes no rule`, async () => {
      const check = await t.admin.post('/api/v1/check', {
        layer_id: env.layerId,
        security_tool_id: env.tools[Object.values(TOOL_TYPE).indexOf(typeId)],
        scan_source_id: env.sourceId,
        tool_settings: {},
        run_scan_task: { type: 'manual' },
        tags: [{ tag_name: 'main' }],
      });
      expect(check.status, JSON.stringify(check.body)).to.equal(200);
      const run = await t.admin.post(`/api/v1/check/${check.body.id}/run`);
      expect(run.status, JSON.stringify(run.body)).to.equal(200);
      const scanId = run.body.scan_result_id as string;
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
      const report = await t.admin.get(`/api/v1/scan-result/${scanId}/report`);
      expect(report.status).to.equal(200);

      expect(markersIn(markerDir)).to.deep.equal([]);
      expect(connections).to.equal(0);
      const everything = JSON.stringify([result, findings, report.body]);
      expect(everything).not.to.contain(secret);
      expect(everything).not.to.contain(envSecret);
      // The repository's settings were ignored: the known findings are there, its own rule is not.
      const seen = findings.map((f) => `${f.ruleId} ${f.filePath}:${f.startLine}`);
      for (const e of EXPECTED[tool].findings)
        expect(seen, `${e.rule} at ${e.file}:${e.line}`).to.include(`${e.rule} ${e.file}:${e.line}`);
      expect(findings.map((f) => f.ruleId)).not.to.include(HOSTILE_RULE);
    });
  }

  it("refuses extra_args outside the tool type's allow-list with 400 naming the argument, on tools and on checks", async () => {
    const tool = await t.admin.post('/api/v1/tool', {
      description: 'semgrep',
      type_id: TOOL_TYPE.semgrep,
      settings: { extra_args: ['--severity', 'ERROR', '--config', 'checks/'] },
    });
    expect(tool.status, JSON.stringify(tool.body)).to.equal(400);
    expect(tool.body.error.details.map((d: { field: string }) => d.field)).to.deep.equal(['settings.extra_args[2]']);
    const allowed = await t.admin.post('/api/v1/tool', {
      description: 'semgrep',
      type_id: TOOL_TYPE.semgrep,
      settings: { extra_args: ['--severity=ERROR', '--exclude', 'tests/**'] },
    });
    expect(allowed.status, JSON.stringify(allowed.body)).to.equal(200);
    const check = await t.admin.post('/api/v1/check', {
      layer_id: env.layerId,
      security_tool_id: env.tools[Object.values(TOOL_TYPE).indexOf(TOOL_TYPE.checkov)],
      scan_source_id: env.sourceId,
      tool_settings: { extra_args: ['--external-checks-dir=checks'] },
      run_scan_task: { type: 'manual' },
    });
    expect(check.status, JSON.stringify(check.body)).to.equal(400);
    expect(check.body.error.details.map((d: { field: string }) => d.field)).to.deep.equal([
      'tool_settings.extra_args[0]',
    ]);
  });
}
