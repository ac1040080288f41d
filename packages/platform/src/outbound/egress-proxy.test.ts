import http from 'node:http';
import net from 'node:net';
import { expect } from 'chai';
import { EgressProxy, EgressSession } from './egress-proxy';
import { OutboundPolicy, ResolvedAddress } from './policy';

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
