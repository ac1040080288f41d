import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { GitServer, startGitServer, SystemUnderTest } from '@bulwark/testkit';
import { MANUAL_TOOL_TYPE, scanSetup } from '../../scanning/test/scanning.suite';
import { semgrepReport } from '../../issues/test/issues.suite';

const FINDINGS = [
  { rule: 'python.lang.security.dangerous-subprocess', line: 4, code: 'subprocess.call(cmd, shell=True)', severity: 'ERROR' as const, cwe: 'CWE-78: OS Command Injection', path: 'report.py' },
  { rule: 'python.lang.security.eval', line: 9, code: 'eval(data)', severity: 'WARNING' as const, cwe: 'CWE-95', path: 'report.py' },
  { rule: 'python.lang.security.pickle', line: 12, code: 'pickle.loads(blob)', severity: 'INFO' as const, cwe: 'CWE-502', path: 'report.py' },
];

export function reportingSuite(t: SystemUnderTest): void {
  let git: GitServer;
  let code: string;
  let falsePositive: string;

  const ok = (res: { status: number; body: any }) => {
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body;
  };
  const refused = (res: { status: number; body: any }, status: number, field?: string) => {
    expect(res.status, JSON.stringify(res.body)).to.equal(status);
    if (field) expect(res.body.error.details.map((d: { field: string }) => d.field)).to.include(field);
  };
  const waitReady = async (id: string) => {
    const deadline = Date.now() + 60000;
    for (;;) {
      const report = ok(await t.admin.get(`/api/v1/report/${id}`));
      if (report.state === 'ready' || report.state === 'failed') return report;
      if (Date.now() > deadline) throw new Error(`report ${id} still ${report.state} (${report.progress}%)`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  const download = (id: string, format: string) => t.admin.request('GET', `/api/v1/report/${id}/download?format=${format}`);
  const bytes = (path: string) => t.admin.download(path);

  before(async function () {
    this.timeout(90000);
    git = await startGitServer();
    git.addRepository('app', { 'app.py': 'import subprocess\n' });
    const env = await scanSetup(t, git, 'app', [MANUAL_TOOL_TYPE]);
    code = env.code;
    const check = ok(await t.admin.post('/api/v1/check', { layer_id: env.layerId, security_tool_id: env.tools[0], scan_source_id: env.sourceId, source_auth: { branch_name: 'main' }, run_scan_task: { type: 'manual' } })).id;
    const scan = ok(await t.admin.withHeaders({ 'content-type': 'application/json' }).request('POST', `/api/v1/check/${check}/results`, undefined, semgrepReport(FINDINGS)));
    const deadline = Date.now() + 30000;
    while (ok(await t.admin.get(`/api/v1/issues/count?filter[scan]=${scan.scan_result_id}`)).count < FINDINGS.length) {
      if (Date.now() > deadline) throw new Error('findings not ingested');
      await new Promise((r) => setTimeout(r, 200));
    }
    const low = ok(await t.admin.get(`/api/v1/issues?filter[project_code]=${code}&filter[severity]=low`)).items;
    falsePositive = low[0].id;
    ok(await t.admin.put(`/api/v1/issue/${falsePositive}`, { status_id: 5 }));
  });
  after(async () => git?.close());

  it('generates a summary report asynchronously and downloads the same data as JSON, CSV, HTML, PDF and DOCX', async function () {
    this.timeout(90000);
    const created = ok(await t.admin.post('/api/v1/report', { name: 'Weekly <summary>', type: 'summary', filter: { period: 'week', project_code: [code] } }));
    expect(created).to.include({ name: 'Weekly <summary>', type: 'summary', author: 'admin' });
    expect(created.filter).to.deep.equal({ period: 'week', project_code: [code] });
    expect(['queued', 'running', 'ready']).to.include(created.state);
    const ready = await waitReady(created.id);
    expect(ready).to.include({ state: 'ready', progress: 100, error: null });
    expect(ready.formats).to.deep.equal(['html', 'csv', 'json', 'pdf', 'docx']);

    const json = JSON.parse((await bytes(`/api/v1/report/${created.id}/download?format=json`)).body.toString('utf8'));
    expect(json.report).to.include({ id: created.id, name: 'Weekly <summary>', period: 'week' });
    expect(json.report.project_codes).to.deep.equal([code]);
    expect(json.totals).to.include({ issues: 3, open: 2 });
    expect(json.totals.by_severity).to.deep.equal({ critical: 0, high: 1, medium: 1, low: 1, info: 0 });
    expect(json.totals.by_status).to.deep.equal([{ status_id: 1, name: 'New', count: 2 }, { status_id: 5, name: 'False positive', count: 1 }]);
    expect(json.projects).to.deep.equal([{ project_code: code, total: 3, open: 2, open_by_severity: { critical: 0, high: 1, medium: 1, low: 0, info: 0 } }]);
    // Open issues only, most severe first; the false positive is left out.
    expect(json.top_issues.map((i: any) => [i.severity, i.file_path, i.start_line])).to.deep.equal([['high', 'report.py', 4], ['medium', 'report.py', 9]]);
    expect(json.top_issues.map((i: any) => i.id)).not.to.include(falsePositive);

    const csv = await bytes(`/api/v1/report/${created.id}/download?format=csv`);
    expect(csv.headers.get('content-type')).to.match(/^text\/csv/);
    expect(csv.headers.get('content-disposition')).to.equal('attachment; filename="Weekly_summary_.csv"');
    const lines = csv.body.toString('utf8').trimEnd().split('\r\n');
    expect(lines[0].startsWith('id,project_code,')).to.equal(true);
    expect(lines).to.have.length(3);

    const html = (await bytes(`/api/v1/report/${created.id}/download?format=html`)).body.toString('utf8');
    expect(html).to.contain('Weekly &lt;summary&gt;').and.to.contain(code).and.not.to.contain('<summary>');

    const pdf = await bytes(`/api/v1/report/${created.id}/download?format=pdf`);
    expect(pdf.headers.get('content-type')).to.equal('application/pdf');
    expect(pdf.body.subarray(0, 5).toString('latin1')).to.equal('%PDF-');
    // Rendered once, then kept: the second download is the same file.
    expect((await bytes(`/api/v1/report/${created.id}/download?format=pdf`)).body.equals(pdf.body)).to.equal(true);

    const docx = await bytes(`/api/v1/report/${created.id}/download?format=docx`);
    expect(docx.body.subarray(0, 2).toString('latin1')).to.equal('PK');
  });

  it('refuses bad input naming the field, and answers 404 for reports it does not have', async () => {
    refused(await t.admin.post('/api/v1/report', { name: 'x', filter: { period: 'all' } }), 400, 'type');
    refused(await t.admin.post('/api/v1/report', { name: 'x', type: 'weekly' }), 400, 'type');
    refused(await t.admin.post('/api/v1/report', { name: 'x', type: 'summary', filter: { period: 'decade' } }), 400, 'filter.period');
    refused(await t.admin.post('/api/v1/report', { name: '', type: 'summary' }), 400, 'name');
    refused(await t.admin.post('/api/v1/report', { name: 'x', type: 'summary', filter: { project_code: ['no-such-project'] } }), 400, 'filter.project_code');
    const report = ok(await t.admin.post('/api/v1/report', { name: 'formats', type: 'summary', filter: { project_code: [code] } }));
    refused(await download(report.id, 'exe'), 400, 'format');
    refused(await t.admin.get(`/api/v1/report/${randomUUID()}`), 404);
    refused(await download(randomUUID(), 'pdf'), 404);
    refused(await t.admin.get('/api/v1/report/not-an-id'), 400, 'id');
  });

  it('lists, renames and deletes reports; a caller sees only reports within their projects', async function () {
    this.timeout(60000);
    const mine = ok(await t.admin.post('/api/v1/report', { name: `scoped ${code}`, type: 'summary', filter: { project_code: [code] } }));
    const everything = ok(await t.admin.post('/api/v1/report', { name: `all projects ${code}`, type: 'summary' }));
    expect(everything.filter.project_code).to.deep.equal([]);
    const listed = ok(await t.admin.get(`/api/v1/reports?search[name]=${encodeURIComponent(code)}`));
    expect(listed.items.map((r: any) => r.id).sort()).to.deep.equal([mine.id, everything.id].sort());
    expect(ok(await t.admin.put(`/api/v1/report/${mine.id}`, { data: { name: `renamed ${code}` } })).name).to.equal(`renamed ${code}`);
    refused(await t.admin.put(`/api/v1/report/${mine.id}`, { name: 'no data wrapper' }), 400, 'data');

    const role = `reports-${Date.now()}`;
    ok(await t.admin.post('/api/v1/role', { role_code: role, role_name: role, roles: { 'reporting.reports': ['r', 'x'] }, system_scopes: ['project:someone-else'] }));
    const username = `r${Date.now()}`;
    ok(await t.admin.post('/api/v1/user', { username, password: 'a-long-password-1', password_confirmation: 'a-long-password-1', display_name: 'x', email: `${username}@example.com`, need_password_change: false, active_directory: false, roles: [role] }));
    const scoped = t.anon.as(await t.anon.login(username, 'a-long-password-1'));
    refused(await scoped.get(`/api/v1/report/${mine.id}`), 404);
    refused(await scoped.get(`/api/v1/report/${everything.id}`), 404);
    expect(ok(await scoped.get(`/api/v1/reports?search[name]=${encodeURIComponent(code)}`)).total).to.equal(0);
    refused(await scoped.post('/api/v1/report', { name: 'not mine', type: 'summary', filter: { project_code: [code] } }), 400, 'filter.project_code');

    const results = ok(await t.admin.delete('/api/v1/reports', { ids: [mine.id, randomUUID()] })).results;
    expect(results.map((r: any) => r.status)).to.deep.equal(['deleted', 'not_found']);
    refused(await t.admin.get(`/api/v1/report/${mine.id}`), 404);
  });

  it('downloads a summary on the spot through the earlier interface', async () => {
    const json = JSON.parse((await bytes(`/api/v1/report/summary/download?format=json&filter[project_code]=${code}`)).body.toString('utf8'));
    expect(json.totals).to.include({ issues: 3, open: 2 });
    const future = JSON.parse((await bytes(`/api/v1/report/summary/download?format=json&filter[project_code]=${code}&filter[created_at_start]=2099-01-01T00:00:00Z`)).body.toString('utf8'));
    expect(future.totals.issues).to.equal(0);
    const pdf = await bytes(`/api/v1/report/summary/download?filter[project_code]=${code}`);
    expect(pdf.body.subarray(0, 5).toString('latin1')).to.equal('%PDF-');
  });
}
