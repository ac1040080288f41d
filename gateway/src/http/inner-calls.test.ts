import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import express, { Request } from 'express';
import { CLIENT_IP_HEADER, VIA_HEADER } from '@bulwark/platform';
import { clientAddress, INNER_CALL_HEADER, InnerCalls } from './inner-calls';

describe('the MCP server’s inner calls told apart from outside requests', () => {
  const innerCalls = new InnerCalls();
  let server: Server;
  let url: string;
  let outer: Request | undefined;

  before(async () => {
    const app = express();
    app.use(innerCalls.recognise());
    app.get('/outer', (req, res) => {
      outer = req;
      res.json({});
    });
    app.get('/seen', (req, res) =>
      res.json({
        address: clientAddress(req),
        via: req.header(VIA_HEADER) ?? null,
        innerHeader: req.header(INNER_CALL_HEADER) ?? null,
      }),
    );
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => server.close());

  const seen = async (headers: Record<string, string>) => (await fetch(`${url}/seen`, { headers })).json();

  it('takes the caller’s address and X-Bulwark-Via from a call carrying this process’s key, and passes the key on to no one', async () => {
    await fetch(`${url}/outer`);
    expect(outer).to.not.equal(undefined);
    const headers = { ...innerCalls.headersFor(outer as Request), [CLIENT_IP_HEADER]: '203.0.113.7' };
    expect(await seen({ ...headers, [VIA_HEADER]: 'mcp' })).to.deep.equal({
      address: '203.0.113.7',
      via: 'mcp',
      innerHeader: null,
    });
  });

  it('drops X-Bulwark-Via and a claimed address from any other request, a wrong key of the same length too', async () => {
    const claims = { [CLIENT_IP_HEADER]: '203.0.113.7', [VIA_HEADER]: 'mcp' };
    const wrongKey = 'x'.repeat(innerCalls.headersFor(outer as Request)[INNER_CALL_HEADER].length);
    const others: Record<string, string>[] = [{}, { [INNER_CALL_HEADER]: wrongKey }, { [INNER_CALL_HEADER]: '' }];
    for (const extra of others) {
      const answer = await seen({ ...claims, ...extra });
      expect(answer).to.deep.include({ via: null, innerHeader: null });
      expect(answer.address).to.match(/127\.0\.0\.1$/);
    }
  });
});
