import net from 'node:net';

export interface Balancer {
  /** host:port to give the replicas' peers, as a Kubernetes Service's address would be. */
  address: string;
  close(): Promise<void>;
}

/**
 * What a Kubernetes Service does for the replicas of one service, on one host: each new TCP
 * connection goes to the next replica in turn, skipping one that refuses it (a killed process).
 * Connections are balanced, not requests, as with a ClusterIP: a kept-alive connection stays on its
 * replica until it ends. `port` 0 (the default) takes a free one; a given one starts it again at an
 * address it had, as a server coming back would.
 */
export async function startBalancer(backends: string[], port = 0): Promise<Balancer> {
  let next = 0;
  const sockets = new Set<net.Socket>();
  const track = (s: net.Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  };
  const connect = (client: net.Socket, tries: number) => {
    const [host, port] = backends[next++ % backends.length].split(':');
    const upstream = net.connect(Number(port), host);
    track(upstream);
    upstream.once('connect', () => {
      upstream.removeAllListeners('error');
      if (client.destroyed) return void upstream.destroy();
      client.pipe(upstream).pipe(client);
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
      client.resume();
    });
    upstream.once('error', () => (tries > 1 ? connect(client, tries - 1) : client.destroy()));
  };
  const server = net.createServer({ pauseOnConnect: true }, (client) => {
    track(client);
    // A client gone before its replica answered: its upstream is closed when it connects or fails.
    client.on('error', () => undefined);
    connect(client, backends.length);
  });
  // A port asked for may have been taken meanwhile (a test reopening its address): that fails, never hangs.
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    address: `127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
