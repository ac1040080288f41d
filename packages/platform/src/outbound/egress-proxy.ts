import { randomBytes, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { OutboundPolicy } from './policy';

/** What one session's connections came to: enough to answer "unreachable" without telling why. */
export interface EgressOutcome {
  /** A connection to a target was opened. */
  reached: boolean;
  /** A target was refused by the policy, did not resolve, refused the connection or did not accept it in time. */
  failed: boolean;
}

/** One user of the proxy (a git run): its credentials and what its connections came to. */
export interface EgressSession {
  /** `http://<user>:<secret>@127.0.0.1:<port>`: hand it over in a child's environment, never its argv. */
  readonly proxyUrl: string;
  readonly port: number;
  /** `Basic <...>`, the Proxy-Authorization value of this session. */
  readonly authorization: string;
  readonly outcome: EgressOutcome;
  close(): void;
}

interface SessionState {
  outcome: EgressOutcome;
  connectTimeoutMs: number;
}

// Hop-by-hop headers and the proxy's own, never forwarded; Expect too, as this server already answered 100-continue.
const HOP_BY_HOP = [
  'expect',
  'connection',
  'proxy-connection',
  'keep-alive',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
];

const withoutHopByHop = (headers: http.IncomingHttpHeaders | http.OutgoingHttpHeaders) =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.includes(name.toLowerCase())));

/** `host:port` of a CONNECT request, IPv6 in brackets. */
function splitAuthority(authority: string): { host: string; port: number } | undefined {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+):(\d{1,5})$/.exec(authority);
  const port = m ? Number(m[2]) : 0;
  return m && port > 0 && port < 65536 ? { host: m[1], port } : undefined;
}

/**
 * An HTTP proxy on 127.0.0.1 (a random port) through which child processes (git) reach what users
 * name: every target, redirects included, is resolved and checked with the outbound policy when the
 * connection is made, and the checked address is the one connected to. CONNECT tunnels https and
 * ssh; absolute-form requests carry plain http, each checked on its own. Only holders of a live
 * session's secret may use it, so it opens nothing to other local processes. Every failure to reach
 * a target (refused address, unknown name, closed or filtered port) gets the same 502.
 */
export class EgressProxy {
  private readonly sessions = new Map<string, SessionState>();

  private constructor(
    private readonly server: http.Server,
    private readonly policy: OutboundPolicy,
    readonly port: number,
  ) {}

  static async start(policy: OutboundPolicy): Promise<EgressProxy> {
    const server = http.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', resolve);
    });
    const proxy = new EgressProxy(server, policy, (server.address() as net.AddressInfo).port);
    // A request this proxy cannot handle ends its connection, never the process.
    server.on('request', (req, res) => void proxy.forward(req, res).catch(() => res.destroy()));
    server.on(
      'connect',
      (req, socket: net.Socket, head: Buffer) => void proxy.tunnel(req, socket, head).catch(() => socket.destroy()),
    );
    server.on('clientError', (_err, socket) => socket.destroy());
    return proxy;
  }

  /** A new session; `connectTimeoutMs` bounds each connection to a target, so a filtered port ends like a closed one. */
  open(connectTimeoutMs: number): EgressSession {
    const user = 'egress';
    const secret = randomBytes(24).toString('hex');
    const authorization = `Basic ${Buffer.from(`${user}:${secret}`).toString('base64')}`;
    const state: SessionState = { outcome: { reached: false, failed: false }, connectTimeoutMs };
    this.sessions.set(authorization, state);
    return {
      proxyUrl: `http://${user}:${secret}@127.0.0.1:${this.port}`,
      port: this.port,
      authorization,
      outcome: state.outcome,
      close: () => this.sessions.delete(authorization),
    };
  }

  async close(): Promise<void> {
    this.sessions.clear();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private sessionOf(req: http.IncomingMessage): SessionState | undefined {
    const given = Buffer.from(req.headers['proxy-authorization'] ?? '');
    for (const [authorization, state] of this.sessions) {
      const expected = Buffer.from(authorization);
      if (given.length === expected.length && timingSafeEqual(given, expected)) return state;
    }
    return undefined;
  }

  /** Resolves, checks and connects; undefined (and the session marked failed) for any failure. */
  private async connect(state: SessionState, host: string, port: number): Promise<net.Socket | undefined> {
    try {
      const [target] = await this.policy.resolve(host);
      const socket = await new Promise<net.Socket>((resolve, reject) => {
        const s = net.connect({ host: target.address, port, family: target.family });
        const timer = setTimeout(() => s.destroy(new Error('connect timed out')), state.connectTimeoutMs);
        s.once('connect', () => {
          clearTimeout(timer);
          resolve(s);
        });
        s.once('error', (err) => {
          clearTimeout(timer);
          reject(err);
        });
      });
      state.outcome.reached = true;
      return socket;
    } catch {
      state.outcome.failed = true;
      return undefined;
    }
  }

  private async tunnel(req: http.IncomingMessage, client: net.Socket, head: Buffer): Promise<void> {
    client.on('error', () => client.destroy());
    const state = this.sessionOf(req);
    if (!state)
      return void client.end(
        'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="egress"\r\nContent-Length: 0\r\n\r\n',
      );
    const authority = splitAuthority(req.url ?? '');
    if (!authority) return void client.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n');
    const upstream = await this.connect(state, authority.host, authority.port);
    if (!upstream) return void client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n');
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length > 0) upstream.write(head);
    client.pipe(upstream).pipe(client);
  }

  private async forward(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const state = this.sessionOf(req);
    if (!state)
      return void res.writeHead(407, { 'proxy-authenticate': 'Basic realm="egress"', 'content-length': 0 }).end();
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      return void res.writeHead(400, { 'content-length': 0 }).end();
    }
    if (target.protocol !== 'http:') return void res.writeHead(400, { 'content-length': 0 }).end();
    const socket = await this.connect(state, target.hostname, Number(target.port || 80));
    if (!socket) return void res.writeHead(502, { 'content-length': 0 }).end();
    const upstream = http.request({
      createConnection: () => socket,
      method: req.method,
      path: `${target.pathname}${target.search}`,
      headers: { ...withoutHopByHop(req.headers), host: target.host, connection: 'close' },
    });
    upstream.on('response', (answer) => {
      res.writeHead(answer.statusCode ?? 502, withoutHopByHop(answer.headers));
      answer.pipe(res);
    });
    upstream.on('error', () => (res.headersSent ? res.destroy() : res.writeHead(502, { 'content-length': 0 }).end()));
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  }
}
