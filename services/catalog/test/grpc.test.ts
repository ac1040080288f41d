import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { expect } from 'chai';
import { AppError, createGrpcClient, GrpcClientHandle, InternalAuth } from '@bulwark/platform';
import { catalogV1 } from '@bulwark/proto';
import { ADMIN_PASSWORD, Api, RunningSystem, startAllMode, uniqueSuffix } from '@bulwark/testkit';

async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

/** The catalog's gRPC API as another service calls it: secrets only on request, usability per project. */
describe('catalog gRPC API for other services', function () {
  this.timeout(120000);
  const secret = randomBytes(32).toString('hex');
  let sys: RunningSystem;
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
    sys = await startAllMode({ BULWARK_INTERNAL_SECRET: secret, CATALOG_GRPC_PORT: String(port) });
    admin = sys.api.as(await sys.api.login('admin', ADMIN_PASSWORD));
    grpc = createGrpcClient(catalogV1.CatalogServiceService, 'catalog', `127.0.0.1:${port}`, new InternalAuth(secret, 'scanning'));
    for (const code of [mine, other]) expect((await admin.post('/api/v1/project', { code, name: code, tags: ['t'] })).status).to.equal(200);
    const source = await admin.post('/api/v1/source', {
      name: 'repo', source_type_id: 1, access_type: 'project', project_codes: [mine],
      settings: { url: 'https://git.example/app.git', auth_method: 'Login/Password', login: 'bot', password },
    });
    sourceId = source.body.id;
    toolId = (await admin.post('/api/v1/tool', { type_id: 10, settings: { url: 'https://sonar.example', api_token: token } })).body.id;
    layerId = (await admin.post('/api/v1/layer', { name: 'code', project_code: mine, layer_type_id: 1 })).body.id;
  });

  after(async () => {
    grpc?.close();
    await sys?.stop();
  });

  it('opens source and tool secrets only when asked', async () => {
    const plain = await grpc.client.getSource({ id: sourceId, withSecrets: false });
    expect(plain).to.include({ url: 'https://git.example/app.git', authMethod: 'Login/Password', login: 'bot', password: '', accessType: 'project' });
    expect(plain.projectCodes).to.deep.equal([mine]);
    expect((await grpc.client.getSource({ id: sourceId, withSecrets: true })).password).to.equal(password);
    const tool = await grpc.client.getTool({ id: toolId, withSecrets: false });
    expect(tool).to.include({ typeName: 'SonarQube', kind: 'server', apiToken: '' });
    expect(JSON.parse(tool.settingsJson)).to.deep.equal({ url: 'https://sonar.example', auth_method: 'Api Token' });
    expect((await grpc.client.getTool({ id: toolId, withSecrets: true })).apiToken).to.equal(token);
  });

  it('answers projects and layers, with the archive state, and NOT_FOUND for unknown ids', async () => {
    expect(await grpc.client.getProject({ code: mine })).to.deep.include({ code: mine, archived: false, tags: ['t'] });
    expect(await grpc.client.getLayer({ id: layerId })).to.include({ projectCode: mine, layerTypeId: 1, projectArchived: false });
    const missing = await grpc.client.getSource({ id: 'nope', withSecrets: true }).catch((e: unknown) => e);
    expect(missing).to.be.instanceOf(AppError);
    expect((missing as AppError).code).to.equal('not_found');
  });

  it('says whether a project may use a source and a tool, and why not', async () => {
    expect(await grpc.client.checkUsable({ projectCode: mine, sourceId, toolId })).to.deep.equal({ usable: true, problems: [] });
    const elsewhere = await grpc.client.checkUsable({ projectCode: other, sourceId, toolId });
    expect(elsewhere.usable).to.equal(false);
    expect(elsewhere.problems.map((p) => p.field)).to.deep.equal(['scan_source_id']);
    expect((await admin.put('/api/v1/projects/archive', { codes: [mine] })).status).to.equal(200);
    const archived = await grpc.client.checkUsable({ projectCode: mine, sourceId, toolId });
    expect(archived.problems[0]).to.include({ field: 'layer_id' });
    expect(archived.problems[0].problem).to.match(/archived/);
    expect((await grpc.client.getLayer({ id: layerId })).projectArchived).to.equal(true);
  });
});
