import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runProcess, ProcessResult } from './process';
import { EgressProxy, EgressSession } from './outbound/egress-proxy';
import { unreachableMessage } from './outbound/policy';

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

// ssh's ProxyCommand: a CONNECT through the egress proxy to the source's own host (from the
// environment, never from ssh's %h, which would pass through a shell), then a plain byte pipe.
const SSH_PROXY_COMMAND = `const net = require('node:net');
const env = process.env;
const s = net.connect(Number(env.BULWARK_EGRESS_PORT), '127.0.0.1');
s.on('error', () => process.exit(1));
s.write('CONNECT ' + env.BULWARK_EGRESS_TARGET + ' HTTP/1.1\\r\\nHost: ' + env.BULWARK_EGRESS_TARGET + '\\r\\nProxy-Authorization: ' + env.BULWARK_EGRESS_AUTH + '\\r\\n\\r\\n');
let head = Buffer.alloc(0);
s.on('data', function answer(chunk) {
  head = Buffer.concat([head, chunk]);
  const end = head.indexOf('\\r\\n\\r\\n');
  if (end < 0) return;
  s.off('data', answer);
  if (!/^HTTP\\/1\\.[01] 200/.test(head.toString('latin1', 0, end))) process.exit(1);
  process.stdout.write(head.subarray(end + 4));
  s.on('close', () => process.exit(0));
  process.stdin.pipe(s);
  s.pipe(process.stdout);
});
`;

const SCP_LIKE = /^[A-Za-z0-9][A-Za-z0-9._-]*@[A-Za-z0-9][A-Za-z0-9.-]*:[^\s:][^\s]*$/;

/** Whether a Git URL is SSH (`ssh://` or scp-like `git@host:path`) rather than HTTP(S). */
export function isSshUrl(url: string): boolean {
  return url.startsWith('ssh://') || SCP_LIKE.test(url);
}

/** `host:port` an SSH URL connects to (port 22 unless given). */
function sshTarget(url: string): string {
  if (SCP_LIKE.test(url)) return `${gitHost(url)}:22`;
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || 22}`;
}

export interface GitSessionOptions {
  timeoutSeconds: number;
  /** Every connection of git goes through it, so the outbound policy decides where git may connect. */
  egress: EgressProxy;
  transport?: 'http' | 'ssh';
}

/**
 * A private temporary folder with what git needs to reach a repository: credentials through an
 * askpass script reading the child's environment, or an SSH key file (0600); user and system git
 * configuration ignored; only http(s) or ssh transports allowed, redirects included; every
 * connection through the egress proxy.
 */
export class GitSession {
  readonly dir: string;
  readonly env: NodeJS.ProcessEnv;
  readonly config: string[];
  private readonly egress: EgressSession;

  constructor(
    readonly conn: GitConnection,
    opts: GitSessionOptions,
  ) {
    const { timeoutSeconds } = opts;
    this.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-git-'));
    fs.chmodSync(this.dir, 0o700);
    // A filtered port must end like a closed one, before git's own time limit.
    this.egress = opts.egress.open(Math.min(10_000, Math.max(1000, (timeoutSeconds * 1000) / 2)));
    this.env = {
      PATH: process.env.PATH,
      HOME: this.dir,
      LC_ALL: 'C',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_TERMINAL_PROMPT: '0',
    };
    const ssh = (opts.transport ?? (isSshUrl(conn.url) ? 'ssh' : 'http')) === 'ssh';
    const allowed = ssh ? ['ssh'] : ['http', 'https'];
    this.config = [
      '-c',
      'credential.helper=',
      '-c',
      'protocol.allow=never',
      ...allowed.flatMap((p) => ['-c', `protocol.${p}.allow=always`]),
    ];
    if (!ssh) {
      this.config.push('-c', 'http.lowSpeedLimit=1', '-c', `http.lowSpeedTime=${timeoutSeconds}`);
      // The proxy (with this session's secret) as environment configuration: not on argv, where other
      // local users could read the secret; it outranks every configuration file git reads.
      Object.assign(this.env, {
        GIT_CONFIG_COUNT: '2',
        GIT_CONFIG_KEY_0: 'http.proxy',
        GIT_CONFIG_VALUE_0: this.egress.proxyUrl,
        GIT_CONFIG_KEY_1: 'http.proxyAuthMethod',
        GIT_CONFIG_VALUE_1: 'basic',
      });
      if (conn.authMethod === 'Login/Password') {
        const askpass = path.join(this.dir, 'askpass.sh');
        fs.writeFileSync(askpass, ASKPASS, { mode: 0o700 });
        Object.assign(this.env, {
          GIT_ASKPASS: askpass,
          BULWARK_GIT_HOST: gitHost(conn.url),
          BULWARK_GIT_USERNAME: conn.login ?? '',
          BULWARK_GIT_PASSWORD: conn.password ?? '',
        });
      }
    } else {
      const proxyCommand = path.join(this.dir, 'proxy-command.js');
      fs.writeFileSync(proxyCommand, SSH_PROXY_COMMAND, { mode: 0o600 });
      Object.assign(this.env, {
        BULWARK_EGRESS_PORT: String(this.egress.port),
        BULWARK_EGRESS_AUTH: this.egress.authorization,
        BULWARK_EGRESS_TARGET: sshTarget(conn.url),
      });
      const key = path.join(this.dir, 'id');
      if (conn.sshPrivateKey)
        fs.writeFileSync(key, conn.sshPrivateKey.endsWith('\n') ? conn.sshPrivateKey : `${conn.sshPrivateKey}\n`, {
          mode: 0o600,
        });
      this.env.GIT_SSH_COMMAND = [
        'ssh',
        '-F',
        '/dev/null',
        ...(conn.sshPrivateKey ? ['-i', `'${key}'`, '-o', 'IdentitiesOnly=yes'] : []),
        '-o',
        'BatchMode=yes',
        '-o',
        'StrictHostKeyChecking=accept-new',
        '-o',
        `UserKnownHostsFile='${path.join(this.dir, 'known_hosts')}'`,
        '-o',
        `ConnectTimeout=${timeoutSeconds}`,
        '-o',
        `"ProxyCommand='${process.execPath}' '${proxyCommand}'"`,
      ].join(' ');
    }
  }

  /** After a failed run: whether git never reached the host or a connection failed (refused address, closed or filtered port, unknown name). */
  get unreachable(): boolean {
    return !this.egress.outcome.reached || this.egress.outcome.failed;
  }

  run(args: string[], opts: { timeoutMs: number; cwd?: string; signal?: AbortSignal }): Promise<ProcessResult> {
    return runProcess('git', [...this.config, ...args], {
      env: this.env,
      cwd: opts.cwd,
      timeoutMs: opts.timeoutMs,
      signal: opts.signal,
      outputLimitBytes: 8 * 1024 * 1024,
    });
  }

  close(): void {
    this.egress.close();
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
  opts: { timeoutMs: number; signal?: AbortSignal; egress: EgressProxy },
): Promise<void> {
  const session = new GitSession(conn, {
    timeoutSeconds: Math.max(1, Math.ceil(opts.timeoutMs / 1000)),
    egress: opts.egress,
  });
  try {
    const args = [
      'clone',
      '--quiet',
      '--single-branch',
      '--no-tags',
      ...(ref.commit ? [] : ['--depth', '1']),
      ...(ref.name ? ['--branch', ref.name] : []),
      '--',
      conn.url,
      dest,
    ];
    const cloned = await session.run(args, opts);
    if (cloned.aborted) throw new GitCheckoutError('checkout stopped');
    if (cloned.code !== 0 && session.unreachable) throw new GitCheckoutError(unreachableMessage(gitHost(conn.url)));
    if (cloned.timedOut)
      throw new GitCheckoutError(
        `checkout of ${gitHost(conn.url)} timed out after ${Math.round(opts.timeoutMs / 1000)} s`,
      );
    if (cloned.code !== 0) {
      const stderr = cloned.stderr;
      if (/Remote branch .* not found|couldn't find remote ref/i.test(stderr))
        throw new GitCheckoutError(`branch or tag "${ref.name}" does not exist in the repository`);
      if (/Authentication failed|could not read Username|returned error: 40[13]|Permission denied/i.test(stderr))
        throw new GitCheckoutError(`the repository at ${gitHost(conn.url)} refused the credentials`);
      throw new GitCheckoutError(`could not clone the repository at ${gitHost(conn.url)}`);
    }
    if (ref.commit) {
      const checkedOut = await session.run(['-C', dest, 'checkout', '--quiet', '--detach', ref.commit], opts);
      if (checkedOut.code !== 0)
        throw new GitCheckoutError(
          `commit ${ref.commit} is not on ${ref.name ? `"${ref.name}"` : 'the default branch'}`,
        );
    }
  } finally {
    session.close();
  }
}
