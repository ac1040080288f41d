import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { BULWARK_VERSION } from '@bulwark/contracts';
import { OutboundPolicy } from '@bulwark/platform';
import { cefHeader, cefValue } from './cef';
import { WebhookClient } from '../webhook';

/** A CEF line read the way a receiver does: seven unescaped-pipe-separated header fields, then key=value pairs. */
function parseCef(line: string) {
  const header: string[] = [];
  let field = '';
  let i = 0;
  for (; header.length < 7 && i < line.length; i++) {
    const c = line[i];
    if (c === '\\') field += line[++i];
    else if (c === '|') (header.push(field), (field = ''));
    else field += c;
  }
  const rest = line.slice(i);
  const extension: Record<string, string> = {};
  // A key starts after a space and runs to an unescaped '='; its value runs to the next key.
  const keys = [...rest.matchAll(/(?:^| )([A-Za-z0-9_]+)=/g)].filter((m) => rest[m.index + m[0].length - 2] !== '\\');
  keys.forEach((m, k) => {
    const start = m.index + m[0].length;
    const end = k + 1 < keys.length ? keys[k + 1].index : rest.length;
    extension[m[1]] = rest
      .slice(start, end)
      .replace(/\\(.)/g, (_, ch: string) => (ch === 'n' ? '\n' : ch === 'r' ? '\r' : ch));
  });
  return { header, extension };
}

describe('CEF webhook output', () => {
  it('escapes the pipe and backslash in header fields and backslash, equals and line breaks in extension values', () => {
    expect(cefHeader('a|b\\c\nd')).to.equal('a\\|b\\\\c d');
    expect(cefValue('x=1\\y\r\nz|w')).to.equal('x\\=1\\\\y\\r\\nz|w');
  });

  describe('to a real HTTP receiver', () => {
    let server: http.Server;
    let port: number;
    const received: { headers: http.IncomingHttpHeaders; text: string }[] = [];
    before(async () => {
      server = http.createServer((req, res) => {
        let text = '';
        req.setEncoding('utf8');
        req.on('data', (c) => (text += c));
        req.on('end', () => {
          received.push({ headers: req.headers, text });
          res.writeHead(200).end();
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    });
    after(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('POSTs one signed CEF line per event that a receiver parses back to the event', async () => {
      const secret = `whsec_${Buffer.from('cef-test-signing-key-of-32-bytes!').toString('base64')}`;
      const client = new WebhookClient(new OutboundPolicy({ allow: ['127.0.0.1/32'] }));
      const data = {
        scan_result_id: 's1',
        layer_id: 'l1',
        project_code: 'shop|eu',
        verdict: { status: 'failed', locked: true, conditions: [] },
        note: 'a=b\\c\nnext',
      };
      const body = {
        id: 'evt-1',
        type: 'quality_gate.evaluated',
        occurred_at: '2026-11-23T00:00:00.000Z',
        project_code: 'shop|eu',
        message: 'Quality gate failed | layer l1\nsecond line',
        message_ru: 'Критерий качества не пройден',
        data,
      };
      try {
        const result = await client.call(
          {
            url: `http://127.0.0.1:${port}/cef`,
            timeoutSeconds: 5,
            authHeaderName: null,
            authHeaderValue: null,
            signingSecrets: [secret],
            payloadFormat: 'cef',
          },
          body,
          'delivery-1',
        );
        expect(result).to.include({ delivered: true, status: 200 });
      } finally {
        await client.close();
      }
      expect(received).to.have.length(1);
      const [got] = received;
      expect(got.headers['content-type']).to.equal('text/plain; charset=utf-8');
      expect(got.text.split('\n')).to.have.length(1);
      // Signed like JSON bodies; the reference library's verify() also parses the body as JSON, so its sign() recomputes the signature instead.
      const timestamp = new Date(Number(got.headers['webhook-timestamp']) * 1000);
      expect(String(got.headers['webhook-signature'])).to.equal(
        new Webhook(secret).sign(String(got.headers['webhook-id']), timestamp, got.text),
      );

      const { header, extension } = parseCef(got.text);
      expect(header).to.deep.equal([
        'CEF:0',
        'Bulwark',
        'Bulwark',
        BULWARK_VERSION,
        'quality_gate.evaluated',
        'Quality gate failed | layer l1 second line',
        '8',
      ]);
      expect(extension).to.include({
        externalId: 'evt-1',
        rt: String(Date.parse(body.occurred_at)),
        msg: body.message,
        cs1Label: 'project_code',
        cs1: 'shop|eu',
        cs2Label: 'payload_version',
        cs2: '1',
        cs3Label: 'data',
      });
      expect(JSON.parse(extension.cs3)).to.deep.equal(data);
    });
  });
});
