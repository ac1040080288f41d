import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { EgressProxy, OutboundPolicy } from '@bulwark/platform';
import { GitServer, startGitServer, freePort } from '@bulwark/testkit';
import { probeGit } from '../src/domain/git-probe';
import { sourceType } from '@bulwark/contracts';
import { resolveConnection, SourceConnection } from '../src/domain/source-connection';

const HTTP = sourceType(1)!;
const SSH = sourceType(2)!;
const LIMIT_MS = 10000;

const anonymous = (url: string, branchName: string | null = null): SourceConnection => ({
  url,
  branchName,
  authMethod: 'Anonymous',
  login: null,
  password: null,
  sshPrivateKey: null,
});
const withLogin = (url: string, login: string, password: string): SourceConnection => ({
  ...anonymous(url),
  authMethod: 'Login/Password',
  login,
  password,
});

describe('git connection probe against real git servers', function () {
  this.timeout(60000);
  let open: GitServer;
  let locked: GitServer;
  let silent: net.Server;
  let silentPort: number;
  const sockets: net.Socket[] = [];
  let egress: EgressProxy;

  before(async () => {
    // The test servers listen on this host: the one address the tests allow.
    egress = await EgressProxy.start(new OutboundPolicy({ allow: ['127.0.0.1/32'] }));
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
    await egress?.close();
    await open?.close();
    await locked?.close();
    sockets.forEach((s) => s.destroy());
    silent?.close();
  });

  it('lists branches and the default branch of an anonymous repository', async () => {
    const r = await probeGit('http', anonymous(open.urlOf('app')), LIMIT_MS, egress);
    expect(r.ok, r.message).to.equal(true);
    expect(r.default_branch).to.equal('main');
    expect(r.branches).to.deep.equal(['develop', 'main', 'release/1.0']);
  });

  it('accepts the right credentials and sends them to the server', async () => {
    const r = await probeGit('http', withLogin(locked.urlOf('secret'), 'alice', 'wonderland-42'), LIMIT_MS, egress);
    expect(r.ok, r.message).to.equal(true);
    expect(locked.requests.some((q) => q.user === 'alice')).to.equal(true);
  });

  it('says authentication was refused for a wrong password, without echoing it', async () => {
    const r = await probeGit('http', withLogin(locked.urlOf('secret'), 'alice', 'not-the-password'), LIMIT_MS, egress);
    expect(r.ok).to.equal(false);
    expect(r.message).to.match(/^Authentication refused/);
    expect(r.message).not.to.contain('not-the-password');
  });

  it('gives the credentials only to the source\u2019s own host, not to a host it redirects to', async () => {
    const redirect = http.createServer((req, res) =>
      res.writeHead(302, { location: `${locked.urlOf('secret')}${req.url!.replace(/^\/moved\.git/, '')}` }).end(),
    );
    await new Promise<void>((r) => redirect.listen(0, '127.0.0.1', r));
    try {
      const before = locked.requests.filter((q) => q.user).length;
      const r = await probeGit(
        'http',
        withLogin(
          `http://127.0.0.1:${(redirect.address() as net.AddressInfo).port}/moved.git`,
          'alice',
          'wonderland-42',
        ),
        LIMIT_MS,
        egress,
      );
      expect(r.ok).to.equal(false);
      expect(r.message).to.match(/^Authentication refused/);
      expect(locked.requests.filter((q) => q.user).length).to.equal(before);
    } finally {
      redirect.close();
    }
  });

  it('says anonymous access was refused by a protected repository', async () => {
    const r = await probeGit('http', anonymous(locked.urlOf('secret')), LIMIT_MS, egress);
    expect(r.message).to.match(/^Authentication refused.*anonymous/);
  });

  it('names an unknown branch and the branches that exist', async () => {
    const r = await probeGit('http', anonymous(open.urlOf('app'), 'feature/nope'), LIMIT_MS, egress);
    expect(r.ok).to.equal(false);
    expect(r.message).to.match(/^Unknown branch: "feature\/nope"/);
    expect(r.message).to.contain('develop');
    expect((await probeGit('http', anonymous(open.urlOf('app'), 'release/1.0'), LIMIT_MS, egress)).ok).to.equal(true);
  });

  it('says the host is unreachable when nothing listens on the port', async () => {
    const r = await probeGit('http', anonymous(`http://127.0.0.1:${await freePort()}/app.git`), LIMIT_MS, egress);
    expect(r.ok).to.equal(false);
    expect(r.message).to.match(/^Host unreachable: could not connect/);
  });

  it('answers a refused address like a closed port, redirects included, and nothing reaches the refused server', async () => {
    const refused = await startGitServer({ host: '127.0.0.2' });
    const redirect = http.createServer((req, res) =>
      res.writeHead(302, { location: `${refused.urlOf('app')}${req.url!.replace(/^\/moved\.git/, '')}` }).end(),
    );
    await new Promise<void>((r) => redirect.listen(0, '127.0.0.1', r));
    try {
      refused.addRepository('app', { 'README.md': '# app\n' });
      const closed = `127.0.0.1:${await freePort()}`;
      const refusedHost = new URL(refused.baseUrl).host;
      for (const [url, host] of [
        [refused.urlOf('app'), refusedHost],
        ['http://169.254.169.254/latest/meta-data/', '169.254.169.254'],
        ['https://[::1]/app.git', '[::1]'],
        [`http://${closed}/app.git`, closed],
      ]) {
        expect(await probeGit('http', anonymous(url), LIMIT_MS, egress), url).to.deep.equal({
          ok: false,
          message: `Host unreachable: could not connect to ${host}`,
        });
      }
      const redirected = await probeGit(
        'http',
        anonymous(`http://127.0.0.1:${(redirect.address() as net.AddressInfo).port}/moved.git`),
        LIMIT_MS,
        egress,
      );
      expect(redirected.ok).to.equal(false);
      expect(redirected.message).to.match(/^Host unreachable: could not connect to 127\.0\.0\.1:/);
      expect(refused.requests).to.deep.equal([]);
    } finally {
      redirect.close();
      await refused.close();
    }
  });

  it('gives up at the time limit when the host never answers', async () => {
    const r = await probeGit('http', anonymous(`http://127.0.0.1:${silentPort}/app.git`), 1500, egress);
    expect(r.ok).to.equal(false);
    expect(r.message).to.match(/^Host unreachable: .*timed out/);
  });

  it('says a web page or a missing repository is not a Git repository', async () => {
    expect((await probeGit('http', anonymous(open.notARepositoryUrl), LIMIT_MS, egress)).message).to.match(
      /^Not a Git repository/,
    );
    expect((await probeGit('http', anonymous(open.urlOf('missing')), LIMIT_MS, egress)).message).to.match(
      /^Not a Git repository/,
    );
  });

  it('runs ssh with the private key from a private file and says when the host is unreachable', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'probe-key-'));
    try {
      execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', path.join(dir, 'id')]);
      const key = fs.readFileSync(path.join(dir, 'id'), 'utf8');
      const conn: SourceConnection = {
        url: `ssh://git@127.0.0.1:${await freePort()}/app.git`,
        branchName: null,
        authMethod: 'SSH key',
        login: null,
        password: null,
        sshPrivateKey: key,
      };
      const r = await probeGit('ssh', conn, LIMIT_MS, egress);
      expect(r.ok).to.equal(false);
      expect(r.message).to.match(/^Host unreachable: could not connect to 127\.0\.0\.1/);
      expect(r.message).not.to.contain('PRIVATE KEY');
      // ssh connects through the egress proxy: an allowed listener is reached, one on a refused address never.
      const connections: Record<string, number> = { '127.0.0.1': 0, '127.0.0.2': 0 };
      const listeners = await Promise.all(
        Object.keys(connections).map(async (host) => {
          const listener = net.createServer((s) => s.end('SSH-2.0-OpenSSH_9.2\r\n'));
          listener.on('connection', () => connections[host]++);
          await new Promise<void>((resolve) => listener.listen(0, host, resolve));
          return listener;
        }),
      );
      try {
        const [allowedPort, refusedPort] = listeners.map((l) => (l.address() as net.AddressInfo).port);
        expect(
          (await probeGit('ssh', { ...conn, url: `ssh://git@127.0.0.1:${allowedPort}/app.git` }, LIMIT_MS, egress)).ok,
        ).to.equal(false);
        for (const url of [`ssh://git@127.0.0.2:${refusedPort}/app.git`, 'git@169.254.169.254:app.git']) {
          const refused = await probeGit('ssh', { ...conn, url }, LIMIT_MS, egress);
          expect(refused.message, url).to.equal(
            `Host unreachable: could not connect to ${url.startsWith('ssh') ? `127.0.0.2:${refusedPort}` : '169.254.169.254'}`,
          );
        }
        expect(connections).to.deep.equal({ '127.0.0.1': 1, '127.0.0.2': 0 });
      } finally {
        listeners.forEach((l) => l.close());
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses transports other than http(s) and ssh, and credentials inside the URL', () => {
    for (const url of ['file:///etc', 'ext::sh -c id', 'git://127.0.0.1/app.git', '/srv/repo.git', 'ftp://h/x']) {
      expect(
        resolveConnection(HTTP, { url }).problems.map((p) => p.field),
        url,
      ).to.include('settings.url');
    }
    for (const url of ['file:///etc', 'ext::ssh x', '-oProxyCommand=x@h:p', 'https://h/x.git']) {
      expect(
        resolveConnection(SSH, { url, ssh_private_key: '-----BEGIN OPENSSH PRIVATE KEY-----\nx\n' }).problems.map(
          (p) => p.field,
        ),
        url,
      ).to.include('settings.url');
    }
    expect(
      resolveConnection(SSH, {
        url: 'git@github.com:org/repo.git',
        ssh_private_key: '-----BEGIN OPENSSH PRIVATE KEY-----\nx\n',
      }).problems,
    ).to.deep.equal([]);
    expect(resolveConnection(HTTP, { url: 'https://bob:pw@h/x.git' }).problems[0].problem).to.match(/credentials/);
  });

  it('keeps a stored password when an update leaves it out, and drops it for Anonymous', () => {
    const stored = withLogin('https://h/x.git', 'alice', 'kept-secret');
    expect(resolveConnection(HTTP, { branch_name: 'dev' }, stored).connection).to.include({
      password: 'kept-secret',
      branchName: 'dev',
      authMethod: 'Login/Password',
    });
    expect(resolveConnection(HTTP, { auth_method: 'Anonymous' }, stored).connection).to.include({
      password: null,
      login: null,
    });
    expect(
      resolveConnection(HTTP, { url: 'https://h/x.git', login: 'bob' }).problems.map((p) => p.field),
    ).to.deep.equal(['settings.password']);
  });
});
