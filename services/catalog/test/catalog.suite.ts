import fs from 'node:fs';
import { expect } from 'chai';
import { captureLogLines } from '@bulwark/platform';
import {
  ADMIN_PASSWORD,
  Api,
  ApiResponse,
  GitServer,
  startGitServer,
  SystemUnderTest,
  uniqueSuffix,
  freePort,
  userWithRole,
  type Json,
} from '@bulwark/testkit';

const GIT_USER = 'ci-bot';

/** A client that keeps every response body, so the suite can prove no secret was ever returned. */
class RecordingApi extends Api {
  constructor(
    baseUrl: string,
    token: string | undefined,
    private readonly seen: string[],
  ) {
    super(baseUrl, token);
  }

  override async request<T = Json>(
    method: string,
    path: string,
    body?: unknown,
    rawBody?: string,
  ): Promise<ApiResponse<T>> {
    const res = await super.request<T>(method, path, body, rawBody);
    this.seen.push(typeof res.body === 'string' ? res.body : JSON.stringify(res.body));
    return res;
  }
}

function expectField(res: ApiResponse, status: number, field: string): void {
  expect(res.status, JSON.stringify(res.body)).to.equal(status);
  expect(
    res.body.error.details.map((d: { field: string }) => d.field),
    JSON.stringify(res.body),
  ).to.include(field);
}

function expectOk(res: ApiResponse): Json {
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body;
}

/**
 * The catalog through the gateway: sources (with real Git servers for the connection test), tools,
 * custom fields, projects, layers, project scope, conflicts, and secrets that never come back.
 */
export function catalogSuite(t: SystemUnderTest): void {
  const bodies: string[] = [];
  const logLines: string[] = [];
  let stopCapture: (() => void) | undefined;
  const gitPassword = `git-pw-${uniqueSuffix()}-Zq9`;
  const wrongPassword = `wrong-pw-${uniqueSuffix()}-Xk7`;
  const sonarToken = `sonar-token-${uniqueSuffix()}-Vb3`;
  const secrets = [gitPassword, wrongPassword, sonarToken];
  const code = (base: string) => `${base}-${uniqueSuffix()}`;

  let admin: Api;
  let open: GitServer;
  let locked: GitServer;
  let appRepo: string;
  let lockedRepo: string;

  const newAdmin = async () => new RecordingApi(t.anon.baseUrl, await t.anon.login('admin', ADMIN_PASSWORD), bodies);

  async function makeProject(extra: Record<string, unknown> = {}): Promise<string> {
    const c = code('prj');
    expectOk(await admin.post('/api/v1/project', { code: c, name: `Project ${c}`, ...extra }));
    return c;
  }

  async function makeLayer(projectCode: string, extra: Record<string, unknown> = {}): Promise<string> {
    return expectOk(
      await admin.post('/api/v1/layer', {
        name: 'code',
        description: 'source code',
        project_code: projectCode,
        layer_type_id: 1,
        is_template: false,
        ...extra,
      }),
    ).id;
  }

  /** A project with a layer, an anonymous source of the app repository, a tool and a manual check using them. */
  async function makeCheck(): Promise<{ c: string; layer: string; source: string; tool: string; check: string }> {
    const c = await makeProject();
    const layer = await makeLayer(c);
    const source = expectOk(
      await admin.post(
        '/api/v1/source',
        httpSource({}, { url: appRepo, auth_method: 'Anonymous', login: undefined, password: undefined }),
      ),
    ).id;
    const tool = expectOk(await admin.post('/api/v1/tool', { type_id: 1, settings: {} })).id;
    const check = expectOk(
      await admin.post('/api/v1/check', {
        layer_id: layer,
        security_tool_id: tool,
        scan_source_id: source,
        run_scan_task: { type: 'manual' },
      }),
    ).id;
    return { c, layer, source, tool, check };
  }

  const httpSource = (extra: Record<string, unknown> = {}, settings: Record<string, unknown> = {}) => ({
    name: `repo ${uniqueSuffix()}`,
    description: 'the app',
    source_type_id: 1,
    settings: {
      url: lockedRepo,
      branch_name: 'main',
      auth_method: 'Login/Password',
      login: GIT_USER,
      password: gitPassword,
      ...settings,
    },
    ...extra,
  });

  const sonar = (extra: Record<string, unknown> = {}, settings: Record<string, unknown> = {}) => ({
    description: 'SonarQube of the team',
    type_id: 10,
    settings: {
      scan_result_lang: 'EN',
      url: 'https://sonar.example',
      auth_method: 'Api Token',
      api_token: sonarToken,
      ...settings,
    },
    ...extra,
  });

  /** A user whose role grants every catalog letter but only in `projects`. */
  async function scopedUser(projects: string[]): Promise<Api> {
    const all = ['r', 'w', 'x', 'd'];
    const rights = { 'catalog.sources': all, 'catalog.tools': all, 'catalog.projects': all, 'catalog.layers': all };
    return new RecordingApi(t.anon.baseUrl, (await userWithRole(admin, t.anon, rights, projects)).token, bodies);
  }

  before(async function () {
    this.timeout(60000);
    if (t.mode === 'all') stopCapture = captureLogLines((line) => logLines.push(line));
    admin = await newAdmin();
    open = await startGitServer();
    locked = await startGitServer({ auth: { username: GIT_USER, password: gitPassword } });
    appRepo = open.addRepository(
      'app',
      { 'README.md': '# app\n', 'src/main.js': 'console.log(1);\n' },
      { branches: ['develop'] },
    );
    lockedRepo = locked.addRepository('private', { 'main.py': 'print("hi")\n' }, { branches: ['release'] });
  });

  after(async () => {
    stopCapture?.();
    await open?.close();
    await locked?.close();
  });

  describe('types', () => {
    it('lists source types with integer ids and the settings each needs', async () => {
      const types = expectOk(await admin.get('/api/v1/source-types')).items;
      const http = types.find((x: { id: number }) => x.id === 1);
      expect(http.name).to.match(/HTTP/);
      expect(http.auth_methods).to.deep.equal(['Login/Password', 'Anonymous']);
      expect(http.settings.find((s: { name: string }) => s.name === 'password')).to.include({ secret: true });
      expect(
        types
          .find((x: { id: number }) => x.id === 2)
          .settings.find((s: { name: string }) => s.name === 'ssh_private_key'),
      ).to.include({ required: true, secret: true });
    });

    it('lists tool types of every kind with their settings and result format', async () => {
      const types = expectOk(await admin.get('/api/v1/tool-types?limit=1000')).items;
      expect(new Set(types.map((x: { kind: string }) => x.kind))).to.deep.equal(new Set(['cli', 'server', 'manual']));
      const sonarType = types.find((x: { id: number }) => x.id === 10);
      expect(sonarType).to.include({ kind: 'server', result_format: 'sonarqube' });
      expect(sonarType.version).to.be.a('string');
      expect(sonarType.settings.find((s: { name: string }) => s.name === 'api_token')).to.include({
        required: true,
        secret: true,
        ignored: false,
      });
      const semgrep = types.find((x: { id: number }) => x.id === 1);
      expect(semgrep.settings.find((s: { name: string }) => s.name === 'api_token')).to.include({
        required: false,
        ignored: true,
      });
    });

    it('lists layer types: source code, artifact, running application', async () => {
      const names = expectOk(await admin.get('/api/v1/layer-types')).items.map((x: { name: string }) => x.name);
      expect(names).to.deep.equal(['Source code', 'Artifact', 'Running application']);
    });
  });

  describe('sources', () => {
    /** A connection test to the locked repository with the source's stored password, which passes only with it. */
    const expectStoredPasswordWorks = async (sourceId: string, branch: string) => {
      const test = expectOk(
        await admin.post('/api/v1/sources-type/1/test', {
          source_id: sourceId,
          settings: { url: lockedRepo, branch_name: branch, auth_method: 'Login/Password', login: GIT_USER },
        }),
      );
      expect(test, test.message).to.include({ ok: true });
    };

    it('creates a source whose password is stored but never returned, and gets and lists it', async () => {
      const body = httpSource();
      const created = expectOk(await admin.post('/api/v1/source', body));
      expect(created.id).to.match(/^[0-9a-f-]{36}$/);
      expect(created.settings).to.deep.equal({
        url: lockedRepo,
        branch_name: 'main',
        auth_method: 'Login/Password',
        login: GIT_USER,
        password_set: true,
        ssh_private_key_set: false,
      });
      expect(created).to.include({ access_type: 'global', source_type_id: 1 });
      expect(created.project_codes).to.deep.equal([]);
      expect(expectOk(await admin.get(`/api/v1/source/${created.id}`)).name).to.equal(body.name);
      const byName = expectOk(await admin.get(`/api/v1/sources?search[name]=${encodeURIComponent(body.name)}`));
      expect(byName.items.map((s: { id: string }) => s.id)).to.deep.equal([created.id]);
      const byUrl = expectOk(
        await admin.get(`/api/v1/sources?search[source]=${encodeURIComponent(lockedRepo.slice(7))}&limit=1000`),
      );
      expect(byUrl.items.map((s: { id: string }) => s.id)).to.include(created.id);
    });

    it('keeps the stored password on an update without it, proven by a connection test that uses it', async () => {
      const created = expectOk(await admin.post('/api/v1/source', httpSource()));
      const updated = expectOk(
        await admin.put(`/api/v1/source/${created.id}`, {
          description: 'changed',
          settings: { branch_name: 'release' },
        }),
      );
      expect(updated.settings).to.include({ branch_name: 'release', password_set: true });
      await expectStoredPasswordWorks(created.id, 'release');
      const anonymous = expectOk(
        await admin.put(`/api/v1/source/${created.id}`, { settings: { auth_method: 'Anonymous' } }),
      );
      expect(anonymous.settings).to.include({ auth_method: 'Anonymous', login: null, password_set: false });
    });

    it('refuses stored secrets for a connection test towards another host', async () => {
      const created = expectOk(await admin.post('/api/v1/source', httpSource()));
      expectField(
        await admin.post('/api/v1/sources-type/1/test', {
          source_id: created.id,
          settings: { url: appRepo.replace('127.0.0.1', 'localhost'), login: GIT_USER },
        }),
        400,
        'settings.url',
      );
    });

    it('sends stored secrets only to the scheme, host and port they were stored for: a connection test or an update elsewhere is a 400 naming the url', async () => {
      const stored = new URL(lockedRepo);
      const secure = expectOk(
        await admin.post('/api/v1/source', httpSource({}, { url: `https://${stored.host}${stored.pathname}` })),
      );
      const elsewhere = [
        // The same host over plain http, the credentials readable on the wire.
        `http://${stored.host}${stored.pathname}`,
        `https://${stored.hostname}:${Number(stored.port) + 1}${stored.pathname}`,
      ];
      for (const url of elsewhere) {
        expectField(
          await admin.post('/api/v1/sources-type/1/test', {
            source_id: secure.id,
            settings: { url, auth_method: 'Login/Password', login: GIT_USER },
          }),
          400,
          'settings.url',
        );
        expectField(await admin.put(`/api/v1/source/${secure.id}`, { settings: { url } }), 400, 'settings.url');
      }
      expect(expectOk(await admin.get(`/api/v1/source/${secure.id}`)).settings.url).to.equal(secure.settings.url);
      // Given again, the password may go elsewhere; without a password nothing stored travels.
      const plain = expectOk(
        await admin.put(`/api/v1/source/${secure.id}`, { settings: { url: lockedRepo, password: gitPassword } }),
      );
      expect(plain.settings).to.include({ url: lockedRepo, password_set: true });
      await expectStoredPasswordWorks(secure.id, 'main');
      const anonymous = expectOk(
        await admin.put(`/api/v1/source/${secure.id}`, { settings: { url: appRepo, auth_method: 'Anonymous' } }),
      );
      expect(anonymous.settings).to.include({ url: appRepo, password_set: false });
    });

    it('names every bad field: unknown type, missing setting, missing secret, odd transport, unknown key', async () => {
      expectField(await admin.post('/api/v1/source', httpSource({ source_type_id: 99 })), 400, 'source_type_id');
      expectField(
        await admin.post('/api/v1/source', { name: 'x', source_type_id: 1, settings: { branch_name: 'main' } }),
        400,
        'settings.url',
      );
      expectField(
        await admin.post('/api/v1/source', httpSource({}, { password: undefined })),
        400,
        'settings.password',
      );
      expectField(
        await admin.post('/api/v1/source', httpSource({}, { url: 'file:///etc/passwd' })),
        400,
        'settings.url',
      );
      expectField(await admin.post('/api/v1/source', httpSource({}, { token: 'x' })), 400, 'settings.token');
      expectField(
        await admin.post('/api/v1/source', httpSource({}, { auth_method: 'SSH key' })),
        400,
        'settings.auth_method',
      );
      expectField(
        await admin.post('/api/v1/source', {
          ...httpSource(),
          source_type_id: 2,
          settings: { url: 'git@example.com:org/app.git' },
        }),
        400,
        'settings.ssh_private_key',
      );
    });

    it('takes the release 1.5 access type: project sources need known project codes', async () => {
      const p = await makeProject();
      const created = expectOk(
        await admin.post('/api/v1/source', httpSource({ access_type: 'project', project_codes: [p] })),
      );
      expect(created).to.include({ access_type: 'project' });
      expect(created.project_codes).to.deep.equal([p]);
      expectField(
        await admin.post('/api/v1/source', httpSource({ access_type: 'project', project_codes: [] })),
        400,
        'project_codes',
      );
      expectField(
        await admin.post('/api/v1/source', httpSource({ access_type: 'project', project_codes: ['no-such-project'] })),
        400,
        'project_codes[0]',
      );
      expectField(
        await admin.post('/api/v1/source', httpSource({ access_type: 'global', project_codes: [p] })),
        400,
        'project_codes',
      );
    });

    it('deletes sources in bulk and answers per id', async () => {
      const created = expectOk(await admin.post('/api/v1/source', httpSource()));
      const res = expectOk(await admin.delete('/api/v1/sources', { ids: [created.id, 'not-an-id'] }));
      expect(res.results).to.deep.equal([
        { id: created.id, status: 'deleted' },
        { id: 'not-an-id', status: 'not_found' },
      ]);
      expect((await admin.get(`/api/v1/source/${created.id}`)).status).to.equal(404);
    });

    it('answers 410 for the single-record forms removed in release 1.5', async () => {
      expect((await admin.delete('/api/v1/source/any', {})).status).to.equal(410);
      expect((await admin.get('/api/v1/source/any/secure')).status).to.equal(410);
      expect((await admin.get('/api/v1/tool/any/secure')).status).to.equal(410);
      expect((await admin.delete('/api/v1/layer/any', {})).status).to.equal(410);
    });
  });

  describe('connection test against real Git servers', () => {
    const test = (settings: Record<string, unknown>, type = 1) =>
      admin.post(`/api/v1/sources-type/${type}/test`, { settings });

    it('succeeds with the right credentials and lists the branches', async () => {
      const r = expectOk(
        await test({
          url: lockedRepo,
          branch_name: 'main',
          auth_method: 'Login/Password',
          login: GIT_USER,
          password: gitPassword,
        }),
      );
      expect(r, r.message).to.include({ ok: true, default_branch: 'main' });
      expect(r.branches).to.deep.equal(['main', 'release']);
    });

    it('succeeds anonymously on an open repository', async () => {
      const r = expectOk(await test({ url: appRepo, auth_method: 'Anonymous' }));
      expect(r, r.message).to.include({ ok: true });
      expect(r.branches).to.deep.equal(['develop', 'main']);
    });

    it('says authentication was refused for a wrong password', async () => {
      const r = expectOk(
        await test({ url: lockedRepo, auth_method: 'Login/Password', login: GIT_USER, password: wrongPassword }),
      );
      expect(r.ok).to.equal(false);
      expect(r.message).to.match(/^Authentication refused/);
    });

    it('says the branch is unknown', async () => {
      const r = expectOk(await test({ url: appRepo, branch_name: 'no-such-branch' }));
      expect(r.ok).to.equal(false);
      expect(r.message).to.match(/^Unknown branch: "no-such-branch"/);
    });

    it('says the host is unreachable when nothing listens on the port', async () => {
      const r = expectOk(await test({ url: `http://127.0.0.1:${await freePort()}/app.git` }));
      expect(r.ok).to.equal(false);
      expect(r.message).to.match(/^Host unreachable/);
    });

    it('answers a refused address (a real Git server on 127.0.0.2, cloud metadata) like a closed port, and nothing reaches the server', async () => {
      const refused = await startGitServer({ host: '127.0.0.2' });
      try {
        refused.addRepository('app', { 'README.md': '# app\n' });
        const closed = `127.0.0.1:${await freePort()}`;
        for (const [url, host] of [
          [refused.urlOf('app'), new URL(refused.baseUrl).host],
          ['http://169.254.169.254/', '169.254.169.254'],
          [`http://${closed}/app.git`, closed],
        ]) {
          expect(expectOk(await test({ url })), url).to.include({
            ok: false,
            message: `Host unreachable: could not connect to ${host}`,
          });
        }
        expect(refused.requests).to.deep.equal([]);
      } finally {
        await refused.close();
      }
    });

    it('says a URL that is not a repository is not a Git repository', async () => {
      const r = expectOk(await test({ url: open.notARepositoryUrl }));
      expect(r.ok).to.equal(false);
      expect(r.message).to.match(/^Not a Git repository/);
      expect(expectOk(await test({ url: open.urlOf('missing') })).message).to.match(/^Not a Git repository/);
    });

    it('refuses other transports with 400 and an unknown source type with 404', async () => {
      for (const url of ['file:///etc', 'ext::sh -c id', 'git://127.0.0.1/app.git'])
        expectField(await test({ url }), 400, 'settings.url');
      expect((await test({ url: appRepo }, 7)).status).to.equal(404);
    });
  });

  describe('tools', () => {
    it('requires api_token for a server tool and never returns it', async () => {
      expectField(await admin.post('/api/v1/tool', sonar({}, { api_token: undefined })), 400, 'settings.api_token');
      const created = expectOk(await admin.post('/api/v1/tool', sonar()));
      expect(created).to.include({
        type_id: 10,
        kind: 'server',
        type_name: 'SonarQube',
        result_format: 'sonarqube',
        access_type: 'global',
      });
      expect(created.settings).to.deep.equal({
        scan_result_lang: 'EN',
        url: 'https://sonar.example',
        auth_method: 'Api Token',
        api_token_set: true,
      });
      const kept = expectOk(
        await admin.put(`/api/v1/tool/${created.id}`, { settings: { url: 'https://sonar.example/sonarqube' } }),
      );
      expect(kept.settings).to.include({ url: 'https://sonar.example/sonarqube', api_token_set: true });
      // The stored token goes only to the server it was stored for: another one needs it given again.
      for (const url of ['https://sonar2.example', 'http://sonar.example', 'https://sonar.example:8443'])
        expectField(await admin.put(`/api/v1/tool/${created.id}`, { settings: { url } }), 400, 'settings.url');
      const moved = expectOk(
        await admin.put(`/api/v1/tool/${created.id}`, {
          settings: { url: 'https://sonar2.example', api_token: 'another-sonar-token' },
        }),
      );
      expect(moved.settings).to.include({ url: 'https://sonar2.example', api_token_set: true });
      expect(expectOk(await admin.get(`/api/v1/tool/${created.id}`)).settings.url).to.equal('https://sonar2.example');
    });

    it('accepts and drops connection settings for cli and manual tools', async () => {
      const cli = expectOk(
        await admin.post('/api/v1/tool', {
          type_id: 1,
          settings: { scan_result_lang: 'EN', url: 'https://x', auth_method: 'Api Token', api_token: 'ignored-token' },
        }),
      );
      expect(cli.settings).to.deep.equal({ scan_result_lang: 'EN' });
      expect(cli).to.include({ kind: 'cli', name: 'Semgrep 1', version: '1' });
      const manual = expectOk(
        await admin.post('/api/v1/tool', { description: 'uploads', type_id: 20, settings: { api_token: 'x' } }),
      );
      expect(manual.settings).to.deep.equal({});
    });

    it('names bad input: unknown type, bad setting, unknown setting', async () => {
      expectField(await admin.post('/api/v1/tool', sonar({ type_id: 999 })), 400, 'type_id');
      expectField(await admin.post('/api/v1/tool', sonar({}, { url: 'not a url' })), 400, 'settings.url');
      expectField(
        await admin.post('/api/v1/tool', { type_id: 1, settings: { colour: 'red' } }),
        400,
        'settings.colour',
      );
    });

    it('keeps several versions of one tool type side by side, filtered and searched', async () => {
      const v = uniqueSuffix();
      const old = expectOk(
        await admin.post('/api/v1/tool', sonar({ version: `9.${v}` }, { url: `https://old-${v}.example` })),
      );
      const next = expectOk(await admin.post('/api/v1/tool', sonar({ version: `10.${v}` })));
      const ids = (res: ApiResponse) => expectOk(res).items.map((x: { id: string }) => x.id);
      expect(ids(await admin.get(`/api/v1/tools?filter[version]=9.${v}`))).to.deep.equal([old.id]);
      expect(ids(await admin.get(`/api/v1/tools?search[version]=${v}`))).to.have.members([old.id, next.id]);
      expect(ids(await admin.get(`/api/v1/tools?search[url]=old-${v}`))).to.deep.equal([old.id]);
      expect(ids(await admin.get(`/api/v1/tools?search[type]=sonar&search[version]=${v}`))).to.have.members([
        old.id,
        next.id,
      ]);
      expect(ids(await admin.get(`/api/v1/tools?search[type]=semgrep&search[version]=${v}`))).to.deep.equal([]);
      expect(ids(await admin.get(`/api/v1/tools?search[name]=SonarQube&filter[version]=10.${v}`))).to.deep.equal([
        next.id,
      ]);
      expectField(await admin.get('/api/v1/tools?filter[colour]=red'), 400, 'filter[colour]');
    });

    it('cleans up a tool and answers what was removed; deletes tools in bulk', async () => {
      const created = expectOk(await admin.post('/api/v1/tool', sonar()));
      const cleaned = expectOk(await admin.post(`/api/v1/tool/${created.id}/cleanup`));
      expect(cleaned).to.include({ id: created.id });
      expect(cleaned.removed).to.deep.equal({ files: 0, bytes: 0 });
      expect(cleaned.message).to.match(/Removed 0 cached file/);
      expect((await admin.post('/api/v1/tool/00000000-0000-4000-8000-000000000000/cleanup')).status).to.equal(404);
      expect(expectOk(await admin.delete('/api/v1/tools', { ids: [created.id] })).results).to.deep.equal([
        { id: created.id, status: 'deleted' },
      ]);
      expect((await admin.get(`/api/v1/tool/${created.id}`)).status).to.equal(404);
    });
  });

  describe('custom fields and projects', () => {
    let fields: Record<string, number>;

    before(async () => {
      admin = await newAdmin();
      fields = {};
      for (const type of ['text', 'datetime', 'uuid', 'url']) {
        fields[type] = expectOk(
          await admin.post('/api/v1/field', { name: `${type} field ${uniqueSuffix()}`, type }),
        ).id;
        expect(fields[type]).to.be.a('number');
      }
    });

    it('defines, renames and deletes custom fields, naming bad input', async () => {
      const name = `cost centre ${uniqueSuffix()}`;
      const created = expectOk(await admin.post('/api/v1/field', { name, type: 'text', description: 'billing' }));
      expect(created).to.include({ name, type: 'text', required: false });
      expectField(await admin.post('/api/v1/field', { name: name.toUpperCase(), type: 'url' }), 409, 'name');
      expectField(await admin.post('/api/v1/field', { name: 'x', type: 'number' }), 400, 'type');
      expectField(await admin.put(`/api/v1/field/${created.id}`, { type: 'url' }), 400, 'type');
      expectField(await admin.get('/api/v1/field/abc'), 400, 'field_id');
      expect(expectOk(await admin.put(`/api/v1/field/${created.id}`, { name: `${name} 2` })).name).to.equal(
        `${name} 2`,
      );
      expect(expectOk(await admin.get('/api/v1/fields?limit=1000')).items.map((f: { id: number }) => f.id)).to.include(
        created.id,
      );
      expect(expectOk(await admin.delete('/api/v1/fields', { ids: [created.id, 999999] })).results).to.deep.equal([
        { id: String(created.id), status: 'deleted' },
        { id: '999999', status: 'not_found' },
      ]);
      expect((await admin.get(`/api/v1/field/${created.id}`)).status).to.equal(404);
    });

    it('creates a project with tags and valid field values, and refuses a duplicate code in any case', async () => {
      const c = code('Shop');
      const values = [
        { field_id: fields.text, value: 'team payments' },
        { field_id: fields.datetime, value: '2026-04-02T10:00:00Z' },
        { field_id: fields.uuid, value: '3f1c2a9e-8b7d-4c6e-9f0a-1b2c3d4e5f60' },
        { field_id: fields.url, value: 'https://shop.example/docs' },
      ];
      const created = expectOk(
        await admin.post('/api/v1/project', {
          code: c,
          name: 'Shop',
          description: 'web shop',
          tags: ['web', 'pci'],
          field_values: values,
        }),
      );
      expect(created).to.include({ id: c, code: c, archived: false, deleted_at: null });
      expect(created.tags).to.deep.equal(['web', 'pci']);
      expect(created.field_values).to.have.deep.members(values);
      const dup = await admin.post('/api/v1/project', { code: c.toLowerCase(), name: 'Again' });
      expectField(dup, 409, 'code');
      expectField(await admin.post('/api/v1/project', { code: '-bad code', name: 'x' }), 400, 'code');
    });

    it('lets one of several concurrent creates of a code win; the others get 409', async () => {
      const c = code('race');
      const statuses = (
        await Promise.all(
          [0, 1, 2, 3].map((i) => admin.post('/api/v1/project', { code: i % 2 ? c : c.toUpperCase(), name: 'Race' })),
        )
      ).map((r) => r.status);
      expect(statuses.filter((s) => s === 200)).to.have.length(1);
      expect(statuses.filter((s) => s === 409)).to.have.length(3);
    });

    it('validates every field value against its type, naming the field', async () => {
      const bad = await admin.post('/api/v1/project', {
        code: code('bad'),
        name: 'x',
        field_values: [
          { field_id: fields.datetime, value: 'yesterday' },
          { field_id: fields.uuid, value: 'not-a-uuid' },
          { field_id: fields.url, value: 'ftp://files' },
          { field_id: 999999, value: 'x' },
        ],
      });
      expectField(bad, 400, 'field_values[0].value');
      for (const f of ['field_values[1].value', 'field_values[2].value', 'field_values[3].field_id'])
        expectField(bad, 400, f);
      expect(bad.body.error.message).to.contain('datetime field');
    });

    it('requires the values of required fields', async () => {
      const required = expectOk(
        await admin.post('/api/v1/field', { name: `owner ${uniqueSuffix()}`, type: 'text', required: true }),
      );
      try {
        expectField(await admin.post('/api/v1/project', { code: code('req'), name: 'x' }), 400, 'field_values');
        expectOk(
          await admin.post('/api/v1/project', {
            code: code('req'),
            name: 'x',
            field_values: [{ field_id: required.id, value: 'alice' }],
          }),
        );
      } finally {
        expect(expectOk(await admin.delete('/api/v1/fields', { ids: [required.id] })).results[0].status).to.equal(
          'deleted',
        );
      }
    });

    it('lists, searches and filters projects; updates keep the code', async () => {
      const tag = `tag-${uniqueSuffix()}`;
      const c = await makeProject({ tags: [tag] });
      const list = expectOk(await admin.get(`/api/v1/projects?search[tag]=${tag}&page=1&limit=10`));
      expect(list).to.include({ total: 1, page: 1, limit: 10 });
      expect(list.items[0].code).to.equal(c);
      expect(expectOk(await admin.get(`/api/v1/projects?search[code]=${c}`)).total).to.equal(1);
      expect(expectOk(await admin.get('/api/v1/projects/filter')).tags).to.include(tag);
      const updated = expectOk(await admin.put(`/api/v1/project/${c}`, { code: c, name: 'Renamed', tags: ['x'] }));
      expect(updated).to.include({ code: c, name: 'Renamed' });
      expectField(await admin.put(`/api/v1/project/${c}`, { code: `${c}-other` }), 400, 'code');
      expect((await admin.get('/api/v1/project/no-such-project')).status).to.equal(404);
      expectField(await admin.get('/api/v1/projects?limit=1001'), 400, 'limit');
    });

    it('soft-deletes and restores projects in bulk', async () => {
      const c = await makeProject();
      const res = expectOk(await admin.delete('/api/v1/projects', { codes: [c, 'no-such-project'] }));
      expect(res.results).to.deep.equal([
        { id: c, status: 'deleted' },
        { id: 'no-such-project', status: 'not_found' },
      ]);
      expect(expectOk(await admin.get(`/api/v1/projects?search[code]=${c}`)).total).to.equal(0);
      expect(expectOk(await admin.get(`/api/v1/projects?search[code]=${c}&filter[deleted_only]=true`)).total).to.equal(
        1,
      );
      expect(expectOk(await admin.get(`/api/v1/project/${c}`)).deleted_at).to.be.a('string');
      expect((await admin.put(`/api/v1/project/${c}`, { name: 'x' })).status).to.equal(409);
      expect(expectOk(await admin.put('/api/v1/restore-projects', { codes: [c] })).results).to.deep.equal([
        { id: c, status: 'restored' },
      ]);
      expect(expectOk(await admin.get(`/api/v1/projects?search[code]=${c}`)).total).to.equal(1);
    });

    it('makes an archived project read-only until it is unarchived: no changes, layers, checks or scans', async () => {
      const { c, layer, source, tool, check } = await makeCheck();
      expect(expectOk(await admin.put('/api/v1/projects/archive', { codes: [c] })).results).to.deep.equal([
        { id: c, status: 'archived' },
      ]);
      expect(expectOk(await admin.put('/api/v1/projects/archive', { codes: [c] })).results[0].status).to.equal(
        'unchanged',
      );
      expect(expectOk(await admin.get(`/api/v1/project/${c}`)).archived).to.equal(true);
      expect((await admin.put(`/api/v1/project/${c}`, { name: 'x' })).status).to.equal(409);
      expect((await admin.post('/api/v1/layer', { name: 'l', project_code: c, layer_type_id: 1 })).status).to.equal(
        409,
      );
      expect((await admin.put(`/api/v1/layer/${layer}`, { name: 'renamed' })).status).to.equal(409);
      expect(expectOk(await admin.delete('/api/v1/layers', { ids: [layer] })).results[0].status).to.equal('conflict');
      expect(
        (await admin.post('/api/v1/check', { layer_id: layer, security_tool_id: tool, scan_source_id: source })).status,
      ).to.equal(409);
      expect((await admin.post(`/api/v1/check/${check}/run`)).status).to.equal(409);
      expect((await admin.post(`/api/v1/layer/${layer}/run`)).status).to.equal(409);
      expect(expectOk(await admin.get(`/api/v1/projects?filter[archived]=true&search[code]=${c}`)).total).to.equal(1);
      expect(expectOk(await admin.put('/api/v1/projects/unarchive', { codes: [c] })).results).to.deep.equal([
        { id: c, status: 'unarchived' },
      ]);
      await makeLayer(c);
    });
  });

  describe('layers', () => {
    before(async () => {
      admin = await newAdmin();
    });

    it('creates, gets, lists by project, updates and deletes layers', async () => {
      const c = await makeProject();
      const created = expectOk(
        await admin.post('/api/v1/layer', {
          name: 'Code',
          description: 'repo',
          project_code: c,
          layer_type_id: 1,
          is_template: false,
        }),
      );
      expect(created).to.include({
        project_code: c,
        layer_type_id: 1,
        layer_type_name: 'Source code',
        is_template: false,
        template_id: null,
      });
      expect(expectOk(await admin.get(`/api/v1/layer/${created.id}`)).name).to.equal('Code');
      const other = await makeLayer(c, { name: 'Image', layer_type_id: 2 });
      expect(
        expectOk(await admin.get(`/api/v1/layers?filter[project_code]=${c}`)).items.map((l: { id: string }) => l.id),
      ).to.deep.equal([created.id, other]);
      expect(
        expectOk(await admin.put(`/api/v1/layer/${created.id}`, { name: 'Backend', layer_type_id: 3 })).layer_type_name,
      ).to.equal('Running application');
      expect(expectOk(await admin.delete('/api/v1/layers', { ids: [created.id] })).results).to.deep.equal([
        { id: created.id, status: 'deleted' },
      ]);
      expect((await admin.get(`/api/v1/layer/${created.id}`)).status).to.equal(404);
    });

    it('names bad input: unknown layer type, unknown project', async () => {
      const c = await makeProject();
      expectField(
        await admin.post('/api/v1/layer', { name: 'x', project_code: c, layer_type_id: 42 }),
        400,
        'layer_type_id',
      );
      expectField(await admin.post('/api/v1/layer', { name: 'x', project_code: c }), 400, 'layer_type_id');
      expect(
        (await admin.post('/api/v1/layer', { name: 'x', project_code: 'no-such-project', layer_type_id: 1 })).status,
      ).to.equal(404);
    });

    it('instantiates a template layer into another project', async () => {
      const [a, b] = [await makeProject(), await makeProject()];
      const template = await makeLayer(a, { name: 'Standard SAST', is_template: true });
      const copy = expectOk(await admin.post(`/api/v1/layer/${template}/instantiate`, { project_code: b }));
      expect(copy).to.include({ project_code: b, name: 'Standard SAST', template_id: template, is_template: false });
      expect(
        expectOk(await admin.get('/api/v1/layers?filter[is_template]=true&filter[project_code]=' + a)).items.map(
          (l: { id: string }) => l.id,
        ),
      ).to.deep.equal([template]);
      expect((await admin.post(`/api/v1/layer/${copy.id}/instantiate`, { project_code: a })).status).to.equal(409);
    });
  });

  describe('project scope', () => {
    let mine: string;
    let theirs: string;
    let scoped: Api;
    let theirLayer: string;
    let theirSource: string;
    let globalSource: string;
    let mySource: string;
    let theirTool: string;

    before(async () => {
      admin = await newAdmin();
      [mine, theirs] = [await makeProject({ tags: ['scope-test'] }), await makeProject({ tags: ['scope-test'] })];
      scoped = await scopedUser([mine]);
      theirLayer = await makeLayer(theirs);
      theirSource = expectOk(
        await admin.post('/api/v1/source', httpSource({ access_type: 'project', project_codes: [theirs] })),
      ).id;
      mySource = expectOk(
        await admin.post('/api/v1/source', httpSource({ access_type: 'project', project_codes: [mine, theirs] })),
      ).id;
      globalSource = expectOk(await admin.post('/api/v1/source', httpSource())).id;
      theirTool = expectOk(
        await admin.post('/api/v1/tool', sonar({ access_type: 'project', project_codes: [theirs] })),
      ).id;
    });

    it('lists and gets only the caller\u2019s projects; others answer 404 as if they did not exist', async () => {
      const list = expectOk(await scoped.get('/api/v1/projects?search[tag]=scope-test'));
      expect(list.items.map((p: { code: string }) => p.code)).to.deep.equal([mine]);
      expect(expectOk(await scoped.get(`/api/v1/project/${mine}`)).code).to.equal(mine);
      const other = await scoped.get(`/api/v1/project/${theirs}`);
      expect(other.status).to.equal(404);
      expect((await scoped.put(`/api/v1/project/${theirs}`, { name: 'x' })).status).to.equal(404);
      expect(expectOk(await scoped.put('/api/v1/projects/archive', { codes: [theirs] })).results[0].status).to.equal(
        'not_found',
      );
      expect((await scoped.post('/api/v1/project', { code: code('new'), name: 'x' })).status).to.equal(403);
    });

    it('hides another project\u2019s layers and refuses layers in it', async () => {
      expect((await scoped.get(`/api/v1/layer/${theirLayer}`)).status).to.equal(404);
      expect(expectOk(await scoped.get(`/api/v1/layers?filter[project_code]=${theirs}`)).total).to.equal(0);
      expect(
        (await scoped.post('/api/v1/layer', { name: 'x', project_code: theirs, layer_type_id: 1 })).status,
      ).to.equal(404);
      expect(expectOk(await scoped.delete('/api/v1/layers', { ids: [theirLayer] })).results[0].status).to.equal(
        'not_found',
      );
      expect((await scoped.post(`/api/v1/layer/${theirLayer}/instantiate`, { project_code: mine })).status).to.equal(
        404,
      );
      await makeLayer(mine);
      expect(
        expectOk(await scoped.post('/api/v1/layer', { name: 'mine', project_code: mine, layer_type_id: 1 }))
          .project_code,
      ).to.equal(mine);
    });

    it('shows global sources and those of its projects; another project\u2019s source or tool answers 404', async () => {
      const ids = expectOk(await scoped.get('/api/v1/sources?limit=1000')).items.map((s: { id: string }) => s.id);
      expect(ids).to.include.members([globalSource, mySource]);
      expect(ids).not.to.include(theirSource);
      expect((await scoped.get(`/api/v1/source/${theirSource}`)).status).to.equal(404);
      expect((await scoped.put(`/api/v1/source/${theirSource}`, { name: 'x' })).status).to.equal(404);
      expect(expectOk(await scoped.delete('/api/v1/sources', { ids: [theirSource] })).results[0].status).to.equal(
        'not_found',
      );
      expect((await scoped.get(`/api/v1/tool/${theirTool}`)).status).to.equal(404);
      expect((await scoped.post(`/api/v1/tool/${theirTool}/cleanup`)).status).to.equal(404);
    });

    it('changes only what lies wholly within its projects', async () => {
      expect((await scoped.put(`/api/v1/source/${globalSource}`, { name: 'x' })).status).to.equal(403);
      expect((await scoped.put(`/api/v1/source/${mySource}`, { name: 'x' })).status).to.equal(403);
      expect((await scoped.post('/api/v1/source', httpSource())).status).to.equal(403);
      expectField(
        await scoped.post('/api/v1/source', httpSource({ access_type: 'project', project_codes: [theirs] })),
        400,
        'project_codes[0]',
      );
      const own = expectOk(
        await scoped.post('/api/v1/source', httpSource({ access_type: 'project', project_codes: [mine] })),
      );
      expect(expectOk(await scoped.put(`/api/v1/source/${own.id}`, { name: 'renamed' })).name).to.equal('renamed');
    });

    it('lists the resources usable in a project, and 404 for a project outside the scope', async () => {
      const r = expectOk(await admin.get(`/api/v1/resources?filter[project_access]=${mine}`));
      const sources = r.sources.map((s: { id: string }) => s.id);
      expect(sources).to.include.members([globalSource, mySource]);
      expect(sources).not.to.include(theirSource);
      expect(r.tools.map((x: { id: string }) => x.id)).not.to.include(theirTool);
      expect(
        expectOk(await admin.get(`/api/v1/resources?filter[project_access]=${theirs}`)).tools.map(
          (x: { id: string }) => x.id,
        ),
      ).to.include(theirTool);
      expect((await scoped.get(`/api/v1/resources?filter[project_access]=${theirs}`)).status).to.equal(404);
      expect(expectOk(await scoped.get('/api/v1/resources')).sources.map((s: { id: string }) => s.id)).not.to.include(
        theirSource,
      );
    });
  });

  describe('in use by checks', () => {
    before(async () => {
      admin = await newAdmin();
    });

    it('refuses to delete a source, a tool or a layer used by a check, naming the check', async () => {
      const { layer, source, tool, check } = await makeCheck();
      for (const [path, id] of [
        ['/api/v1/sources', source],
        ['/api/v1/tools', tool],
        ['/api/v1/layers', layer],
      ]) {
        const [result] = expectOk(await admin.delete(path, { ids: [id] })).results;
        expect(result.status, path).to.equal('conflict');
        expect(result.message).to.contain(check);
      }
      expect((await admin.get(`/api/v1/source/${source}`)).status).to.equal(200);
    });
  });

  describe('secrets', () => {
    it('never returns a stored password or token in any response body', () => {
      expect(bodies.length).to.be.greaterThan(50);
      for (const body of bodies)
        for (const s of secrets)
          expect(body.includes(s), `a response contained a secret: ${body.slice(0, 200)}`).to.equal(false);
    });

    it('never writes a stored password or token to a log line', () => {
      const lines = t.mode === 'all' ? logLines : scaledLogLines(t);
      // The capture saw the catalog at work, so finding no secret means something.
      expect(lines.some((l) => l.includes('"source created"'))).to.equal(true);
      for (const line of lines)
        for (const s of secrets)
          expect(line.includes(s), `a log line contained a secret: ${line.slice(0, 300)}`).to.equal(false);
    });
  });
}

/** The log files of the separately started processes (the scaled harness keeps one per process). */
function scaledLogLines(t: SystemUnderTest): string[] {
  const children = (t.sys as { children?: { logFile: string }[] }).children;
  expect(children, 'log files of the scaled system').to.be.an('array').that.is.not.empty;
  return children!.flatMap((c) => fs.readFileSync(c.logFile, 'utf8').split('\n'));
}
