import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import {
  AppError,
  createGrpcClient,
  GrpcClientHandle,
  InternalAuth,
  openDatabase,
  parseMasterKey,
  SecretBox,
} from '@bulwark/platform';
import { catalogV1 } from '@bulwark/proto';
import { ADMIN_PASSWORD, Api, RunningSystem, startAllMode, uniqueSuffix, freePort } from '@bulwark/testkit';
import { migrations } from '../src/migrations';

/**
 * The catalog in a single-process system whose data directory the test owns: the gRPC API as another
 * service calls it, tool cleanup on disk, and secrets sealed at rest under the generated master key.
 */
describe('catalog in a single-process system', function () {
  this.timeout(120000);
  const secret = randomBytes(32).toString('hex');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'catalog-process-'));
  let sys: RunningSystem | undefined;
  let admin: Api;
  let grpc: GrpcClientHandle<typeof catalogV1.CatalogServiceService>;
  const password = `grpc-pw-${uniqueSuffix()}`;
  const token = `grpc-token-${uniqueSuffix()}`;
  const [mine, other] = [`grpc-a-${uniqueSuffix()}`, `grpc-b-${uniqueSuffix()}`];
  let sourceId: string;
  let toolId: string;
  let layerId: string;

  before(async () => {
    const port = await freePort();
    sys = await startAllMode({
      BULWARK_INTERNAL_SECRET: secret,
      CATALOG_GRPC_PORT: String(port),
      BULWARK_DATA_DIR: dataDir,
    });
    admin = sys.api.as(await sys.api.login('admin', ADMIN_PASSWORD));
    grpc = createGrpcClient(
      catalogV1.CatalogServiceService,
      'catalog',
      `127.0.0.1:${port}`,
      new InternalAuth(secret, 'scanning'),
    );
    for (const code of [mine, other])
      expect((await admin.post('/api/v1/project', { code, name: code, tags: ['t'] })).status).to.equal(200);
    const source = await admin.post('/api/v1/source', {
      name: 'repo',
      source_type_id: 1,
      access_type: 'project',
      project_codes: [mine],
      settings: { url: 'https://git.example/app.git', auth_method: 'Login/Password', login: 'bot', password },
    });
    sourceId = source.body.id;
    toolId = (
      await admin.post('/api/v1/tool', { type_id: 10, settings: { url: 'https://sonar.example', api_token: token } })
    ).body.id;
    layerId = (await admin.post('/api/v1/layer', { name: 'code', project_code: mine, layer_type_id: 1 })).body.id;
  });

  after(async () => {
    grpc?.close();
    await sys?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('opens source and tool secrets only when asked', async () => {
    const plain = await grpc.client.getSource({ id: sourceId, withSecrets: false });
    expect(plain).to.include({
      url: 'https://git.example/app.git',
      authMethod: 'Login/Password',
      login: 'bot',
      password: '',
      accessType: 'project',
    });
    expect(plain.projectCodes).to.deep.equal([mine]);
    expect((await grpc.client.getSource({ id: sourceId, withSecrets: true })).password).to.equal(password);
    const tool = await grpc.client.getTool({ id: toolId, withSecrets: false });
    expect(tool).to.include({ typeName: 'SonarQube', kind: 'server', apiToken: '' });
    expect(JSON.parse(tool.settingsJson)).to.deep.equal({ url: 'https://sonar.example', auth_method: 'Api Token' });
    expect((await grpc.client.getTool({ id: toolId, withSecrets: true })).apiToken).to.equal(token);
  });

  it('answers projects and layers, with the archive state, and NOT_FOUND for unknown ids', async () => {
    expect(await grpc.client.getProject({ code: mine })).to.deep.include({ code: mine, archived: false, tags: ['t'] });
    expect(await grpc.client.getLayer({ id: layerId })).to.include({
      projectCode: mine,
      layerTypeId: 1,
      projectArchived: false,
    });
    const missing = await grpc.client.getSource({ id: 'nope', withSecrets: true }).catch((e: unknown) => e);
    expect(missing).to.be.instanceOf(AppError);
    expect((missing as AppError).code).to.equal('not_found');
  });

  it('lists every project’s code and tags a page at a time in code order, deleted projects too', async () => {
    expect((await grpc.client.listProjectTags({ afterCode: '', limit: 1 })).projects).to.deep.equal([
      { code: mine, tags: ['t'] },
    ]);
    expect((await admin.put(`/api/v1/project/${other}`, { tags: ['u', 'v'] })).status).to.equal(200);
    expect((await admin.delete('/api/v1/projects', { codes: [other] })).status).to.equal(200);
    expect((await grpc.client.listProjectTags({ afterCode: mine, limit: 1000 })).projects).to.deep.equal([
      { code: other, tags: ['u', 'v'] },
    ]);
    expect((await grpc.client.listProjectTags({ afterCode: other, limit: 1000 })).projects).to.deep.equal([]);
    expect((await admin.put('/api/v1/restore-projects', { codes: [other] })).status).to.equal(200);
  });

  it('says whether a project may use a source and a tool, and why not', async () => {
    expect(await grpc.client.checkUsable({ projectCode: mine, sourceId, toolId })).to.deep.equal({
      usable: true,
      problems: [],
    });
    const elsewhere = await grpc.client.checkUsable({ projectCode: other, sourceId, toolId });
    expect(elsewhere.usable).to.equal(false);
    expect(elsewhere.problems.map((p) => p.field)).to.deep.equal(['scan_source_id']);
    expect((await admin.put('/api/v1/projects/archive', { codes: [mine] })).status).to.equal(200);
    const archived = await grpc.client.checkUsable({ projectCode: mine, sourceId, toolId });
    expect(archived.problems[0]).to.include({ field: 'layer_id' });
    expect(archived.problems[0].problem).to.match(/archived/);
    expect((await grpc.client.getLayer({ id: layerId })).projectArchived).to.equal(true);
  });

  it('drops a tool\u2019s cached data on cleanup and answers what was removed', async () => {
    const cache = path.join(dataDir, 'tool-cache', toolId);
    fs.mkdirSync(path.join(cache, 'rules'), { recursive: true });
    fs.writeFileSync(path.join(cache, 'db.bin'), Buffer.alloc(1000));
    fs.writeFileSync(path.join(cache, 'rules', 'a.yml'), 'x'.repeat(24));
    const res = await admin.post(`/api/v1/tool/${toolId}/cleanup`);
    expect(res.status).to.equal(200);
    expect(res.body.removed).to.deep.equal({ files: 2, bytes: 1024 });
    expect(fs.existsSync(cache)).to.equal(false);
  });

  it('stores secrets sealed under the generated master key (owner-only file), and published its events without secrets', async () => {
    const keyFile = path.join(dataDir, 'secrets', 'master-key');
    expect(fs.statSync(keyFile).mode & 0o777).to.equal(0o600);
    await sys!.stop();
    sys = undefined;
    const db = await openDatabase({ service: 'catalog', dataDir, migrations });
    try {
      const row = await db('sources').where({ id: sourceId }).first('password_sealed');
      const tool = await db('tools').where({ id: toolId }).first('api_token_sealed', 'settings');
      expect(row.password_sealed).to.match(/^v1:[0-9a-f]{8}:/);
      expect(row.password_sealed).not.to.contain(password);
      expect(JSON.stringify(tool)).not.to.contain(token);
      const box = new SecretBox(parseMasterKey(fs.readFileSync(keyFile, 'utf8'), 'master-key'));
      expect(box.open(row.password_sealed)).to.equal(password);
      expect(box.open(tool.api_token_sealed)).to.equal(token);
      const events: { type: string; key: string; topic: string; payload: unknown; published_at: Date | null }[] =
        await db('bulwark_outbox').orderBy('seq');
      const seen = events.map((e) => `${e.type} ${e.key}`);
      for (const e of [
        `project.created ${mine}`,
        `source.created ${sourceId}`,
        `tool.created ${toolId}`,
        `layer.created ${layerId}`,
        `project.archived ${mine}`,
        `tool.cleaned_up ${toolId}`,
      ]) {
        expect(seen).to.include(e);
      }
      expect(events.every((e) => e.topic === 'bulwark.catalog.v1' && e.published_at !== null)).to.equal(true);
      expect(JSON.stringify(events.map((e) => e.payload)))
        .not.to.contain(password)
        .and.not.to.contain(token);
    } finally {
      await db.destroy();
    }
  });
});
