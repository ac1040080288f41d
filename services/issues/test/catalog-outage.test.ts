import { expect } from 'chai';
import {
  ADMIN_PASSWORD,
  Api,
  GitServer,
  requireInfra,
  ScaledSystem,
  startGitServer,
  startScaledMode,
  uniqueSuffix,
  type Json,
} from '@bulwark/testkit';
import { semgrepReport } from './issues.suite';

const MANUAL_TOOL_TYPE = 20;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// Scaled mode with the catalog and the issues service in processes of their own, so the catalog can
// be down while a scan waits to be ingested.
describe('issues: ingestion during a catalog outage [scaled]', function () {
  this.timeout(300000);
  let sys: ScaledSystem;
  let git: GitServer;
  let admin: Api;

  before(async function () {
    sys = await startScaledMode(
      requireInfra(this, 'postgres', 'kafka', 'redis'),
      {},
      { ownProcess: ['catalog', 'issues'] },
    );
    admin = sys.api.as(await sys.api.login('admin', ADMIN_PASSWORD));
    git = await startGitServer();
    git.addRepository('app', { 'app.py': 'print(1)\n' });
  });
  after(async () => {
    await git?.close();
    await sys?.stop();
  });

  const ok = (res: { status: number; body: Json }) => {
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body;
  };

  it("waits for the catalog and then ingests with the tool's own deduplication, instead of guessing while it is down", async () => {
    const code = `p-${uniqueSuffix()}`;
    ok(await admin.post('/api/v1/project', { code, name: `Project ${code}`, description: 'outage', tags: ['outage'] }));
    const layer = ok(
      await admin.post('/api/v1/layer', {
        name: 'code',
        description: 'code',
        project_code: code,
        layer_type_id: 1,
        is_template: false,
      }),
    );
    const source = ok(
      await admin.post('/api/v1/source', {
        name: `repo ${code}`,
        description: 'fixture',
        source_type_id: 1,
        settings: { url: git.urlOf('app'), branch_name: 'main', auth_method: 'Anonymous' },
      }),
    );
    const tool = ok(
      await admin.post('/api/v1/tool', {
        description: 'uploads',
        type_id: MANUAL_TOOL_TYPE,
        settings: { scan_result_lang: 'EN' },
      }),
    );
    const check = ok(
      await admin.post('/api/v1/check', {
        layer_id: layer.id,
        security_tool_id: tool.id,
        scan_source_id: source.id,
        source_auth: { branch_name: 'main' },
        run_scan_task: { type: 'manual' },
      }),
    );

    // The scan completes while the issues service is down, so its event waits on the bus ...
    await sys.stopOne('issues');
    const report = semgrepReport([
      { rule: 'python.eval', line: 3, code: 'eval(x)' },
      { rule: 'python.exec', line: 7, code: 'exec(y)' },
    ]);
    const scan = ok(
      await admin
        .withHeaders({ 'content-type': 'application/json' })
        .request('POST', `/api/v1/check/${check.id}/results`, undefined, report),
    );
    // ... and the catalog crashes before the issues service is back to read it.
    await sys.stopOne('catalog', 'SIGKILL');
    await sys.startOne('issues');

    const count = async () =>
      ok(await admin.get(`/api/v1/issues/count?filter[scan]=${scan.scan_result_id}`)).count as number;
    // Longer than the retries a failing event gets (8 attempts, about 20 s): an outage must not drop it.
    await sleep(25000);
    expect(await count(), 'issues written while the catalog could not name the tool').to.equal(0);

    await sys.startOne('catalog');
    const deadline = Date.now() + 60000;
    while ((await count()) < 2) {
      if (Date.now() > deadline) throw new Error('the scan was not ingested after the catalog came back');
      await sleep(500);
    }
    const issues = ok(await admin.get(`/api/v1/issues?filter[scan]=${scan.scan_result_id}`)).items as {
      tool_name?: string;
    }[];
    expect(issues).to.have.length(2);
    const toolName = ok(await admin.get(`/api/v1/tool/${tool.id}`)).name;
    expect(toolName).to.be.a('string').and.not.equal('');
    for (const issue of issues) expect(issue.tool_name).to.equal(toolName);
  });
});
