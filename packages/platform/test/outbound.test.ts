import http from 'node:http';
import net from 'node:net';
import { expect } from 'chai';
import { ConfigError, EgressProxy, EgressSession, OutboundPolicy, readOutboundPolicy, ResolvedAddress } from '../src';

describe('outbound address policy', () => {
  it('refuses loopback, link-local, unspecified and multicast by default, in IPv4, IPv6 and IPv4-mapped IPv6', () => {
    const policy = new OutboundPolicy();
    const cases: [string, boolean][] = [
      ['127.0.0.1', false],
      ['127.9.9.9', false],
      ['0.0.0.0', false],
      ['169.254.169.254', false],
      ['224.0.0.1', false],
      ['239.255.255.250', false],
      ['255.255.255.255', false],
      ['::1', false],
      ['::', false],
      ['fe80::1', false],
      ['[fe80::1%25eth0]', false],
      ['ff02::1', false],
      ['::ffff:127.0.0.1', false],
      ['::ffff:7f00:1', false],
      ['::ffff:169.254.169.254', false],
      ['[::ffff:127.0.0.1]', false],
      ['10.0.0.5', true],
      ['172.16.0.1', true],
      ['192.168.1.10', true],
      ['8.8.8.8', true],
      ['128.0.0.1', true],
      ['169.253.1.1', true],
      ['::ffff:10.0.0.1', true],
      ['2001:db8::1', true],
      ['fd00::1', true],
      ['[2001:db8::1]', true],
      ['localhost', false],
      ['', false],
      ['1.2.3', false],
    ];
    for (const [ip, allowed] of cases) expect(policy.allowsAddress(ip), ip).to.equal(allowed);
  });

  it('opens default-denied ranges by the allow list, and an explicit deny wins over an allow', () => {
    const policy = new OutboundPolicy({
      allow: ['127.0.0.1/32', '169.254.0.0/16', 'fe80::/10'],
      deny: ['10.0.0.0/8', '169.254.169.254', '2001:db8::/32'],
    });
    const cases: [string, boolean][] = [
      ['127.0.0.1', true],
      ['::ffff:127.0.0.1', true],
      ['127.0.0.2', false],
      ['::1', false],
      ['169.254.1.1', true],
      ['169.254.169.254', false],
      ['::ffff:169.254.169.254', false],
      ['fe80::1', true],
      ['10.1.2.3', false],
      ['::ffff:10.1.2.3', false],
      ['11.0.0.1', true],
      ['2001:db8::1', false],
      ['2001:db9::1', true],
    ];
    for (const [ip, allowed] of cases) expect(policy.allowsAddress(ip), ip).to.equal(allowed);
    expect(new OutboundPolicy({ allow: ['10.0.0.0/8'], deny: ['10.0.0.0/8'] }).allowsAddress('10.0.0.1')).to.equal(
      false,
    );
  });

  it('reads the lists from the environment and names a bad entry', () => {
    const policy = readOutboundPolicy({
      OUTBOUND_ALLOW_CIDRS: ' 127.0.0.1/32 , fd00::/8',
      OUTBOUND_DENY_CIDRS: '192.168.0.0/16',
    });
    expect([
      policy.allowsAddress('127.0.0.1'),
      policy.allowsAddress('192.168.1.1'),
      policy.allowsAddress('10.0.0.1'),
    ]).to.deep.equal([true, false, true]);
    for (const bad of ['10.0.0.0/33', 'example.com', '10.0.0.0/8/1', '::1/129', '10.0.0.0/x']) {
      expect(() => readOutboundPolicy({ OUTBOUND_DENY_CIDRS: bad }), bad).to.throw(ConfigError, /OUTBOUND_DENY_CIDRS/);
    }
  });

  it('resolves a name to addresses it then checks: any refused address refuses the name, with one neutral message', async () => {
    const answers: Record<string, ResolvedAddress[]> = {
      'git.example': [{ address: '10.0.0.7', family: 4 }],
      'mixed.example': [
        { address: '10.0.0.7', family: 4 },
        { address: '::1', family: 6 },
      ],
      'metadata.example': [{ address: '169.254.169.254', family: 4 }],
    };
    const policy = new OutboundPolicy({}, async (host) => answers[host] ?? []);
    expect(await policy.resolve('git.example')).to.deep.equal(answers['git.example']);
    for (const host of ['mixed.example', 'metadata.example', 'nothing.example', '127.0.0.1', '[::1]']) {
      let message = '';
      await policy.resolve(host).catch((err: Error) => (message = err.message));
      expect(message, host).to.equal(`Host unreachable: could not connect to ${host}`);
    }
  });
});

/** Sends one request to the proxy on a fresh connection and answers the status line and the rest. */
function rawRequest(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(text));
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
      if (answer.includes('\r\n\r\n')) {
        socket.destroy();
        resolve(answer);
      }
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(answer));
  });
}

describe('egress proxy', () => {
  let target: http.Server;
  let targetPort: number;
  let hits = 0;
  // The name resolves to an allowed address first and to a refused one afterwards: DNS rebinding.
  let rebinding: ResolvedAddress[][];
  let proxy: EgressProxy;
  let session: EgressSession;

  before(async () => {
    target = http.createServer((req, res) => {
      hits++;
      res.writeHead(200, { 'content-type': 'text/plain' }).end(`hello ${req.url}`);
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    targetPort = (target.address() as net.AddressInfo).port;
    const resolver = async (host: string) => (host === 'rebind.example' ? (rebinding.shift() ?? []) : []);
    proxy = await EgressProxy.start(new OutboundPolicy({ allow: ['127.0.0.1/32'] }, resolver));
  });
  beforeEach(() => {
    session = proxy.open(2000);
  });
  afterEach(() => session.close());
  after(async () => {
    await proxy.close();
    await new Promise<void>((resolve) => target.close(() => resolve()));
  });

  const connect = (authority: string, authorization = session.authorization) =>
    rawRequest(
      proxy.port,
      `CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\nProxy-Authorization: ${authorization}\r\n\r\n`,
    );
  /** A plain-http GET through the proxy (absolute-form): the status and the body. */
  const get = (url: string, authorization = session.authorization) =>
    new Promise<string>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port: proxy.port,
          path: url,
          agent: false,
          headers: { host: new URL(url).host, 'proxy-authorization': authorization },
        },
        (res) => {
          let body = '';
          res.on('data', (chunk) => (body += chunk));
          res.on('end', () => resolve(`${res.statusCode} ${body}`));
        },
      );
      req.on('error', reject);
      req.end();
    });

  it('checks the address a name resolves to at each connection: an allowed first answer does not open a refused second one', async () => {
    rebinding = [
      [{ address: '127.0.0.1', family: 4 }],
      [{ address: '127.0.0.2', family: 4 }],
      [{ address: '127.0.0.1', family: 4 }],
      [{ address: '169.254.169.254', family: 4 }],
    ];
    expect(await connect(`rebind.example:${targetPort}`)).to.match(/^HTTP\/1\.1 200/);
    expect(await connect(`rebind.example:${targetPort}`)).to.match(/^HTTP\/1\.1 502/);
    const before = hits;
    expect(await get(`http://rebind.example:${targetPort}/first`)).to.equal('200 hello /first');
    expect(await get(`http://rebind.example:${targetPort}/second`)).to.equal('502 ');
    expect(hits).to.equal(before + 1);
    expect(session.outcome).to.deep.equal({ reached: true, failed: true });
  });

  it('answers a refused address, an unknown name and a closed port with the same 502', async () => {
    const closed = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = s.address() as net.AddressInfo;
        s.close(() => resolve(port));
      });
    });
    const tunnels = [
      `127.0.0.2:${targetPort}`,
      '169.254.169.254:80',
      '[::1]:22',
      `nowhere.example:${targetPort}`,
      `127.0.0.1:${closed}`,
    ];
    for (const authority of tunnels)
      expect(await connect(authority), authority).to.equal('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n');
    for (const url of [
      `http://127.0.0.2:${targetPort}/`,
      'http://169.254.169.254/latest/meta-data/',
      `http://nowhere.example:${targetPort}/`,
      `http://127.0.0.1:${closed}/`,
    ]) {
      expect(await get(url), url).to.equal('502 ');
    }
    expect(session.outcome).to.deep.equal({ reached: false, failed: true });
  });

  it('relays plain http to an allowed target and serves only holders of a live session', async () => {
    expect(await get(`http://127.0.0.1:${targetPort}/ok`)).to.equal('200 hello /ok');
    const stale = proxy.open(2000);
    stale.close();
    for (const authorization of ['', 'Basic ZWdyZXNzOndyb25n', stale.authorization]) {
      expect(await connect(`127.0.0.1:${targetPort}`, authorization), authorization).to.match(/^HTTP\/1\.1 407/);
      expect(await get(`http://127.0.0.1:${targetPort}/`, authorization), authorization).to.equal('407 ');
    }
  });
});
