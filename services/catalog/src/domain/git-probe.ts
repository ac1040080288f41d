import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GitTransport, hostOf, SourceConnection } from './source-types';

export interface ProbeResult {
  ok: boolean;
  message: string;
  default_branch?: string;
  branches?: string[];
}

const MAX_STDOUT = 8 * 1024 * 1024;
const MAX_STDERR = 64 * 1024;
const MAX_BRANCHES = 200;

// Prints the credentials git asks for from this process's environment: they never reach argv or a
// file. It answers only prompts for the source's own host, so a redirect elsewhere gets nothing.
const ASKPASS = `#!/bin/sh
case "$1" in
  *"//$BULWARK_GIT_HOST'"*|*"@$BULWARK_GIT_HOST'"*) ;;
  *) exit 1 ;;
esac
case "$1" in
  Username*) printf '%s\\n' "$BULWARK_GIT_USERNAME" ;;
  *) printf '%s\\n' "$BULWARK_GIT_PASSWORD" ;;
esac
`;

interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  spawnError?: string;
}

/** Runs git with argv only (no shell) in its own process group, killed whole at the deadline. */
function runGit(argv: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn('git', argv, { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, timeoutMs);
    child.stdout.on('data', (d: Buffer) => {
      if (stdout.length < MAX_STDOUT) stdout += d.toString('utf8');
    });
    child.stderr.on('data', (d: Buffer) => {
      if (stderr.length < MAX_STDERR) stderr += d.toString('utf8');
    });
    child.on('error', (err) => {
      clearTimeout(timer);
      resolve({ code: null, stdout, stderr, timedOut, spawnError: err.message });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, timedOut });
    });
  });
}

/** ls-remote --symref output: the default branch and the branch names. */
export function parseLsRemote(stdout: string): { defaultBranch?: string; branches: string[] } {
  let defaultBranch: string | undefined;
  const branches: string[] = [];
  for (const line of stdout.split('\n')) {
    const symref = /^ref: refs\/heads\/(\S+)\tHEAD$/.exec(line);
    if (symref) defaultBranch = symref[1];
    const head = /^[0-9a-f]{40,64}\trefs\/heads\/(\S+)$/.exec(line);
    if (head) branches.push(head[1]);
  }
  return { defaultBranch, branches: branches.sort() };
}

/** One clear message per kind of failure; git's own words only where they help and hold no secret. */
export function explainFailure(stderr: string, host: string, anonymous: boolean): string {
  const has = (re: RegExp) => re.test(stderr);
  if (has(/Could not resolve host|Could not resolve hostname|Name or service not known|Temporary failure in name resolution/i)) {
    return `Host unreachable: ${host} could not be resolved`;
  }
  if (has(/Authentication failed|could not read Username|could not read Password|returned error: 40[13]|HTTP 40[13]|Permission denied \(|Permission denied, please try again/i)) {
    return anonymous
      ? `Authentication refused: the repository at ${host} does not allow anonymous access`
      : `Authentication refused: the repository at ${host} did not accept the credentials`;
  }
  if (has(/Connection refused|Failed to connect|Couldn't connect|No route to host|Network is unreachable|Connection timed out|Operation timed out|Connection reset|Connection closed by/i)) {
    return `Host unreachable: could not connect to ${host}`;
  }
  if (has(/SSL|certificate|TLS/)) return `TLS error talking to ${host}: the certificate or protocol was refused`;
  if (has(/not found|does not appear to be a git repository|not valid: is this a git repository|returned error: 404|dumb http transport|unexpected content-type|not a git repository/i)) {
    return `Not a Git repository: ${host} answered, but not as a Git repository at this URL`;
  }
  const first = stderr.split('\n').map((l) => l.trim()).find((l) => l.length > 0) ?? 'no output';
  return `Git could not read the repository: ${first.replace(/\/\/[^/@\s]*@/g, '//').slice(0, 300)}`;
}

/**
 * Contacts the repository with `git ls-remote` as a connection test. Credentials travel only through
 * the environment of the child (askpass) or a key file in a private temporary folder; user and
 * system git configuration are ignored; only the type's transports are allowed, also on redirects.
 */
export async function probeGit(transport: GitTransport, conn: SourceConnection, timeoutMs: number): Promise<ProbeResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-git-'));
  try {
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: dir,
      LC_ALL: 'C',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_TERMINAL_PROMPT: '0',
    };
    const allowed = transport === 'http' ? ['http', 'https'] : ['ssh'];
    const seconds = Math.max(1, Math.ceil(timeoutMs / 1000));
    const argv = ['-c', 'credential.helper=', '-c', 'protocol.allow=never', ...allowed.flatMap((p) => ['-c', `protocol.${p}.allow=always`])];
    if (transport === 'http') {
      argv.push('-c', 'http.lowSpeedLimit=1', '-c', `http.lowSpeedTime=${seconds}`);
      if (conn.authMethod === 'Login/Password') {
        const askpass = path.join(dir, 'askpass.sh');
        fs.writeFileSync(askpass, ASKPASS, { mode: 0o700 });
        Object.assign(env, {
          GIT_ASKPASS: askpass, BULWARK_GIT_HOST: new URL(conn.url).host, BULWARK_GIT_USERNAME: conn.login ?? '', BULWARK_GIT_PASSWORD: conn.password ?? '',
        });
      }
    } else {
      const key = path.join(dir, 'id');
      fs.writeFileSync(key, conn.sshPrivateKey!.endsWith('\n') ? conn.sshPrivateKey! : `${conn.sshPrivateKey}\n`, { mode: 0o600 });
      env.GIT_SSH_COMMAND = [
        'ssh', '-F', '/dev/null', '-i', `'${key}'`, '-o', 'BatchMode=yes', '-o', 'IdentitiesOnly=yes', '-o', 'StrictHostKeyChecking=accept-new',
        '-o', `UserKnownHostsFile='${path.join(dir, 'known_hosts')}'`, '-o', `ConnectTimeout=${seconds}`,
      ].join(' ');
    }
    argv.push('ls-remote', '--symref', conn.url);
    const host = hostOf(conn.url);
    const run = await runGit(argv, env, timeoutMs);
    if (run.spawnError) return { ok: false, message: `Git is not available on the server: ${run.spawnError}` };
    if (run.timedOut) return { ok: false, message: `Host unreachable: ${host} did not answer within ${seconds} s (timed out)` };
    if (run.code !== 0) return { ok: false, message: explainFailure(run.stderr, host, conn.authMethod === 'Anonymous') };
    const { defaultBranch, branches } = parseLsRemote(run.stdout);
    // A web page read as dumb HTTP lists nothing, like an empty repository: neither can be scanned.
    if (!defaultBranch && branches.length === 0) {
      return { ok: false, message: `Not a Git repository: ${host} answered without any Git branch at this URL (not a repository, or an empty one)` };
    }
    const listed = branches.slice(0, MAX_BRANCHES);
    const base = { default_branch: defaultBranch, branches: listed };
    if (conn.branchName && !branches.includes(conn.branchName)) {
      const known = listed.length > 0 ? listed.slice(0, 20).join(', ') : 'none';
      return { ok: false, message: `Unknown branch: "${conn.branchName}" does not exist in the repository (branches: ${known})`, ...base };
    }
    const which = conn.branchName ? `branch "${conn.branchName}" found` : `default branch ${defaultBranch ?? 'unknown'}`;
    return { ok: true, message: `Connected to ${host}: ${branches.length} branch(es), ${which}`, ...base };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
