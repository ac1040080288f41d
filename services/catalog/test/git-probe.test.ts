import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { GitServer, startGitServer, freePort } from '@bulwark/testkit';
import { probeGit } from '../src/domain/git-probe';
import { resolveConnection, SourceConnection, sourceType } from '../src/domain/source-types';

const HTTP = sourceType(1)!;
const SSH = sourceType(2)!;
const LIMIT_MS = 10000;

const anonymous = (url: string, branchName: string | null = null): SourceConnection => ({
  url, branchName, authMethod: 'Anonymous', login: null, password: null, sshPrivateKey: null,
});
const withLogin = (url: string, login: string, password: string): SourceConnection => ({ ...anonymous(url), authMethod: 'Login/Password', login, password });

describe('git connection probe against real git servers', function () {
  this.timeout(60000);
  let open: GitServer;
  let locked: GitServer;
  let silent: net.Server;
  let silentPort: number;
  const sockets: net.Socket[] = [];

  before(async () => {
    open = await startGitServer();
    locked = await startGitServer({ auth: { username: 'alice', password: 'wonderland-42' } });
    open.addRepository('app', { 'README.md': '# app\n' }, { branches: ['develop', 'release/1.0'] });
    locked.addRepository('secret', { 'main.py': 'print(1)\n' });
    // Accepts connections and never answers: only the time limit ends the probe.
    silent = net.createServer((s) => sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    silentPort = (silent.address() as net.AddressInfo).port;
  });
  after(async () => {
    await open?.close();
    await locked?.close();
    sockets.forEach((s) => s.destroy());
    silent?.close();
  });

  it('lists branches and the default branch of an anonymous repository', async () => {
    const r = await probeGit('http', anonymous(open.urlOf('app')), LIMIT_MS);
    expect(r.ok, r.message).to.equal(true);
    expect(r.default_branch).to.equal('main');
    expect(r.branches).to.deep.equal(['develop', 'main', 'release/1.0']);
  });

  it('accepts the right credentials and sends them to the server', async () => {
    const r = await probeGit('http', withLogin(locked.urlOf('secret'), 'alice', 'wonderland-42'), LIMIT_MS);
    expect(r.ok, r.message).to.equal(true);
    expect(locked.requests.some((q) => q.user === 'alice')).to.equal(true);
  });

  it('says authentication was refused for a wrong password, without echoing it', async () => {
    const r = await probeGit('http', withLogin(locked.urlOf('secret'), 'alice', 'not-the-password'), LIMIT_MS);
    expect(r.ok).to.equal(false);
    expect(r.message).to.match(/^Authentication refused/);
    expect(r.message).not.to.contain('not-the-password');
  });

  it('gives the credentials only to the source\u2019s own host, not to a host it redirects to', async () => {
    const redirect = http.createServer((req, res) => res.writeHead(302, { location: `${locked.urlOf('secret')}${req.url!.replace(/^\/moved\.git/, '')}` }).end());
    await new Promise<void>((r) => redirect.listen(0, '127.0.0.1', r));
    try {
      const before = locked.requests.filter((q) => q.user).length;
      const r = await probeGit('http', withLogin(`http://127.0.0.1:${(redirect.address() as net.AddressInfo).port}/moved.git`, 'alice', 'wonderland-42'), LIMIT_MS);
      expect(r.ok).to.equal(false);
      expect(r.message).to.match(/^Authentication refused/);
      expect(locked.requests.filter((q) => q.user).length).to.equal(before);
    } finally {
      redirect.close();
    }
  });

  it('says anonymous access was refused by a protected repository', async () => {
    const r = await probeGit('http', anonymous(locked.urlOf('secret')), LIMIT_MS);
    expect(r.message).to.match(/^Authentication refused.*anonymous/);
  });

  it('names an unknown branch and the branches that exist', async () => {
    const r = await probeGit('http', anonymous(open.urlOf('app'), 'feature/nope'), LIMIT_MS);
    expect(r.ok).to.equal(false);
    expect(r.message).to.match(/^Unknown branch: "feature\/nope"/);
    expect(r.message).to.contain('develop');
    expect((await probeGit('http', anonymous(open.urlOf('app'), 'release/1.0'), LIMIT_MS)).ok).to.equal(true);
  });

  it('says the host is unreachable when nothing listens on the port', async () => {
    const r = await probeGit('http', anonymous(`http://127.0.0.1:${await freePort()}/app.git`), LIMIT_MS);
    expect(r.ok).to.equal(false);
    expect(r.message).to.match(/^Host unreachable: could not connect/);
  });

  it('gives up at the time limit when the host never answers', async () => {
    const r = await probeGit('http', anonymous(`http://127.0.0.1:${silentPort}/app.git`), 1500);
    expect(r.ok).to.equal(false);
    expect(r.message).to.match(/^Host unreachable: .*timed out/);
  });

  it('says a web page or a missing repository is not a Git repository', async () => {
    expect((await probeGit('http', anonymous(open.notARepositoryUrl), LIMIT_MS)).message).to.match(/^Not a Git repository/);
    expect((await probeGit('http', anonymous(open.urlOf('missing')), LIMIT_MS)).message).to.match(/^Not a Git repository/);
  });

  it('runs ssh with the private key from a private file and says when the host is unreachable', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'probe-key-'));
    try {
      execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', path.join(dir, 'id')]);
      const key = fs.readFileSync(path.join(dir, 'id'), 'utf8');
      const conn: SourceConnection = { url: `ssh://git@127.0.0.1:${await freePort()}/app.git`, branchName: null, authMethod: 'SSH key', login: null, password: null, sshPrivateKey: key };
      const r = await probeGit('ssh', conn, LIMIT_MS);
      expect(r.ok).to.equal(false);
      expect(r.message).to.match(/^Host unreachable: could not connect to 127\.0\.0\.1/);
      expect(r.message).not.to.contain('PRIVATE KEY');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses transports other than http(s) and ssh, and credentials inside the URL', () => {
    for (const url of ['file:///etc', 'ext::sh -c id', 'git://127.0.0.1/app.git', '/srv/repo.git', 'ftp://h/x']) {
      expect(resolveConnection(HTTP, { url }).problems.map((p) => p.field), url).to.include('settings.url');
    }
    for (const url of ['file:///etc', 'ext::ssh x', '-oProxyCommand=x@h:p', 'https://h/x.git']) {
      expect(resolveConnection(SSH, { url, ssh_private_key: '-----BEGIN OPENSSH PRIVATE KEY-----\nx\n' }).problems.map((p) => p.field), url).to.include('settings.url');
    }
    expect(resolveConnection(SSH, { url: 'git@github.com:org/repo.git', ssh_private_key: '-----BEGIN OPENSSH PRIVATE KEY-----\nx\n' }).problems).to.deep.equal([]);
    expect(resolveConnection(HTTP, { url: 'https://bob:pw@h/x.git' }).problems[0].problem).to.match(/credentials/);
  });

  it('keeps a stored password when an update leaves it out, and drops it for Anonymous', () => {
    const stored = withLogin('https://h/x.git', 'alice', 'kept-secret');
    expect(resolveConnection(HTTP, { branch_name: 'dev' }, stored).connection).to.include({ password: 'kept-secret', branchName: 'dev', authMethod: 'Login/Password' });
    expect(resolveConnection(HTTP, { auth_method: 'Anonymous' }, stored).connection).to.include({ password: null, login: null });
    expect(resolveConnection(HTTP, { url: 'https://h/x.git', login: 'bob' }).problems.map((p) => p.field)).to.deep.equal(['settings.password']);
  });
});
