import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { unzipSync, strFromU8 } from 'fflate';
import { expect } from 'chai';
import { GitServer, startGitServer, SystemUnderTest, type Json, userWithRole, manualCheck } from '@bulwark/testkit';
import { MANUAL_TOOL_TYPE, scanSetup } from '../../scanning/test/scanning.suite';
import { semgrepReport } from '../../issues/test/issues.suite';

const FINDINGS = [
  {
    rule: 'python.lang.security.dangerous-subprocess',
    line: 4,
    code: 'subprocess.call(cmd, shell=True)',
    severity: 'ERROR' as const,
    cwe: 'CWE-78: OS Command Injection',
    path: 'report.py',
  },
  {
    rule: 'python.lang.security.eval',
    line: 9,
    code: 'eval(data)',
    severity: 'WARNING' as const,
    cwe: 'CWE-95',
    path: 'report.py',
  },
  {
    rule: 'python.lang.security.pickle',
    line: 12,
    code: 'pickle.loads(blob)',
    severity: 'INFO' as const,
    cwe: 'CWE-502',
    path: 'report.py',
  },
];

export function reportingSuite(t: SystemUnderTest): void {
  let git: GitServer;
  let code: string;
  let falsePositive: string;

  const ok = (res: { status: number; body: Json }) => {
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body;
  };
  const refused = (res: { status: number; body: Json }, status: number, field?: string) => {
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
  const download = (id: string, format: string) =>
    t.admin.request('GET', `/api/v1/report/${id}/download?format=${format}`);
  const bytes = (path: string) => t.admin.download(path);

  before(async function () {
    this.timeout(90000);
    git = await startGitServer();
    git.addRepository('app', { 'app.py': 'import subprocess\n' });
    const env = await scanSetup(t, git, 'app', [MANUAL_TOOL_TYPE]);
    code = env.code;
    const check = await manualCheck(t.admin, env);
    const scan = ok(
      await t.admin
        .withHeaders({ 'content-type': 'application/json' })
        .request('POST', `/api/v1/check/${check}/results`, undefined, semgrepReport(FINDINGS)),
    );
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
    const created = ok(
      await t.admin.post('/api/v1/report', {
        name: 'Weekly <summary>',
        type: 'summary',
        filter: { period: 'week', project_code: [code] },
      }),
    );
    expect(created).to.include({ name: 'Weekly <summary>', type: 'summary', author: 'admin' });
    expect(created.filter).to.deep.equal({ period: 'week', project_code: [code], from: null, to: null });
    expect(['queued', 'running', 'ready']).to.include(created.state);
    const ready = await waitReady(created.id);
    expect(ready).to.include({ state: 'ready', progress: 100, error: null });
    expect(ready.formats).to.deep.equal(['html', 'csv', 'json', 'pdf', 'docx']);

    const json = JSON.parse((await bytes(`/api/v1/report/${created.id}/download?format=json`)).body.toString('utf8'));
    expect(json.report).to.include({ id: created.id, name: 'Weekly <summary>', period: 'week' });
    expect(json.report.project_codes).to.deep.equal([code]);
    expect(json.totals).to.include({ issues: 3, open: 2 });
    expect(json.totals.by_severity).to.deep.equal({ critical: 0, high: 1, medium: 1, low: 1, info: 0 });
    expect(json.totals.by_status).to.deep.equal([
      { status_id: 1, name: 'New', count: 2 },
      { status_id: 5, name: 'False positive', count: 1 },
    ]);
    expect(json.projects).to.deep.equal([
      { project_code: code, total: 3, open: 2, open_by_severity: { critical: 0, high: 1, medium: 1, low: 0, info: 0 } },
    ]);
    // Open issues only, most severe first; the false positive is left out.
    expect(json.top_issues.map((i: Json) => [i.severity, i.file_path, i.start_line])).to.deep.equal([
      ['high', 'report.py', 4],
      ['medium', 'report.py', 9],
    ]);
    expect(json.top_issues.map((i: Json) => i.id)).not.to.include(falsePositive);

    const csv = await bytes(`/api/v1/report/${created.id}/download?format=csv`);
    expect(csv.headers.get('content-type')).to.match(/^text\/csv/);
    expect(csv.headers.get('content-disposition')).to.equal(
      `attachment; filename="Weekly _summary_.csv"; filename*=UTF-8''Weekly%20_summary_.csv`,
    );
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
    refused(
      await t.admin.post('/api/v1/report', { name: 'x', type: 'summary', filter: { period: 'decade' } }),
      400,
      'filter.period',
    );
    refused(await t.admin.post('/api/v1/report', { name: '', type: 'summary' }), 400, 'name');
    refused(
      await t.admin.post('/api/v1/report', {
        name: 'x',
        type: 'summary',
        filter: { project_code: ['no-such-project'] },
      }),
      400,
      'filter.project_code',
    );
    const report = ok(
      await t.admin.post('/api/v1/report', { name: 'formats', type: 'summary', filter: { project_code: [code] } }),
    );
    refused(await download(report.id, 'exe'), 400, 'format');
    refused(await t.admin.get(`/api/v1/report/${randomUUID()}`), 404);
    refused(await download(randomUUID(), 'pdf'), 404);
    refused(await t.admin.get('/api/v1/report/not-an-id'), 400, 'id');
  });

  it('lists, renames and deletes reports; a caller sees only reports within their projects', async function () {
    this.timeout(60000);
    const mine = ok(
      await t.admin.post('/api/v1/report', {
        name: `scoped ${code}`,
        type: 'summary',
        filter: { project_code: [code] },
      }),
    );
    const everything = ok(await t.admin.post('/api/v1/report', { name: `all projects ${code}`, type: 'summary' }));
    expect(everything.filter.project_code).to.deep.equal([]);
    const listed = ok(await t.admin.get(`/api/v1/reports?search[name]=${encodeURIComponent(code)}`));
    expect(listed.items.map((r: Json) => r.id).sort()).to.deep.equal([mine.id, everything.id].sort());
    expect(ok(await t.admin.put(`/api/v1/report/${mine.id}`, { data: { name: `renamed ${code}` } })).name).to.equal(
      `renamed ${code}`,
    );
    refused(await t.admin.put(`/api/v1/report/${mine.id}`, { name: 'no data wrapper' }), 400, 'data');

    const { token } = await userWithRole(t.admin, t.anon, { 'reporting.reports': ['r', 'x'] }, ['someone-else']);
    const scoped = t.anon.as(token);
    refused(await scoped.get(`/api/v1/report/${mine.id}`), 404);
    refused(await scoped.get(`/api/v1/report/${everything.id}`), 404);
    expect(ok(await scoped.get(`/api/v1/reports?search[name]=${encodeURIComponent(code)}`)).total).to.equal(0);
    refused(
      await scoped.post('/api/v1/report', { name: 'not mine', type: 'summary', filter: { project_code: [code] } }),
      400,
      'filter.project_code',
    );

    const results = ok(await t.admin.delete('/api/v1/reports', { ids: [mine.id, randomUUID()] })).results;
    expect(results.map((r: Json) => r.status)).to.deep.equal(['deleted', 'not_found']);
    refused(await t.admin.get(`/api/v1/report/${mine.id}`), 404);
  });

  it('downloads a summary on the spot through the earlier interface', async () => {
    const json = JSON.parse(
      (await bytes(`/api/v1/report/summary/download?format=json&filter[project_code]=${code}`)).body.toString('utf8'),
    );
    expect(json.totals).to.include({ issues: 3, open: 2 });
    const future = JSON.parse(
      (
        await bytes(
          `/api/v1/report/summary/download?format=json&filter[project_code]=${code}&filter[created_at_start]=2099-01-01T00:00:00Z`,
        )
      ).body.toString('utf8'),
    );
    expect(future.totals.issues).to.equal(0);
    const pdf = await bytes(`/api/v1/report/summary/download?filter[project_code]=${code}`);
    expect(pdf.body.subarray(0, 5).toString('latin1')).to.equal('%PDF-');
    refused(await t.admin.get(`/api/v1/report/summary/download?format=json&filter[project_code]=absent-${code}`), 404);
  });

  it('refuses a custom range that is malformed, reversed, in the future or mixed with a named period, naming the field', async () => {
    const create = (filter: object) => t.admin.post('/api/v1/report', { name: 'range', type: 'trend', filter });
    refused(await create({ period: 'custom' }), 400, 'filter.from');
    refused(await create({ from: 'yesterday' }), 400, 'filter.from');
    refused(await create({ from: '2025-02-30' }), 400, 'filter.from');
    refused(await create({ from: '2025-03-02', to: '2025-03-01' }), 400, 'filter.to');
    refused(await create({ period: 'week', from: '2025-03-01' }), 400, 'filter.period');
    refused(await create({ from: '2025-03-01', to: '2099-01-01' }), 400, 'filter.to');
    refused(await create({ from: '2025-03-01', until: '2025-03-02' }), 400, 'filter.until');
    refused(await create({ from: '0000-01-01' }), 400, 'filter.from');
    refused(await create({ from: new Date(Date.now() + 86_400_000).toISOString() }), 400, 'filter.from');
  });

  it('generates every type with a custom range and a non-Latin name, and downloads each format under that name', async function () {
    this.timeout(240000);
    // One issue fixed, so the trend has a fix and a mean time to fix.
    const high = ok(await t.admin.get(`/api/v1/issues?filter[project_code]=${code}&filter[severity]=high`)).items[0].id;
    ok(await t.admin.put(`/api/v1/issue/${high}`, { status_id: 4 }));
    const from = new Date(Date.now() - 3 * 86_400_000).toISOString().slice(0, 10);
    const names = {
      summary: 'Сводка 摘要',
      detailed: 'Подробный отчёт 详细报告',
      compliance: 'Соответствие 合规',
      trend: 'Динамика 趋势',
    };
    const created = await Promise.all(
      Object.entries(names).map(async ([type, name]) =>
        ok(await t.admin.post('/api/v1/report', { name, type, filter: { from, project_code: [code] } })),
      ),
    );
    for (const report of created) {
      expect(report.filter).to.include({ period: 'custom', from: `${from}T00:00:00.000Z` });
      expect((await waitReady(report.id)).state).to.equal('ready');
      const json = JSON.parse((await bytes(`/api/v1/report/${report.id}/download?format=json`)).body.toString('utf8'));
      expect(json.report).to.include({ type: report.type, period: 'custom', from: `${from}T00:00:00.000Z` });
      for (const format of ['html', 'csv', 'pdf', 'docx']) {
        const file = await bytes(`/api/v1/report/${report.id}/download?format=${format}`);
        expect(file.headers.get('content-disposition')).to.include(
          `filename*=UTF-8''${encodeURIComponent(`${report.name}.${format}`)}`,
        );
        if (format === 'pdf')
          expect(execFileSync('pdftotext', ['-', '-'], { input: file.body }).toString('utf8')).to.include(report.name);
        if (format === 'html') expect(file.body.toString('utf8')).to.include(`<title>${report.name}</title>`);
        if (format === 'docx')
          expect(strFromU8(unzipSync(new Uint8Array(file.body))['word/document.xml'])).to.include(report.name);
      }
      if (report.type === 'detailed') {
        // Every open issue with its description, remediation and history.
        expect(Object.keys(json.details).sort()).to.deep.equal(json.top_issues.map((i: Json) => i.id).sort());
        const medium = json.top_issues.find((i: Json) => i.severity === 'medium');
        expect(json.details[medium.id].remediation).to.match(
          /^Fix the code at report\.py:9 \(CWE-95\); see OWASP A03:2021 Injection/,
        );
      }
      if (report.type === 'compliance') {
        const injection = json.compliance.owasp_top10_2021.find((c: Json) => c.id === 'A03:2021');
        // CWE-95 (eval) is open; CWE-78 was fixed above.
        expect(injection).to.include({ total: 2, open: 1 });
        expect(injection.cwes).to.deep.equal([78, 95]);
        expect(json.compliance.owasp_top10_2021.find((c: Json) => c.id === 'A08:2021')).to.include({
          total: 1,
          open: 0,
        });
        expect(json.compliance.cwe_top25_2024.find((c: Json) => c.id === '#7 CWE-78')).to.include({
          total: 1,
          open: 0,
        });
        // The SLA section: no policy applies to this project, so every open issue is without an SLA.
        expect(json.sla.by_severity.map((r: Json) => r.severity)).to.deep.equal([
          'critical',
          'high',
          'medium',
          'low',
          'info',
        ]);
        expect(json.sla.breached).to.equal(0);
        expect(json.sla.by_severity.reduce((n: number, r: Json) => n + r.without_sla, 0)).to.equal(
          json.top_issues.length,
        );
      }
      if (report.type === 'trend') {
        expect(json.trend.interval).to.equal('day');
        const points = json.trend.points;
        expect(points.reduce((n: number, p: Json) => n + p.opened, 0)).to.equal(3);
        expect(points.reduce((n: number, p: Json) => n + p.fixed, 0)).to.equal(1);
        expect(points[points.length - 1].open).to.equal(1);
        expect(json.trend.fix_times.find((f: Json) => f.severity === 'high')).to.include({ fixed: 1 });
      }
    }
  });
}
