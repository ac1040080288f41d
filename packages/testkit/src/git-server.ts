import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';

/** Files of a repository: relative path -> content, or a folder to copy. */
export type RepositoryContent = Record<string, string> | string;

const FIXED_IDENTITY = {
  GIT_AUTHOR_NAME: 'Bulwark Tests',
  GIT_AUTHOR_EMAIL: 'tests@bulwark.invalid',
  GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z',
  GIT_COMMITTER_NAME: 'Bulwark Tests',
  GIT_COMMITTER_EMAIL: 'tests@bulwark.invalid',
  GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z',
};

function git(args: string[], cwd: string): string {
  return execFileSync('git', args, {
    cwd,
    env: {
      PATH: process.env.PATH,
      HOME: cwd,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      ...FIXED_IDENTITY,
    },
    encoding: 'utf8',
  });
}

/**
 * A bare repository at `bareDir` holding one commit of `content` on `main` (fixed author and date, so
 * the commit id is the same on every run), plus `branches` pointing at that commit.
 */
export function createBareRepository(
  bareDir: string,
  content: RepositoryContent,
  opts: { branches?: string[] } = {},
): void {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'git-work-'));
  try {
    if (typeof content === 'string') fs.cpSync(content, work, { recursive: true });
    else {
      for (const [file, text] of Object.entries(content)) {
        fs.mkdirSync(path.dirname(path.join(work, file)), { recursive: true });
        fs.writeFileSync(path.join(work, file), text);
      }
    }
    git(['init', '--quiet', '--initial-branch=main'], work);
    git(['add', '--all'], work);
    git(['commit', '--quiet', '--allow-empty', '-m', 'Fixture'], work);
    for (const b of opts.branches ?? []) git(['branch', b], work);
    fs.mkdirSync(path.dirname(bareDir), { recursive: true });
    git(['clone', '--quiet', '--bare', work, bareDir], os.tmpdir());
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

export interface GitServerOptions {
  /** Basic authentication required for every request; anonymous when absent. */
  auth?: { username: string; password: string };
  /** Address to listen on (127.0.0.1 unless given): another loopback address stands for a host the outbound policy refuses. */
  host?: string;
}

export interface GitServer {
  /** http://<host>:<port> */
  baseUrl: string;
  /** Folder the served repositories live in (`<name>.git`). */
  root: string;
  /** Creates `<name>.git` from `content` and answers its clone URL. */
  addRepository(name: string, content: RepositoryContent, opts?: { branches?: string[] }): string;
  urlOf(name: string): string;
  /** A URL on this server that answers an HTML page: something that is not a Git repository. */
  notARepositoryUrl: string;
  /** Requests served, for tests that check credentials were sent. */
  readonly requests: { path: string; user?: string }[];
  close(): Promise<void>;
}

const BACKEND = path.join(execFileSync('git', ['--exec-path'], { encoding: 'utf8' }).trim(), 'git-http-backend');

/** Parses the CGI header block of git http-backend and streams the rest as the HTTP response. */
function relayCgi(child: { stdout: Readable }, res: http.ServerResponse): void {
  let head = Buffer.alloc(0);
  let headersDone = false;
  child.stdout.on('data', (chunk: Buffer) => {
    if (headersDone) {
      res.write(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if (end < 0) return;
    headersDone = true;
    let status = 200;
    for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
      const i = line.indexOf(':');
      const name = line.slice(0, i).trim();
      const value = line.slice(i + 1).trim();
      if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
      else res.setHeader(name, value);
    }
    res.statusCode = status;
    res.write(head.subarray(end + 4));
  });
  child.stdout.on('end', () => {
    if (!headersDone && !res.headersSent) res.statusCode = 502;
    res.end();
  });
}

/**
 * A real Git smart-HTTP server on 127.0.0.1 or `opts.host` (a free port): `git http-backend` run as CGI behind a
 * small Node front, with optional Basic authentication. For tests of anything that talks to Git.
 */
export async function startGitServer(opts: GitServerOptions = {}): Promise<GitServer> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'git-served-'));
  const requests: { path: string; user?: string }[] = [];
  const expected = opts.auth
    ? `Basic ${Buffer.from(`${opts.auth.username}:${opts.auth.password}`).toString('base64')}`
    : undefined;

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname.startsWith('/site/')) {
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<html><body>A web page, not a Git repository</body></html>');
      return;
    }
    if (expected && req.headers.authorization !== expected) {
      requests.push({ path: url.pathname });
      res
        .writeHead(401, { 'www-authenticate': 'Basic realm="git"', 'content-type': 'text/plain' })
        .end('Authentication required');
      return;
    }
    requests.push({ path: url.pathname, user: opts.auth?.username });
    const child = spawn(BACKEND, [], {
      env: {
        PATH: process.env.PATH,
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: '1',
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.replace(/^\?/, ''),
        REQUEST_METHOD: req.method ?? 'GET',
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        ...(req.headers['content-length'] ? { CONTENT_LENGTH: req.headers['content-length'] } : {}),
        HTTP_CONTENT_ENCODING: req.headers['content-encoding'] ?? '',
        HTTP_GIT_PROTOCOL: String(req.headers['git-protocol'] ?? ''),
        REMOTE_ADDR: req.socket.remoteAddress ?? '127.0.0.1',
        ...(opts.auth ? { REMOTE_USER: opts.auth.username } : {}),
      },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    req.pipe(child.stdin);
    child.stdin.on('error', () => undefined);
    relayCgi(child, res);
    child.on('error', () => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const baseUrl = `http://${host}:${(server.address() as AddressInfo).port}`;
  const urlOf = (name: string) => `${baseUrl}/${name}.git`;

  return {
    baseUrl,
    root,
    requests,
    urlOf,
    notARepositoryUrl: `${baseUrl}/site/project.git`,
    addRepository(name, content, repoOpts) {
      createBareRepository(path.join(root, `${name}.git`), content, repoOpts);
      return urlOf(name);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}
