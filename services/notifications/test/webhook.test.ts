import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { isBlockedAddress } from '../src/domain/target-guard';
import { WebhookClient } from '../src/webhook';

describe('webhook targets', () => {
  it('refuses this host, link-local, unspecified and multicast addresses, and lets private networks through', () => {
    const cases: [string, boolean][] = [
      ['127.0.0.1', true], ['127.9.9.9', true], ['0.0.0.0', true], ['169.254.169.254', true], ['224.0.0.1', true], ['255.255.255.255', true],
      ['::1', true], ['::', true], ['fe80::1', true], ['ff02::1', true], ['::ffff:127.0.0.1', true], ['::ffff:169.254.169.254', true],
      ['10.0.0.5', false], ['172.16.0.1', false], ['192.168.1.10', false], ['8.8.8.8', false], ['128.0.0.1', false], ['169.253.1.1', false],
      ['::ffff:10.0.0.1', false], ['2001:db8::1', false], ['fd00::1', false],
    ];
    for (const [ip, expected] of cases) expect(isBlockedAddress(ip), ip).to.equal(expected);
  });

  describe('calls', () => {
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

    const body = { id: 'e', type: 'notifier.test', occurred_at: new Date().toISOString(), project_code: null, message: 'm', message_ru: 'м', data: {} };
    const target = (host: string) => ({ url: `http://${host}:${port}/hook`, timeoutSeconds: 5, authHeaderName: null, authHeaderValue: null });

    it('does not connect to a blocked address, by literal or by name, and says retrying is pointless', async () => {
      const guarded = new WebhookClient(true);
      try {
        for (const host of ['127.0.0.1', 'localhost']) {
          const result = await guarded.call(target(host), body, 'd');
          expect(result, host).to.include({ delivered: false, status: null, permanent: true });
          expect(result.error, host).to.match(/is not allowed/);
        }
        expect(hits).to.equal(0);
      } finally {
        await guarded.close();
      }
    });

    it('delivers to this host when local targets are allowed', async () => {
      const open = new WebhookClient(false);
      try {
        expect(await open.call(target('127.0.0.1'), body, 'd')).to.include({ delivered: true, status: 204, error: null });
        expect(hits).to.equal(1);
      } finally {
        await open.close();
      }
    });
  });
});
