import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findExecutable, runProcess } from '@bulwark/platform';

/** Per-process limits of a sandboxed tool (setrlimit, through prlimit). */
export interface SandboxLimits {
  cpuSeconds: number;
  /** Address space (RLIMIT_AS). */
  memoryBytes: number;
  /** Processes and threads of the sandbox's user (RLIMIT_NPROC). */
  processes: number;
  /** Largest file the tool may write, its report included (RLIMIT_FSIZE). */
  fileSizeBytes: number;
  openFiles: number;
}

export interface SandboxSettings {
  /** `bwrap`: bubblewrap; `none`: the tool runs as a plain child process (operator's explicit choice). */
  mode: 'bwrap' | 'none';
  /** The user and group a tool runs as when this service runs as root. */
  uid: number;
  gid: number;
  limits: SandboxLimits;
  /** Folders made visible read-only besides the system's: the scanners' install folders and the rules. */
  readOnlyPaths: string[];
  /** Folders that must never be visible (the data directory, with its secrets). */
  hiddenPaths: string[];
}

/** One tool run: what to execute, and which folders it sees. */
export interface ToolInvocation {
  binary: string;
  argv: string[];
  /** The tool's whole environment (an allow-list built by the runner). */
  env: Record<string, string>;
  cwd: string;
  /** Visible read-only at the same path (the checked-out source). */
  readOnly: string[];
  /** Visible and writable at the same path (the result folder). */
  writable: string[];
}

/** What to spawn for an invocation. */
export interface SpawnPlan {
  binary: string;
  argv: string[];
  env: Record<string, string>;
  cwd: string;
}

/** Where Debian installs bwrap, prlimit and setpriv; the service's own PATH plays no part. */
const SYSTEM_DIRS = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];
/** The system a tool may see, read-only; symbolic links (merged /usr) are recreated as links. */
const SYSTEM_PATHS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];
/** Pieces of /etc the tools' runtimes read: the dynamic loader's cache, users, time zone, certificates. */
const ETC_PATHS = [
  '/etc/ld.so.cache',
  '/etc/ld.so.conf',
  '/etc/ld.so.conf.d',
  '/etc/alternatives',
  '/etc/passwd',
  '/etc/group',
  '/etc/nsswitch.conf',
  '/etc/localtime',
  '/etc/ssl',
  '/etc/ca-certificates',
];
/** HOME inside the sandbox, on its private /tmp. */
export const SANDBOX_HOME = '/tmp/home';

const inside = (child: string, parent: string) =>
  child === parent || child.startsWith(parent.endsWith('/') ? parent : `${parent}/`);

/** The install prefix of a scanner folder: a venv's bin lives in the venv, npm's .bin in node_modules. */
export function installPrefixOf(scannerDir: string): string | undefined {
  let real: string;
  try {
    real = fs.realpathSync(scannerDir);
  } catch {
    return undefined;
  }
  const prefix = path.dirname(real);
  // The system is bound anyway; never the whole root.
  return prefix === '/' || SYSTEM_PATHS.some((p) => inside(prefix, p)) ? undefined : prefix;
}

/**
 * The folder a program's interpreter is installed in, when it is a script whose interpreter lies
 * outside the system folders (a venv's python linked to a pyenv build, say); the interpreter's
 * `bin/..` is its install prefix.
 */
export function interpreterPrefixOf(binary: string): string | undefined {
  let head: string;
  try {
    const fd = fs.openSync(binary, 'r');
    const buf = Buffer.alloc(256);
    const n = fs.readSync(fd, buf, 0, buf.length, 0);
    fs.closeSync(fd);
    head = buf.subarray(0, n).toString('utf8');
  } catch {
    return undefined;
  }
  const interpreter = /^#!\s*(\/\S+)/.exec(head)?.[1];
  if (!interpreter) return undefined;
  try {
    return installPrefixOf(path.dirname(fs.realpathSync(interpreter)));
  } catch {
    return undefined;
  }
}

/**
 * Runs scanners in bubblewrap: no network (own network namespace), the system read-only, only the
 * result folder writable, private /tmp, /proc and PID namespace, no capabilities, dies with its
 * parent, an environment of the runner's allow-list only, and rlimits on CPU time, memory, processes,
 * file size and open files. Tools never run as root: the process limit does not bind root, so a
 * service running as root has them run as an unprivileged user, who is handed the scan's folders.
 */
export class ScannerSandbox {
  private constructor(
    readonly settings: SandboxSettings,
    /** Why scans cannot run, when the sandbox is wanted but does not work here. */
    readonly problem: string | undefined,
    private readonly tools: { bwrap: string; prlimit: string; setpriv: string } | undefined,
  ) {}

  /** Finds the sandbox's programs and proves it works on this host: a sandboxed shell writes a file into a result folder. */
  static async open(settings: SandboxSettings, probeRoot: string): Promise<ScannerSandbox> {
    if (settings.mode === 'none') return new ScannerSandbox(settings, undefined, undefined);
    const exposed = settings.readOnlyPaths.find((p) => settings.hiddenPaths.some((h) => inside(p, h) || inside(h, p)));
    if (exposed)
      return new ScannerSandbox(
        settings,
        `the sandbox would make ${exposed} visible, which holds or lies in the data directory`,
        undefined,
      );
    const [bwrap, prlimit, setpriv] = ['bwrap', 'prlimit', 'setpriv'].map((name) => findExecutable(SYSTEM_DIRS, name));
    if (!bwrap || !prlimit || !setpriv) {
      const missing = [
        !bwrap && 'bwrap (bubblewrap)',
        !prlimit && 'prlimit (util-linux)',
        !setpriv && 'setpriv (util-linux)',
      ]
        .filter(Boolean)
        .join(', ');
      return new ScannerSandbox(settings, `${missing} not installed`, undefined);
    }
    const sandbox = new ScannerSandbox(settings, undefined, { bwrap, prlimit, setpriv });
    const problem = await sandbox.probe(probeRoot);
    return problem ? new ScannerSandbox(settings, problem, undefined) : sandbox;
  }

  get enabled(): boolean {
    return this.settings.mode === 'bwrap';
  }

  /** Whether tools run as another user than this service. */
  private get dropsPrivileges(): boolean {
    return process.getuid?.() === 0;
  }

  private async probe(probeRoot: string): Promise<string | undefined> {
    fs.mkdirSync(probeRoot, { recursive: true, mode: 0o700 });
    const dir = fs.mkdtempSync(path.join(probeRoot, 'sandbox-probe-'));
    try {
      this.prepare([dir]);
      const plan = this.plan({
        binary: '/bin/sh',
        argv: ['-c', 'echo ok > "$0/probe"', dir],
        env: {},
        cwd: dir,
        readOnly: [],
        writable: [dir],
      });
      const res = await runProcess(plan.binary, plan.argv, { env: plan.env, cwd: plan.cwd, timeoutMs: 30000 });
      if (res.code === 0 && fs.existsSync(path.join(dir, 'probe'))) return undefined;
      const said = (res.stderr || res.stdout).trim().split('\n')[0] ?? '';
      return `a sandboxed test command failed (${res.spawnError?.code ?? `exit code ${res.code}`}${said ? `: ${said.slice(0, 300)}` : ''})`;
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }

  /**
   * Hands a scan's source and result folder to the sandbox's user when tools run as another user than
   * this service, readable by all: bwrap enters them as root without the capability to pass file modes.
   * They stay unreachable for other users of the host, inside the scan's 0700 folder; the source stays
   * read-only all the same: it is mounted so.
   */
  prepare(folders: string[]): void {
    if (!this.enabled || !this.dropsPrivileges) return;
    const { uid, gid } = this.settings;
    const own = (p: string) => {
      fs.lchownSync(p, uid, gid);
      if (fs.lstatSync(p).isDirectory()) for (const entry of fs.readdirSync(p)) own(path.join(p, entry));
    };
    for (const dir of folders) {
      own(dir);
      fs.chmodSync(dir, 0o755);
    }
  }

  /** Install folders a tool's program needs besides its own: its script interpreter's, and this Node.js (ESLint). */
  private runtimeOf(binary: string): string[] {
    return [interpreterPrefixOf(binary), installPrefixOf(path.dirname(process.execPath))].filter(
      (p): p is string => p !== undefined,
    );
  }

  /** The command line that runs the invocation (in the sandbox unless the operator opted out). */
  plan(inv: ToolInvocation): SpawnPlan {
    if (!this.enabled) return { binary: inv.binary, argv: inv.argv, env: inv.env, cwd: inv.cwd };
    if (!this.tools) throw new Error(`scanner sandbox unavailable: ${this.problem}`);
    const { limits, uid, gid } = this.settings;
    const rlimits = [
      `--cpu=${limits.cpuSeconds}`,
      `--as=${limits.memoryBytes}`,
      `--nproc=${limits.processes}`,
      `--fsize=${limits.fileSizeBytes}`,
      `--nofile=${limits.openFiles}`,
      '--core=0',
    ];
    // As root, bwrap mounts what root may read (an interpreter under /root, say) and the tool then drops
    // to the sandbox's user with setpriv: a user namespace would leave no other user to switch to, so
    // every namespace but the user one is unshared. Otherwise bwrap builds a user namespace itself.
    const isolation = this.dropsPrivileges
      ? [
          '--unshare-ipc',
          '--unshare-pid',
          '--unshare-net',
          '--unshare-uts',
          '--unshare-cgroup-try',
          '--cap-drop',
          'ALL',
          '--cap-add',
          'CAP_SETUID',
          '--cap-add',
          'CAP_SETGID',
        ]
      : ['--unshare-all', '--cap-drop', 'ALL'];
    const user = this.dropsPrivileges
      ? [this.tools.setpriv, `--reuid=${uid}`, `--regid=${gid}`, '--clear-groups', '--inh-caps=-all', '--']
      : [];
    const system: string[] = [];
    for (const p of SYSTEM_PATHS) {
      const stat = fs.lstatSync(p, { throwIfNoEntry: false });
      if (stat?.isSymbolicLink()) system.push('--symlink', fs.readlinkSync(p), p);
      else if (stat) system.push('--ro-bind', p, p);
    }
    const env = { ...inv.env, HOME: SANDBOX_HOME };
    const bwrap = [
      ...isolation,
      '--die-with-parent',
      '--new-session',
      '--clearenv',
      ...Object.entries(env).flatMap(([k, v]) => ['--setenv', k, v]),
      ...system,
      '--proc',
      '/proc',
      '--dev',
      '/dev',
      '--perms',
      '1777',
      '--tmpfs',
      '/tmp',
      '--perms',
      '0777',
      '--dir',
      SANDBOX_HOME,
      ...mounts(
        [
          ...ETC_PATHS.filter((p) => fs.existsSync(p)),
          ...this.settings.readOnlyPaths,
          ...this.runtimeOf(inv.binary),
          ...inv.readOnly,
        ]
          .map((p) => ({ p, writable: false }))
          .concat(inv.writable.map((p) => ({ p, writable: true }))),
      ),
      '--chdir',
      inv.cwd,
      '--',
      ...user,
      inv.binary,
      ...inv.argv,
    ];
    return {
      binary: this.tools.prlimit,
      argv: [...rlimits, '--', this.tools.bwrap, ...bwrap],
      env: { PATH: SYSTEM_DIRS.join(':'), LANG: 'C.UTF-8' },
      cwd: os.tmpdir(),
    };
  }
}

/**
 * Bind mounts at the same paths as on the host, parents first; the folders above each are made
 * traversable (bwrap makes missing ones 0700, which the tool's user could not pass), nested binds of
 * one kind dropped.
 */
function mounts(binds: { p: string; writable: boolean }[]): string[] {
  const args: string[] = [];
  const made = new Set(['/', '/tmp', ...SYSTEM_PATHS]);
  const done: { p: string; writable: boolean }[] = [];
  for (const bind of [...binds].sort((a, b) => a.p.localeCompare(b.p))) {
    if (done.some((d) => inside(bind.p, d.p) && d.writable === bind.writable)) continue;
    const parents: string[] = [];
    for (let dir = path.dirname(bind.p); !made.has(dir) && !done.some((d) => inside(dir, d.p)); dir = path.dirname(dir))
      parents.unshift(dir);
    for (const dir of parents) {
      args.push('--perms', '0755', '--dir', dir);
      made.add(dir);
    }
    args.push(bind.writable ? '--bind' : '--ro-bind', bind.p, bind.p);
    done.push(bind);
  }
  return args;
}
