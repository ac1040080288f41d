import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { runProcess } from '@bulwark/platform';
import { TOOL_TYPES } from '@bulwark/contracts';
import { inCI } from '@bulwark/testkit';
import { readScanningConfig } from '../src/config';
import { LocalProcessRunner } from '../src/runner/local-process';
import { SandboxLimits, SandboxSettings, ScannerSandbox } from '../src/runner/sandbox';
import { ScanJob } from '../src/runner/scan-runner';

// Node.js reserves about 1 GiB of address space at start; the tests' scripts run on it.
const LIMITS: SandboxLimits = {
  cpuSeconds: 60,
  memoryBytes: 4096 * 1024 * 1024,
  processes: 256,
  fileSizeBytes: 1024 * 1024,
  openFiles: 256,
};

/**
 * The scanner sandbox itself, on this host's bubblewrap: small Node.js and shell scripts run as a
 * scanner would and try what a hostile repository's code would.
 */
describe('scanner sandbox (bubblewrap)', function () {
  let root: string;
  let dataDir: string;
  let scanDir: string;
  let workspace: string;
  let resultDir: string;
  let sandbox: ScannerSandbox;

  const open = (over: Partial<SandboxSettings> = {}) =>
    ScannerSandbox.open(
      { mode: 'bwrap', uid: 65534, gid: 65534, limits: LIMITS, readOnlyPaths: [], hiddenPaths: [dataDir], ...over },
      root,
    );

  /** Runs a Node.js script in the sandbox as a scanner run of the local runner would be. */
  const run = async (box: ScannerSandbox, binary: string, argv: string[], env: Record<string, string> = {}) => {
    box.prepare([workspace, resultDir]);
    const plan = box.plan({
      binary,
      argv,
      env: { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8', ...env },
      cwd: workspace,
      readOnly: [workspace],
      writable: [resultDir],
    });
    return runProcess(plan.binary, plan.argv, { env: plan.env, cwd: plan.cwd, timeoutMs: 120000 });
  };
  const node = (script: string, box = sandbox, env: Record<string, string> = {}) =>
    run(box, process.execPath, ['-e', script], env);

  before(async function () {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-sandbox-test-'));
    dataDir = path.join(root, 'data');
    fs.mkdirSync(path.join(dataDir, 'secrets'), { recursive: true });
    fs.writeFileSync(path.join(dataDir, 'secrets', 'master-key'), 'data-dir-secret-value');
    sandbox = await open();
    if (sandbox.problem) {
      const message = `the scanner sandbox does not work here (${sandbox.problem}): "bash deploy/local/scanners.sh install"`;
      if (inCI()) throw new Error(message);
      console.log(`      [left out] ${message}`);
      this.skip();
    }
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  beforeEach(() => {
    scanDir = fs.mkdtempSync(path.join(root, 'scan-'));
    workspace = path.join(scanDir, 'src');
    resultDir = path.join(scanDir, 'out');
    fs.mkdirSync(workspace);
    fs.mkdirSync(resultDir, { mode: 0o700 });
    fs.writeFileSync(path.join(workspace, 'app.py'), 'print("hello")\n');
  });

  it('runs a script that reads the workspace and writes its report to the result folder', async () => {
    const res = await node(
      `const fs = require('fs'); fs.writeFileSync(${JSON.stringify(path.join(resultDir, 'report.json'))}, fs.readFileSync('app.py'))`,
    );
    expect(res.code, res.stderr).to.equal(0);
    expect(fs.readFileSync(path.join(resultDir, 'report.json'), 'utf8')).to.equal('print("hello")\n');
  });

  it("has no network: a listener on this host's loopback sees no connection", async () => {
    let connections = 0;
    const listener = net.createServer((s) => {
      connections++;
      s.destroy();
    });
    await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));
    const port = (listener.address() as net.AddressInfo).port;
    try {
      const res = await node(
        `require('net').connect(${port}, '127.0.0.1').on('connect', () => { console.log('connected'); process.exit(0) }).on('error', (e) => { console.log(e.code); process.exit(3) })`,
      );
      expect(res.stdout.trim()).to.equal('ECONNREFUSED');
      expect(res.code).to.equal(3);
      const interfaces = await node(`console.log(Object.keys(require('os').networkInterfaces()).join(','))`);
      expect(interfaces.stdout.trim()).to.equal('lo');
    } finally {
      await new Promise((r) => listener.close(r));
    }
    expect(connections).to.equal(0);
  });

  it("cannot see the data directory, other folders of the host, or the host's processes", async () => {
    const res = await node(`
      const fs = require('fs');
      const tryRead = (p) => { try { return fs.readFileSync(p, 'utf8'); } catch (e) { return e.code; } };
      console.log(JSON.stringify({
        secret: tryRead(${JSON.stringify(path.join(dataDir, 'secrets', 'master-key'))}),
        root: fs.readdirSync('/').sort(),
        tmp: fs.readdirSync('/tmp').sort(),
        pids: fs.readdirSync('/proc').filter((p) => /^\\d+$/.test(p)).length,
        hostPid: fs.existsSync('/proc/${process.pid}/environ') && tryRead('/proc/${process.pid}/environ'),
        uid: process.getuid(),
      }));`);
    expect(res.code, res.stderr).to.equal(0);
    const seen = JSON.parse(res.stdout);
    expect(seen.secret).to.equal('ENOENT');
    expect(res.stdout).not.to.contain('data-dir-secret-value');
    // Only the system, the sandbox's own /proc, /dev and /tmp, and the folders bound on purpose (this Node.js).
    const visible = [
      'bin',
      'dev',
      'etc',
      'lib',
      'lib32',
      'lib64',
      'libx32',
      'proc',
      'sbin',
      'tmp',
      'usr',
      process.execPath.split('/')[1],
    ];
    expect(seen.root.filter((d: string) => !visible.includes(d))).to.deep.equal([]);
    expect(seen.tmp).to.include('home');
    expect(seen.pids).to.be.below(5);
    expect(seen.hostPid).to.not.be.a('string');
    if (process.getuid?.() === 0) expect(seen.uid).to.equal(65534);
  });

  it("cannot write outside the result folder: not the workspace, the system, or this host's /tmp", async () => {
    const outside = path.join(root, 'written-from-the-sandbox');
    const res = await node(`
      const fs = require('fs');
      const tryWrite = (p) => { try { fs.writeFileSync(p, 'x'); return 'written'; } catch (e) { return e.code; } };
      console.log(JSON.stringify({
        workspace: tryWrite('app.py'), usr: tryWrite('/usr/bulwark-test'), etc: tryWrite('/etc/passwd'),
        hostTmp: tryWrite(${JSON.stringify(outside)}), privateTmp: tryWrite('/tmp/scratch'), home: tryWrite(process.env.HOME + '/.cache'),
      }));`);
    expect(res.code, res.stderr).to.equal(0);
    const wrote = JSON.parse(res.stdout);
    expect(wrote.workspace).to.equal('EROFS');
    expect(wrote.usr).to.equal('EROFS');
    expect(wrote.etc).to.be.oneOf(['EROFS', 'EACCES']);
    expect(wrote.privateTmp).to.equal('written');
    expect(wrote.home).to.equal('written');
    expect(fs.existsSync(outside)).to.equal(false);
    expect(fs.readFileSync(path.join(workspace, 'app.py'), 'utf8')).to.equal('print("hello")\n');
  });

  it('passes the allow-listed environment only', async () => {
    const res = await node('console.log(JSON.stringify(process.env))', sandbox, {
      CKV_SKIP_PACKAGE_UPDATE_CHECK: 'true',
    });
    expect(res.code, res.stderr).to.equal(0);
    // bwrap sets PWD to the working directory it changed to.
    expect(Object.keys(JSON.parse(res.stdout)).sort()).to.deep.equal([
      'CKV_SKIP_PACKAGE_UPDATE_CHECK',
      'HOME',
      'LANG',
      'PATH',
      'PWD',
    ]);
    expect(JSON.parse(res.stdout).PWD).to.equal(workspace);
    expect(JSON.parse(res.stdout).HOME).to.equal('/tmp/home');
  });

  it('applies the file size limit: a report beyond it is cut off and the tool killed', async () => {
    const res = await node(
      `require('fs').writeFileSync(${JSON.stringify(path.join(resultDir, 'big'))}, Buffer.alloc(2 * 1024 * 1024))`,
    );
    expect(res.code).to.not.equal(0);
    expect(fs.statSync(path.join(resultDir, 'big')).size).to.be.at.most(LIMITS.fileSizeBytes);
  });

  it('applies the CPU time limit: a busy loop is killed', async () => {
    const res = await node('for (;;) {}', await open({ limits: { ...LIMITS, cpuSeconds: 1 } }));
    expect(res.timedOut).to.equal(false);
    // SIGXCPU (24) at the soft limit, SIGKILL (9) at the hard one; bwrap exits with 128 + the signal.
    expect(res.code).to.be.oneOf([128 + 24, 128 + 9]);
  });

  it('applies the memory limit: a tool cannot reserve beyond it', async () => {
    const res = await node(
      'console.log("started")',
      await open({ limits: { ...LIMITS, memoryBytes: 256 * 1024 * 1024 } }),
    );
    expect(res.code).to.not.equal(0);
    expect(res.stdout).not.to.contain('started');
  });

  it('applies the process limit: a fork bomb stops at it', async () => {
    const limited = await open({ limits: { ...LIMITS, processes: 20 } });
    const res = await run(limited, '/bin/sh', [
      '-c',
      'n=0; while [ $n -lt 60 ]; do sleep 5 & n=$((n+1)); done; echo all-started',
    ]);
    expect(res.stdout).not.to.contain('all-started');
    expect(res.stderr).to.match(/fork|Resource temporarily unavailable/i);
  });

  it('refuses to make the data directory visible, and the runner then fails each scan with a clear message', async () => {
    const exposing = await open({ readOnlyPaths: [root] });
    expect(exposing.problem).to.contain('data directory');
    const tool = TOOL_TYPES.find((t) => t.name === 'Gitleaks')!;
    const job: ScanJob = {
      scanId: 'x',
      tool,
      scanDir,
      workspace,
      resultDir,
      rulesDir: root,
      timeoutMs: 60000,
      extraArgs: [],
    };
    const runner = new LocalProcessRunner([], 1024 * 1024, exposing);
    let failure: Error | undefined;
    await runner.run(job, new AbortController().signal).catch((err: Error) => (failure = err));
    expect(failure?.message)
      .to.contain('The scanner sandbox does not work on this server')
      .and.contain('SCAN_SANDBOX=none');
  });

  it('runs tools unconfined only when the operator chose SCAN_SANDBOX=none', async () => {
    const none = await open({ mode: 'none' });
    expect(none.enabled).to.equal(false);
    expect(none.problem).to.equal(undefined);
    const plan = none.plan({
      binary: '/bin/true',
      argv: [],
      env: { PATH: '/usr/bin' },
      cwd: workspace,
      readOnly: [workspace],
      writable: [resultDir],
    });
    expect(plan.binary).to.equal('/bin/true');
    expect(
      sandbox.plan({ binary: '/bin/true', argv: [], env: {}, cwd: workspace, readOnly: [], writable: [] }).argv,
    ).to.include.members(['--die-with-parent', '--new-session', '--clearenv']);
  });

  it("is configured through the service's schema: bwrap by default, limits in MB, a wrong value refused", () => {
    const config = readScanningConfig({ SCANNER_PATH: path.dirname(process.execPath) });
    expect(config.sandbox).to.include({ mode: 'bwrap', uid: 65534, gid: 65534 });
    expect(config.sandbox.limits.memoryBytes).to.equal(8192 * 1024 * 1024);
    expect(config.sandbox.readOnlyPaths).to.include(path.resolve(__dirname, '..', 'rules'));
    expect(readScanningConfig({ SCAN_SANDBOX: 'none', SCAN_SANDBOX_MEMORY_MB: '4096' }).sandbox).to.deep.include({
      mode: 'none',
    });
    expect(() => readScanningConfig({ SCAN_SANDBOX: 'off' })).to.throw(/SCAN_SANDBOX/);
  });
});
