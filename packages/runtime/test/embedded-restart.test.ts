import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { SERVICE_NAMES } from '@bulwark/platform';
import { ADMIN_PASSWORD, startAllMode, uniqueSuffix } from '@bulwark/testkit';

/** `TARGET=all` started twice on one data directory: what the first run committed is there in the second. */
describe('single-process mode restarted on its data directory', function () {
  this.timeout(300000);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'embedded-restart-'));
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('keeps every service its own database on the embedded server, and their data across the restart', async () => {
    const code = `restart-${uniqueSuffix()}`;
    const username = `restart-user-${uniqueSuffix()}`;
    const password = 'correct-horse-battery-restart';
    const first = await startAllMode({ BULWARK_DATA_DIR: dataDir });
    try {
      const admin = first.api.as(await first.api.login('admin', ADMIN_PASSWORD));
      expect((await admin.post('/api/v1/project', { code, name: 'Kept' })).status).to.equal(200);
      expect(
        (await admin.post('/api/v1/user', { username, password, password_confirmation: password, roles: [] })).status,
      ).to.equal(200);
    } finally {
      await first.stop();
    }
    expect(fs.existsSync(path.join(dataDir, 'postgres', 'cluster', 'PG_VERSION'))).to.equal(true);
    const databases = fs.readdirSync(path.join(dataDir, 'postgres', 'cluster', 'base'));
    // template0, template1, postgres and one database per service.
    expect(databases).to.have.length(3 + SERVICE_NAMES.length);

    const second = await startAllMode({ BULWARK_DATA_DIR: dataDir });
    try {
      const admin = second.api.as(await second.api.login('admin', ADMIN_PASSWORD));
      const project = await admin.get(`/api/v1/project/${code}`);
      expect(project.status).to.equal(200);
      expect(project.body.name).to.equal('Kept');
      await second.api.login(username, password);
    } finally {
      await second.stop();
    }
  });
});
