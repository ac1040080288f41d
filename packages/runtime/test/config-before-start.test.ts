import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { ConfigError } from '@bulwark/platform';
import { startRuntime } from '@bulwark/runtime';
import { freePort } from '@bulwark/testkit';

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

// Catalog starts before identity and issues: before configuration was read first, its embedded
// database was opened in the data directory by the time identity's bad variable was found.
describe('the runtime reads every module configuration before it starts any', function () {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'config-before-start-'));
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('refuses to start with one message naming the bad variable of each module, having started nothing', async () => {
    const dataDir = path.join(root, 'data');
    const ports = { PORT: await freePort(), CATALOG_HTTP_PORT: await freePort(), CATALOG_GRPC_PORT: await freePort() };
    const failure = await startRuntime({
      TARGET: 'all',
      BULWARK_DATA_DIR: dataDir,
      ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])),
      LOGIN_TOKEN_TTL_HOURS: '0',
      ISSUES_INGEST_CHUNK: '5',
    }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failure).to.be.instanceOf(ConfigError);
    const problems = (failure as ConfigError).problems;
    expect(problems.filter((p) => p.startsWith('LOGIN_TOKEN_TTL_HOURS: '))).to.have.length(1);
    expect(problems.filter((p) => p.startsWith('ISSUES_INGEST_CHUNK: '))).to.have.length(1);
    expect(problems).to.have.length(2);
    expect((failure as ConfigError).message)
      .to.contain('LOGIN_TOKEN_TTL_HOURS')
      .and.to.contain('ISSUES_INGEST_CHUNK');
    expect(fs.existsSync(dataDir), 'no embedded database or secret written').to.equal(false);
    for (const port of Object.values(ports)) expect(await listening(port), `port ${port}`).to.equal(false);
  });
});
