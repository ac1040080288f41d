import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runProcess, ProcessResult } from './process';

export interface GitConnection {
  url: string;
  authMethod: string;
  login?: string;
  password?: string;
  sshPrivateKey?: string;
}

// Prints the credentials git asks for from the child's environment: they never reach argv or a
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

const SCP_LIKE = /^[A-Za-z0-9][A-Za-z0-9._-]*@[A-Za-z0-9][A-Za-z0-9.-]*:[^\s:][^\s]*$/;

/** Whether a Git URL is SSH (`ssh://` or scp-like `git@host:path`) rather than HTTP(S). */
export function isSshUrl(url: string): boolean {
  return url.startsWith('ssh://') || SCP_LIKE.test(url);
}

/**
 * A private temporary folder with what git needs to reach a repository: credentials through an
 * askpass script reading the child's environment, or an SSH key file (0600); user and system git
 * configuration ignored; only http(s) or ssh transports allowed, redirects included.
 */
export class GitSession {
  readonly dir: string;
  readonly env: NodeJS.ProcessEnv;
  readonly config: string[];

  constructor(readonly conn: GitConnection, timeoutSeconds: number, transport: 'http' | 'ssh' = isSshUrl(conn.url) ? 'ssh' : 'http') {
    this.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-git-'));
    fs.chmodSync(this.dir, 0o700);
    this.env = { PATH: process.env.PATH, HOME: this.dir, LC_ALL: 'C', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_TERMINAL_PROMPT: '0' };
    const ssh = transport === 'ssh';
    const allowed = ssh ? ['ssh'] : ['http', 'https'];
    this.config = ['-c', 'credential.helper=', '-c', 'protocol.allow=never', ...allowed.flatMap((p) => ['-c', `protocol.${p}.allow=always`])];
    if (!ssh) {
      this.config.push('-c', 'http.lowSpeedLimit=1', '-c', `http.lowSpeedTime=${timeoutSeconds}`);
      if (conn.authMethod === 'Login/Password') {
        const askpass = path.join(this.dir, 'askpass.sh');
        fs.writeFileSync(askpass, ASKPASS, { mode: 0o700 });
        Object.assign(this.env, { GIT_ASKPASS: askpass, BULWARK_GIT_HOST: gitHost(conn.url), BULWARK_GIT_USERNAME: conn.login ?? '', BULWARK_GIT_PASSWORD: conn.password ?? '' });
      }
    } else if (conn.sshPrivateKey) {
      const key = path.join(this.dir, 'id');
      fs.writeFileSync(key, conn.sshPrivateKey.endsWith('\n') ? conn.sshPrivateKey : `${conn.sshPrivateKey}\n`, { mode: 0o600 });
      this.env.GIT_SSH_COMMAND = [
        'ssh', '-F', '/dev/null', '-i', `'${key}'`, '-o', 'BatchMode=yes', '-o', 'IdentitiesOnly=yes', '-o', 'StrictHostKeyChecking=accept-new',
        '-o', `UserKnownHostsFile='${path.join(this.dir, 'known_hosts')}'`, '-o', `ConnectTimeout=${timeoutSeconds}`,
      ].join(' ');
    }
  }

  run(args: string[], opts: { timeoutMs: number; cwd?: string; signal?: AbortSignal }): Promise<ProcessResult> {
    return runProcess('git', [...this.config, ...args], { env: this.env, cwd: opts.cwd, timeoutMs: opts.timeoutMs, signal: opts.signal, outputLimitBytes: 8 * 1024 * 1024 });
  }

  close(): void {
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

/** The host part of a Git URL (never its credentials): for messages and the askpass host check. */
export function gitHost(url: string): string {
  if (SCP_LIKE.test(url)) return url.slice(url.indexOf('@') + 1, url.indexOf(':', url.indexOf('@')));
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

export class GitCheckoutError extends Error {}

/**
 * A shallow checkout of one branch or tag (and a commit on it when given) into `dest`, which must not
 * exist. Errors say what failed without git's raw output, which may echo URLs.
 */
export async function gitCheckout(
  conn: GitConnection,
  ref: { name?: string; commit?: string },
  dest: string,
  opts: { timeoutMs: number; signal?: AbortSignal },
): Promise<void> {
  const session = new GitSession(conn, Math.max(1, Math.ceil(opts.timeoutMs / 1000)));
  try {
    const args = ['clone', '--quiet', '--single-branch', '--no-tags', ...(ref.commit ? [] : ['--depth', '1']), ...(ref.name ? ['--branch', ref.name] : []), '--', conn.url, dest];
    const cloned = await session.run(args, opts);
    if (cloned.aborted) throw new GitCheckoutError('checkout stopped');
    if (cloned.timedOut) throw new GitCheckoutError(`checkout of ${gitHost(conn.url)} timed out after ${Math.round(opts.timeoutMs / 1000)} s`);
    if (cloned.code !== 0) {
      const stderr = cloned.stderr;
      if (/Remote branch .* not found|couldn't find remote ref/i.test(stderr)) throw new GitCheckoutError(`branch or tag "${ref.name}" does not exist in the repository`);
      if (/Authentication failed|could not read Username|returned error: 40[13]|Permission denied/i.test(stderr)) throw new GitCheckoutError(`the repository at ${gitHost(conn.url)} refused the credentials`);
      throw new GitCheckoutError(`could not clone the repository at ${gitHost(conn.url)}`);
    }
    if (ref.commit) {
      const checkedOut = await session.run(['-C', dest, 'checkout', '--quiet', '--detach', ref.commit], opts);
      if (checkedOut.code !== 0) throw new GitCheckoutError(`commit ${ref.commit} is not on ${ref.name ? `"${ref.name}"` : 'the default branch'}`);
    }
  } finally {
    session.close();
  }
}
