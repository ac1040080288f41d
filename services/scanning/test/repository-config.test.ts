import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { TOOL_TYPES } from '@bulwark/contracts';
import { requireInfra } from '@bulwark/testkit';
import { LocalProcessRunner } from '../src/runner/local-process';
import { ScannerSandbox } from '../src/runner/sandbox';
import { importScanReport } from '../src/scans/report-import';
import { FIXTURES, HOSTILE_RULE, markersIn, writeHostileRepository } from './hostile-repository';

const EXPECTED = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'expected.json'), 'utf8')) as Record<
  string,
  { findings: { rule: string; file: string; line: number }[] }
>;
const TOOLS: Record<string, string> = {
  semgrep: 'Semgrep',
  gitleaks: 'Gitleaks',
  bandit: 'Bandit',
  checkov: 'Checkov',
  eslint: 'ESLint security',
};
const RULES_DIR = path.resolve(__dirname, '..', 'rules');
const SECRET = 'repository-config-test-secret';

/**
 * The shipped command lines alone, without the sandbox (SCAN_SANDBOX=none): the real scanners on a
 * repository whose configuration files try to run its code and to turn the rules off, and whose links
 * lead to a secret outside it. Nothing of it may take effect: no marker written, every known finding
 * still reported, no rule of the repository, no secret in the report.
 */
describe('scanner configuration from the scanned repository (real scanners, no sandbox)', function () {
  let root: string;
  let markerDir: string;
  let secretFile: string;
  let runner: LocalProcessRunner;

  before(async function () {
    const { scannerPath } = requireInfra(this, 'scanners');
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-repo-config-'));
    markerDir = path.join(root, 'markers');
    fs.mkdirSync(markerDir);
    secretFile = path.join(root, 'data', 'secrets', 'master-key');
    fs.mkdirSync(path.dirname(secretFile), { recursive: true });
    fs.writeFileSync(secretFile, `password = "${SECRET}"\n`);
    const sandbox = await ScannerSandbox.open(
      {
        mode: 'none',
        uid: 65534,
        gid: 65534,
        limits: { cpuSeconds: 1, memoryBytes: 1, processes: 1, fileSizeBytes: 1, openFiles: 1 },
        readOnlyPaths: [],
        hiddenPaths: [],
      },
      root,
    );
    runner = new LocalProcessRunner(scannerPath.split(path.delimiter), 4 * 1024 * 1024, sandbox);
  });
  after(() => root && fs.rmSync(root, { recursive: true, force: true }));

  for (const [key, name] of Object.entries(TOOLS)) {
    it(`${name}: ignores the repository's configuration and runs none of its code`, async () => {
      const scanDir = fs.mkdtempSync(path.join(root, 'scan-'));
      const workspace = path.join(scanDir, 'src');
      const resultDir = path.join(scanDir, 'out');
      fs.mkdirSync(resultDir);
      writeHostileRepository(workspace, { markerDir, secretFile, port: 9 }, { links: true });
      const tool = TOOL_TYPES.find((t) => t.name === name)!;
      const outcome = await runner.run(
        { scanId: key, tool, scanDir, workspace, resultDir, rulesDir: RULES_DIR, timeoutMs: 600000, extraArgs: [] },
        new AbortController().signal,
      );
      const findings = importScanReport(outcome.reportPath, { format: tool.resultFormat, workspace }).findings;
      expect(markersIn(markerDir), outcome.log).to.deep.equal([]);
      const seen = findings.map((f) => `${f.ruleId} ${f.filePath}:${f.startLine}`);
      for (const e of EXPECTED[key].findings)
        expect(seen, `${e.rule} at ${e.file}:${e.line}`).to.include(`${e.rule} ${e.file}:${e.line}`);
      expect(findings.map((f) => f.ruleId)).not.to.include(HOSTILE_RULE);
      // Links out of the checkout were removed before the scanner ran: it quoted nothing through them.
      expect(fs.readFileSync(outcome.reportPath, 'utf8')).not.to.contain(SECRET);
    });
  }
});
