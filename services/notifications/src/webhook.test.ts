import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { OutboundPolicy } from '@bulwark/platform';
import { WebhookClient } from './webhook';

describe('webhook targets', () => {
  let server: http.Server;
  let port: number;
  let hits = 0;
  before(async () => {
    server = http.createServer((req, res) => {
      hits++;
      req.resume();
      res.writeHead(204).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const body = {
    id: 'e',
    type: 'notifier.test',
    occurred_at: new Date().toISOString(),
    project_code: null,
    message: 'm',
    message_ru: 'м',
    data: {},
  };
  const target = (host: string) => ({
    url: `http://${host}:${port}/hook`,
    timeoutSeconds: 5,
    authHeaderName: null,
    authHeaderValue: null,
    signingSecrets: [],
    payloadFormat: 'json' as const,
  });

  it('does not connect to an address the default policy refuses, by literal or by name, and says retrying is pointless', async () => {
    const guarded = new WebhookClient(new OutboundPolicy());
    try {
      for (const host of ['127.0.0.1', 'localhost', '[::ffff:127.0.0.1]']) {
        const result = await guarded.call(target(host), body, 'd');
        expect(result, host).to.include({
          delivered: false,
          status: null,
          permanent: true,
          error: `Host unreachable: could not connect to ${new URL(target(host).url).host}`,
        });
      }
      expect(hits).to.equal(0);
    } finally {
      await guarded.close();
    }
  });

  it('delivers to an address the allow list opens, and nowhere else on this host', async () => {
    const open = new WebhookClient(new OutboundPolicy({ allow: ['127.0.0.1/32'] }));
    try {
      expect(await open.call(target('127.0.0.1'), body, 'd')).to.include({ delivered: true, status: 204, error: null });
      expect(hits).to.equal(1);
      expect(await open.call(target('127.0.0.2'), body, 'd')).to.include({ delivered: false, permanent: true });
      expect(hits).to.equal(1);
    } finally {
      await open.close();
    }
  });
});
