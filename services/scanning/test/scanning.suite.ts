import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import {
  GitServer,
  projectWithSource,
  startGitServer,
  SystemUnderTest,
  uniqueSuffix,
  type Json,
} from '@bulwark/testkit';

export const MANUAL_TOOL_TYPE = 20;
export const SEMGREP_TOOL_TYPE = 1;

/** A project tagged `test` with a layer, an anonymous Git source of `repo` and tools, made through the API. */
export function scanSetup(t: SystemUnderTest, git: GitServer, repo: string, toolTypes: number[]) {
  return projectWithSource(t.admin, {
    code: `p-${uniqueSuffix()}`,
    sourceUrl: git.urlOf(repo),
    toolTypes,
    tags: ['test'],
  });
}

function semgrepReport(results: { rule: string; line: number; code: string }[]): string {
  return JSON.stringify({
    version: '1.100.0',
    errors: [],
    paths: { scanned: ['app.py'] },
    results: results.map((r) => ({
      check_id: r.rule,
      path: 'app.py',
      start: { line: r.line, col: 1, offset: 0 },
      end: { line: r.line, col: 20, offset: 20 },
      extra: { message: `finding ${r.rule}`, severity: 'ERROR', lines: r.code, metadata: {} },
    })),
  });
}

const SEMGREP_REPORT = JSON.stringify({
  version: '1.100.0',
  errors: [],
  paths: { scanned: ['app.py'] },
  results: [
    {
      check_id: 'python.lang.security.dangerous-subprocess',
      path: 'app.py',
      start: { line: 4, col: 1, offset: 40 },
      end: { line: 4, col: 30, offset: 69 },
      extra: {
        message: 'subprocess call with shell=True',
        severity: 'ERROR',
        lines: 'subprocess.call(cmd, shell=True)',
        metadata: { cwe: ['CWE-78: OS Command Injection'] },
      },
    },
    {
      check_id: 'python.lang.security.eval',
      path: 'app.py',
      start: { line: 9, col: 1, offset: 90 },
      end: { line: 9, col: 12, offset: 101 },
      extra: { message: 'eval of input', severity: 'WARNING', lines: 'eval(data)', metadata: { cwe: ['CWE-95'] } },
    },
  ],
});

export function scanningSuite(t: SystemUnderTest): void {
  let git: GitServer;
  let env: Awaited<ReturnType<typeof scanSetup>>;
  let manualTool: string;
  let cliTool: string;

  before(async () => {
    git = await startGitServer();
    git.addRepository(
      'app',
      { 'app.py': 'import subprocess\n\ndef run(cmd):\n    subprocess.call(cmd, shell=True)\n' },
      { branches: ['dev', 'release'] },
    );
    env = await scanSetup(t, git, 'app', [MANUAL_TOOL_TYPE, SEMGREP_TOOL_TYPE]);
    [manualTool, cliTool] = env.tools;
  });
  after(async () => git?.close());

  const body = (extra: Record<string, unknown> = {}) => ({
    layer_id: env.layerId,
    security_tool_id: manualTool,
    tool_settings: { scan_result_lang: 'EN' },
    scan_source_id: env.sourceId,
    source_auth: { branch_name: 'main' },
    run_scan_task: { type: 'manual' },
    ...extra,
  });
  const create = async (extra: Record<string, unknown> = {}) => {
    const res = await t.admin.post('/api/v1/check', body(extra));
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body;
  };
  const field = (res: { status: number; body: Json }, status: number, name: string) => {
    expect(res.status, JSON.stringify(res.body)).to.equal(status);
    expect(res.body.error.details.map((d: { field: string }) => d.field)).to.include(name);
  };

  describe('checks and groups (rules of the guide)', () => {
    it('rule 1: several tags create a group, one check per tag; GET lists grouped_checks, not grouped_branches', async () => {
      const created = await create({ tags: [{ tag_name: 'main' }, { tag_name: 'dev', commit: 'abcdef1' }] });
      expect(created.group_id).to.be.a('string');
      const got = (await t.admin.get(`/api/v1/check/${created.id}`)).body;
      expect(got).not.to.have.property('grouped_branches');
      expect(got.grouped_checks).to.have.length(2);
      expect(got.grouped_checks.map((g: Json) => g.taginfo)).to.deep.include.members([
        { tag_name: 'main' },
        { tag_name: 'dev', commit: 'abcdef1' },
      ]);
      expect(got.grouped_checks.map((g: Json) => g.check_id)).to.include(created.id);
      const other = got.grouped_checks.find((g: Json) => g.check_id !== created.id).check_id;
      const sibling = (await t.admin.get(`/api/v1/check/${other}`)).body;
      expect(sibling.group_id).to.equal(created.group_id);
      expect(sibling.scan_source_id).to.equal(created.scan_source_id);
    });

    it('rule 2: one tag or none creates no group', async () => {
      for (const extra of [{ tags: [{ tag_name: 'main' }] }, {}]) {
        const created = await create(extra);
        expect(created.group_id).to.equal(null);
        expect(created).not.to.have.property('grouped_checks');
      }
    });

    it('never accepts check_group_id on creation, and names bad fields', async () => {
      field(
        await t.admin.post('/api/v1/check', body({ check_group_id: '00000000-0000-0000-0000-000000000000' })),
        400,
        'check_group_id',
      );
      field(
        await t.admin.post('/api/v1/check', body({ tags: [{ tag_name: 'x' }, { tag_name: 'x' }] })),
        400,
        'tags[1].tag_name',
      );
      field(
        await t.admin.post('/api/v1/check', body({ layer_id: '00000000-0000-0000-0000-000000000000' })),
        400,
        'layer_id',
      );
      field(await t.admin.post('/api/v1/check', body({ security_tool_id: 'not-a-uuid' })), 400, 'security_tool_id');
      field(
        await t.admin.post('/api/v1/check', body({ scan_source_id: '00000000-0000-0000-0000-000000000000' })),
        400,
        'scan_source_id',
      );
    });

    it('accepts the earlier payload: tool_auth, pipeline_id and project_code', async () => {
      const { tool_settings: toolSettings, layer_id: layerId, ...rest } = body();
      const res = await t.admin.post('/api/v1/check', {
        ...rest,
        tool_auth: toolSettings,
        pipeline_id: layerId,
        project_code: env.code,
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.layer_id).to.equal(env.layerId);
      expect(res.body.tool_settings.scan_result_lang).to.equal('EN');
      field(
        await t.admin.post('/api/v1/check', {
          ...rest,
          tool_auth: toolSettings,
          pipeline_id: layerId,
          project_code: 'another-project',
        }),
        400,
        'project_code',
      );
    });

    it('keeps a check api_token secret: stored, never returned', async () => {
      const created = await create({ tool_settings: { scan_result_lang: 'EN', api_token: 'tok-very-secret-123' } });
      expect(created.tool_settings.api_token_set).to.equal(true);
      expect(JSON.stringify((await t.admin.get(`/api/v1/check/${created.id}`)).body)).not.to.contain(
        'tok-very-secret-123',
      );
      const kept = await t.admin.put(`/api/v1/check/${created.id}`, { tool_settings: { scan_result_lang: 'RU' } });
      expect(kept.body.tool_settings).to.deep.include({ scan_result_lang: 'RU', api_token_set: true });
    });

    it('rule 4: PUT without grouped_checks changes only the path check, even in a group', async () => {
      const created = await create({ tags: [{ tag_name: 'main' }, { tag_name: 'dev' }] });
      const res = await t.admin.put(`/api/v1/check/${created.id}`, { source_auth: { branch_name: 'release' } });
      expect(res.status).to.equal(200);
      expect(res.body.source_auth.branch_name).to.equal('release');
      const other = res.body.grouped_checks.find((g: Json) => g.check_id !== created.id).check_id;
      expect((await t.admin.get(`/api/v1/check/${other}`)).body.source_auth.branch_name).to.equal('main');
    });

    it('rule 5: PUT with several grouped_checks and no group creates a group the path check joins', async () => {
      const single = await create({ tags: [{ tag_name: 'main' }] });
      const res = await t.admin.put(`/api/v1/check/${single.id}`, {
        grouped_checks: [{ check_id: single.id, taginfo: { tag_name: 'main' } }, { taginfo: { tag_name: 'dev' } }],
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.group_id).to.be.a('string');
      expect(res.body.grouped_checks.map((g: Json) => g.taginfo.tag_name).sort()).to.deep.equal(['dev', 'main']);
    });

    it('rule 6: PUT with one grouped_checks element and no group changes only the path check', async () => {
      const single = await create({ tags: [{ tag_name: 'main' }] });
      const res = await t.admin.put(`/api/v1/check/${single.id}`, {
        grouped_checks: [{ taginfo: { tag_name: 'release' } }],
      });
      expect(res.body.group_id).to.equal(null);
      expect(res.body.taginfo).to.deep.equal({ tag_name: 'release' });
    });

    it('rules 7, 8, 9: in a group, common parameters go to all, tags per element, new elements join, absent checks leave', async () => {
      const created = await create({ tags: [{ tag_name: 'a' }, { tag_name: 'b' }, { tag_name: 'c' }] });
      const members = (await t.admin.get(`/api/v1/check/${created.id}`)).body.grouped_checks as {
        check_id: string;
        taginfo: { tag_name: string };
      }[];
      const byTag = Object.fromEntries(members.map((m) => [m.taginfo.tag_name, m.check_id]));
      const res = await t.admin.put(`/api/v1/check/${byTag.a}`, {
        source_auth: { branch_name: 'release' },
        grouped_checks: [
          { check_id: byTag.a, taginfo: { tag_name: 'a2' } },
          { check_id: byTag.b, taginfo: { tag_name: 'b' } },
          { taginfo: { tag_name: 'x' } },
        ],
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      const tags = res.body.grouped_checks.map((g: Json) => g.taginfo.tag_name).sort();
      expect(tags).to.deep.equal(['a2', 'b', 'x']);
      for (const g of res.body.grouped_checks)
        expect((await t.admin.get(`/api/v1/check/${g.check_id}`)).body.source_auth.branch_name).to.equal('release');
      const left = (await t.admin.get(`/api/v1/check/${byTag.c}`)).body;
      expect(left.group_id).to.equal(null);
      expect(left.source_auth.branch_name).to.equal('main');
    });

    it('refuses a grouped_checks element naming a check outside the group', async () => {
      const a = await create({ tags: [{ tag_name: 'a' }, { tag_name: 'b' }] });
      const stranger = await create();
      field(
        await t.admin.put(`/api/v1/check/${a.id}`, {
          grouped_checks: [{ check_id: stranger.id, taginfo: { tag_name: 'z' } }, { taginfo: { tag_name: 'y' } }],
        }),
        400,
        'grouped_checks[0].check_id',
      );
    });

    it('deletes checks in bulk, answering per id (an id that is no UUID is simply not found)', async () => {
      const a = await create();
      const res = await t.admin.delete('/api/v1/checks', {
        ids: ['not-a-uuid', a.id, '00000000-0000-0000-0000-000000000000'],
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.results.map((r: Json) => r.status)).to.deep.equal(['not_found', 'deleted', 'not_found']);
      expect((await t.admin.get(`/api/v1/check/${a.id}`)).status).to.equal(404);
    });

    it('DELETE /check-group/{id} deletes the group and all its checks; the removed group endpoints answer 410', async () => {
      const created = await create({ tags: [{ tag_name: 'a' }, { tag_name: 'b' }] });
      const del = await t.admin.delete(`/api/v1/check-group/${created.group_id}`);
      expect(del.status).to.equal(200);
      expect(del.body.deleted_check_ids).to.have.length(2);
      expect((await t.admin.get(`/api/v1/check/${created.id}`)).status).to.equal(404);
      expect((await t.admin.delete(`/api/v1/check-group/${created.group_id}`)).status).to.equal(404);
      expect((await t.admin.post('/api/v1/check-group', {})).status).to.equal(410);
      expect((await t.admin.get(`/api/v1/check-group/${created.group_id}`)).status).to.equal(410);
      expect((await t.admin.put(`/api/v1/checks-group/${created.group_id}`, {})).status).to.equal(410);
    });
  });

  describe('template layers', () => {
    it('copies a template layer\u2019s checks, groups included, into the layer instantiated from it', async () => {
      const template = await t.admin.post('/api/v1/layer', {
        name: 'template',
        description: 'tpl',
        project_code: env.code,
        layer_type_id: 1,
        is_template: true,
      });
      expect(template.status, JSON.stringify(template.body)).to.equal(200);
      const grouped = await t.admin.post('/api/v1/check', {
        ...body(),
        layer_id: template.body.id,
        tags: [{ tag_name: 'main' }, { tag_name: 'dev' }],
      });
      expect(grouped.status, JSON.stringify(grouped.body)).to.equal(200);
      const other = `p-${uniqueSuffix()}`;
      expect(
        (await t.admin.post('/api/v1/project', { code: other, name: other, description: '', tags: [] })).status,
      ).to.equal(200);
      const made = await t.admin.post(`/api/v1/layer/${template.body.id}/instantiate`, { project_code: other });
      expect(made.status, JSON.stringify(made.body)).to.equal(200);
      let copies: Json[] = [];
      for (let i = 0; i < 150 && copies.length < 2; i++) {
        copies = (await t.admin.get(`/api/v1/checks?filter[layer_id]=${made.body.id}`)).body.items;
        if (copies.length < 2) await new Promise((r) => setTimeout(r, 200));
      }
      expect(copies).to.have.length(2);
      expect(copies.map((c) => c.taginfo.tag_name).sort()).to.deep.equal(['dev', 'main']);
      expect(copies[0].group_id)
        .to.be.a('string')
        .and.to.equal(copies[1].group_id)
        .and.not.to.equal(grouped.body.group_id);
      expect(copies.every((c) => c.project_code === other)).to.equal(true);
    });
  });

  describe('uploads and scan results', () => {
    it('lists the report formats an upload takes, each usable as ?format=, and refuses an unknown query parameter', async () => {
      const res = await t.admin.get('/api/v1/scan-report-formats');
      expect(res.status).to.equal(200);
      const ids = (res.body.items as { id: string; title: string }[]).map((f) => f.id);
      expect(ids).to.include.members(['semgrep', 'gitleaks', 'sarif', 'trivy']);
      expect(new Set(ids).size).to.equal(ids.length);
      expect(res.body.items.every((f: { title: string }) => f.title.length > 0)).to.equal(true);
      // Every format states the tool versions it was tested with.
      expect(
        res.body.items.every(
          (f: { tested_with: unknown }) => typeof f.tested_with === 'string' && f.tested_with !== '',
        ),
      ).to.equal(true);
      const check = await create();
      const named = await t.admin
        .withHeaders({ 'content-type': 'application/json' })
        .request('POST', `/api/v1/check/${check.id}/results?format=semgrep`, undefined, SEMGREP_REPORT);
      expect(named.status, JSON.stringify(named.body)).to.equal(200);
      const refused = await t.admin.get('/api/v1/scan-report-formats?limit=5');
      expect(refused.status).to.equal(400);
      expect(refused.body.error.details[0].field).to.equal('limit');
      // Odd queries (repeated, bracketed, nested, empty names) are refused the same way, never a 500.
      for (const odd of ['a=1&a=2', 'filter[x][y]=1', 'x[]=1', '=1', '%ZZ=1', 'format=semgrep&format=sarif']) {
        const res = await t.admin.get(`/api/v1/scan-report-formats?${odd}`);
        expect(res.status, `${odd}: ${JSON.stringify(res.body)}`).to.equal(400);
        expect(res.body.error.details, odd).to.be.an('array').that.is.not.empty;
      }
    });

    it('turns an uploaded report into a completed scan result with findings and a downloadable report', async () => {
      const check = await create();
      const res = await t.admin
        .withHeaders({ 'content-type': 'application/json' })
        .request('POST', `/api/v1/check/${check.id}/results?file_name=semgrep.json`, undefined, SEMGREP_REPORT);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.state).to.equal('completed');
      const result = (await t.admin.get(`/api/v1/scan-result/${res.body.scan_result_id}`)).body;
      expect(result).to.include({
        state: 'completed',
        findings_count: 2,
        report_format: 'semgrep',
        kind: 'upload',
        check_id: check.id,
        progress: 100,
      });
      expect(result.severity_counts.high).to.equal(1);
      const report = await t.admin.get(`/api/v1/scan-result/${result.id}/report`);
      expect(report.status).to.equal(200);
      expect(report.body.results).to.have.length(2);
      const filters = (await t.admin.get(`/api/v1/scan-results/filter?filter[checks]=${check.id}`)).body;
      expect(filters.checks).to.deep.equal([{ check_id: check.id, count: 1 }]);
      expect(filters.states).to.deep.equal([{ state: 'completed', count: 1 }]);
      expect(filters.kinds).to.deep.equal(['upload']);
      expect(filters.created_at.min).to.equal(result.created_at);
      const listed = await t.admin.get(`/api/v1/scan-results?filter[check_id]=${check.id}`);
      expect(listed.body.items.map((i: Json) => i.id)).to.deep.equal([result.id]);
      expect((await t.admin.get(`/api/v1/check/${check.id}`)).body.last_scan.id).to.equal(result.id);
      // Every stored finding reaches the issues service (the hand-over reads them by sequence number).
      const deadline = Date.now() + 60000;
      while ((await t.admin.get(`/api/v1/issues/count?filter[scan]=${result.id}`)).body.count !== 2) {
        if (Date.now() > deadline) throw new Error(`the findings of scan ${result.id} did not all become issues`);
        await new Promise((r) => setTimeout(r, 250));
      }
    });

    it('stores the same report uploaded again by copying the first upload\u2019s findings, exactly; another file name or format is parsed', async () => {
      const check = await create();
      const uploads = async (how: string) => {
        const text = await (await fetch(`${t.sys.services.scanning}/metrics`)).text();
        const line = text.split('\n').find((l) => l.startsWith(`bulwark_report_uploads_total{how="${how}"}`));
        return line ? Number(line.split(' ').pop()) : 0;
      };
      const upload = async (query: string) => {
        const res = await t.admin
          .withHeaders({ 'content-type': 'application/json' })
          .request('POST', `/api/v1/check/${check.id}/results${query}`, undefined, SEMGREP_REPORT);
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        return (await t.admin.get(`/api/v1/scan-result/${res.body.scan_result_id}`)).body;
      };
      const findings = async (id: string) => (await t.admin.get(`/api/v1/scan-result/${id}/findings?limit=100`)).body;
      const [parsedBefore, copiedBefore] = [await uploads('parsed'), await uploads('copied')];
      const first = await upload('?file_name=semgrep.json');
      const again = await upload('?file_name=semgrep.json');
      expect([(await uploads('parsed')) - parsedBefore, (await uploads('copied')) - copiedBefore]).to.deep.equal([
        1, 1,
      ]);
      expect(again.id).to.not.equal(first.id);
      for (const key of ['state', 'findings_count', 'severity_counts', 'report_format', 'kind'])
        expect(again[key], key).to.deep.equal(first[key]);
      expect(await findings(again.id)).to.deep.equal(await findings(first.id));
      const [a, b] = [
        await t.admin.get(`/api/v1/scan-result/${first.id}/report`),
        await t.admin.get(`/api/v1/scan-result/${again.id}/report`),
      ];
      expect(b.status).to.equal(200);
      expect(b.body).to.deep.equal(a.body);
      const stats = (await t.admin.get(`/api/v1/scan-result/${again.id}/stats/issues`)).body;
      expect([stats.compared_with, stats.new.count, stats.fixed.count, stats.unchanged.count]).to.deep.equal([
        first.id,
        0,
        0,
        2,
      ]);

      // The file name and the declared format are part of what decides the findings: these are parsed.
      await upload('?file_name=other.json');
      await upload('?file_name=semgrep.json&format=semgrep');
      expect((await uploads('parsed')) - parsedBefore).to.equal(3);

      // After another report the issues service matches the reused findings one by one: they reach it
      // through StreamFindings, and the statistics compare them with the other report's.
      const other = await t.admin
        .withHeaders({ 'content-type': 'application/json' })
        .request(
          'POST',
          `/api/v1/check/${check.id}/results?file_name=semgrep.json`,
          undefined,
          semgrepReport([{ rule: 'r.other', line: 9, code: 'other()' }]),
        );
      expect(other.status, JSON.stringify(other.body)).to.equal(200);
      const third = await upload('?file_name=semgrep.json');
      expect((await uploads('copied')) - copiedBefore).to.equal(2);
      expect(await findings(third.id)).to.deep.equal(await findings(first.id));
      const versus = (await t.admin.get(`/api/v1/scan-result/${third.id}/stats/issues`)).body;
      expect([versus.compared_with, versus.new.count, versus.fixed.count, versus.unchanged.count]).to.deep.equal([
        other.body.scan_result_id,
        2,
        1,
        0,
      ]);
      const deadline = Date.now() + 60000;
      while ((await t.admin.get(`/api/v1/issues/count?filter[scan]=${third.id}`)).body.count !== 2) {
        if (Date.now() > deadline) throw new Error(`the reused findings of scan ${third.id} did not all become issues`);
        await new Promise((r) => setTimeout(r, 250));
      }
    });

    it('keeps a report whose gzip spans several stored rows, and downloads it and its unchanged copy whole', async () => {
      const check = await create();
      // 3 MiB of random text compresses to well over the 1 MiB of one stored row.
      const report = JSON.stringify({
        ...JSON.parse(semgrepReport([{ rule: 'r.big', line: 3, code: 'x()' }])),
        padding: randomBytes(2.25 * 1024 * 1024).toString('base64'),
      });
      const upload = async () => {
        const res = await t.admin
          .withHeaders({ 'content-type': 'application/json' })
          .request('POST', `/api/v1/check/${check.id}/results?file_name=big.json`, undefined, report);
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        return res.body.scan_result_id as string;
      };
      for (const id of [await upload(), await upload()]) {
        const res = await t.admin.download(`/api/v1/scan-result/${id}/report`);
        expect(res.status).to.equal(200);
        expect(res.headers.get('content-disposition')).to.equal('attachment; filename="big.json"');
        expect(res.body.toString('utf8')).to.equal(report);
      }
    });

    it('follows the check\u2019s comparison mode in its statistics (previous, baseline, pair)', async () => {
      const check = await create();
      const upload = async (report: string) => {
        const res = await t.admin.request('POST', `/api/v1/check/${check.id}/results`, undefined, report);
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        return res.body.scan_result_id as string;
      };
      const x = { rule: 'r.x', line: 3, code: 'x()' };
      const y = { rule: 'r.y', line: 5, code: 'y()' };
      const z = { rule: 'r.z', line: 7, code: 'z()' };
      const a = await upload(semgrepReport([x, y]));
      const b = await upload(semgrepReport([x, z]));
      const c = await upload(semgrepReport([x, y]));

      const first = (await t.admin.get(`/api/v1/scan-result/${a}/stats/issues`)).body;
      expect(first).to.deep.include({ compared_with: null, comparison_mode: 'previous' });
      expect(first.new.count).to.equal(2);
      const prev = (await t.admin.get(`/api/v1/scan-result/${c}/stats/issues`)).body;
      expect(prev.compared_with).to.equal(b);
      expect([prev.new.count, prev.fixed.count, prev.unchanged.count]).to.deep.equal([1, 1, 1]);

      expect(
        (await t.admin.put(`/api/v1/check/${check.id}/comparison`, { mode: 'baseline', baseline_scan_result_id: a }))
          .status,
      ).to.equal(200);
      const base = (await t.admin.get(`/api/v1/scan-result/${c}/stats/issues`)).body;
      expect(base.compared_with).to.equal(a);
      expect([base.new.count, base.fixed.count, base.unchanged.count]).to.deep.equal([0, 0, 2]);

      const set = await t.admin.put(`/api/v1/check/${check.id}/comparison`, { mode: 'pair', scan_result_ids: [a, b] });
      expect(set.body.comparison).to.deep.equal({ mode: 'pair', scan_result_ids: [a, b] });
      expect((await t.admin.get(`/api/v1/scan-result/${b}/stats/issues`)).body.compared_with).to.equal(a);
      field(
        await t.admin.put(`/api/v1/check/${check.id}/comparison`, {
          mode: 'baseline',
          baseline_scan_result_id: '00000000-0000-0000-0000-000000000000',
        }),
        400,
        'baseline_scan_result_id',
      );
      field(await t.admin.put(`/api/v1/check/${check.id}/comparison`, { mode: 'sideways' }), 400, 'mode');

      const compared = (await t.admin.get(`/api/v1/scan-results/stats/compare?first=${a}&second=${b}`)).body;
      expect([compared.only_in_first.count, compared.only_in_second.count, compared.in_both.count]).to.deep.equal([
        1, 1, 1,
      ]);
      // The findings themselves: new in b (only it has z), fixed in b (only a has y), paged as any list.
      const ruleOf = (f: Json) => String(f.ruleId);
      const added = (await t.admin.get(`/api/v1/scan-result/${b}/findings?filter[not_in]=${a}`)).body;
      expect([added.total, added.items.map(ruleOf)]).to.deep.equal([1, ['r.z']]);
      const fixed = (await t.admin.get(`/api/v1/scan-result/${a}/findings?filter[not_in]=${b}&limit=1`)).body;
      expect([fixed.total, fixed.items.map(ruleOf)]).to.deep.equal([1, ['r.y']]);
      // c holds a's findings by reference: the same fingerprints, nothing only in either.
      expect((await t.admin.get(`/api/v1/scan-result/${c}/findings?filter[not_in]=${a}`)).body.total).to.equal(0);
      field(
        await t.admin.get(`/api/v1/scan-result/${a}/findings?filter[not_in]=${randomUUID()}`),
        400,
        'filter[not_in]',
      );
      field(await t.admin.get(`/api/v1/scan-result/${a}/findings?filter[not_in]=nope`), 400, 'filter[not_in]');
      const history = (await t.admin.get(`/api/v1/scan-results/stats/${check.id}`)).body;
      expect(history.items.map((i: Json) => i.scan_result_id)).to.deep.equal([c, b, a]);
    });

    it('takes a CycloneDX SBOM for a layer and lists its components as dependencies', async () => {
      const sbom = fs.readFileSync(
        path.resolve(__dirname, '../../../../shared/corpus/cyclonedx-examples/SBOM__laravel-7.12.0__bom.1.4.json'),
      );
      const expected = JSON.parse(sbom.toString('utf8')).components.length as number;
      const up = await t.admin.request(
        'POST',
        `/api/v1/layer/${env.layerId}/sbom?file_name=bom.json`,
        undefined,
        sbom.toString('utf8'),
      );
      expect(up.status, JSON.stringify(up.body)).to.equal(200);
      expect(up.body).to.include({
        layer_id: env.layerId,
        project_code: env.code,
        format: 'cyclonedx-json',
        components_count: expected,
      });
      const listed = await t.admin.get(`/api/v1/sboms?filter[project_code]=${env.code}`);
      expect(listed.body.items.map((i: Json) => i.id)).to.include(up.body.id);
      const deps = await t.admin.get(`/api/v1/dependencies?filter[layer_id]=${env.layerId}&limit=1000`);
      expect(deps.body.total).to.equal(expected);
      const laravel = await t.admin.get(
        `/api/v1/dependencies?filter[layer_id]=${env.layerId}&search[name]=laravel/framework`,
      );
      expect(laravel.body.items[0]).to.include({ name: 'laravel/framework', project_code: env.code });
      // Each component keeps the licences its SBOM states.
      expect(laravel.body.items[0].licenses).to.deep.equal(['MIT']);
      const filters = await t.admin.get(`/api/v1/dependencies/filter?filter[layer_ids]=${env.layerId}`);
      expect(filters.body.types).to.include('library');
      expect(filters.body.layer_ids).to.deep.equal([env.layerId]);
      field(await t.admin.request('POST', `/api/v1/layer/${env.layerId}/sbom`, undefined, SEMGREP_REPORT), 400, 'body');
    });

    it('answers 400 with the parser\u2019s message for an unparseable report and keeps nothing', async () => {
      const check = await create();
      const bad = await t.admin.request(
        'POST',
        `/api/v1/check/${check.id}/results`,
        undefined,
        '{"results": [ {"check_id": ',
      );
      expect(bad.status, JSON.stringify(bad.body)).to.equal(400);
      expect(bad.body.error.message).to.match(/JSON|truncated|invalid/i);
      const wrong = await t.admin.request(
        'POST',
        `/api/v1/check/${check.id}/results?format=gitleaks`,
        undefined,
        SEMGREP_REPORT,
      );
      field(wrong, 400, 'format');
      expect((await t.admin.get(`/api/v1/scan-results?filter[check_id]=${check.id}`)).body.total).to.equal(0);
    });

    it('refuses to run a check whose tool is uploaded, not run (409)', async () => {
      const check = await create();
      const res = await t.admin.post(`/api/v1/check/${check.id}/run`);
      expect(res.status).to.equal(409);
      expect(res.body.error.message).to.contain('/results');
    });

    it('answers 404 for unknown scan results and checks, 409 to stop a check with nothing running', async () => {
      expect((await t.admin.get('/api/v1/scan-result/00000000-0000-0000-0000-000000000000')).status).to.equal(404);
      expect((await t.admin.post('/api/v1/check/00000000-0000-0000-0000-000000000000/run')).status).to.equal(404);
      const check = await create();
      expect((await t.admin.post(`/api/v1/check/${check.id}/stop`)).status).to.equal(409);
    });

    it('keeps an archived project read-only: no new checks, no scans, no uploads', async () => {
      const check = await create();
      expect((await t.admin.put('/api/v1/projects/archive', { codes: [env.code] })).status).to.equal(200);
      try {
        expect((await t.admin.post('/api/v1/check', body())).status).to.equal(409);
        expect(
          (await t.admin.request('POST', `/api/v1/check/${check.id}/results`, undefined, SEMGREP_REPORT)).status,
        ).to.equal(409);
        expect((await t.admin.post(`/api/v1/layer/${env.layerId}/run`)).status).to.equal(409);
      } finally {
        expect((await t.admin.put('/api/v1/projects/unarchive', { codes: [env.code] })).status).to.equal(200);
      }
    });

    it('queues the layer\u2019s CLI checks with POST /layer/{id}/run and takes each scan to a final state', async () => {
      const check = await create({ security_tool_id: cliTool });
      const layerRun = await t.admin.post(`/api/v1/layer/${env.layerId}/run`);
      expect(layerRun.status, JSON.stringify(layerRun.body)).to.equal(200);
      const mine = layerRun.body.scan_results.find((r: Json) => r.check_id === check.id);
      expect(mine.scan_result_id).to.be.a('string');
      let result: Json;
      for (let i = 0; i < 600; i++) {
        result = (await t.admin.get(`/api/v1/scan-result/${mine.scan_result_id}`)).body;
        if (['completed', 'failed', 'stopped'].includes(result.state)) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(result.state).to.be.oneOf(['completed', 'failed']);
      // Without Semgrep on this machine the scan says which binary is missing and how to install it.
      if (result.state === 'failed')
        expect(result.error)
          .to.match(/semgrep/)
          .and.to.match(/install/);
      expect(result.started_at).to.be.a('string');
      expect(result.finished_at).to.be.a('string');
    });

    it('fails the checkout of a source at an address the outbound policy refuses, with the one neutral message', async () => {
      const refused = await startGitServer({ host: '127.0.0.2' });
      try {
        refused.addRepository('app', { 'app.py': 'print(1)\n' });
        const setup = await scanSetup(t, refused, 'app', [SEMGREP_TOOL_TYPE]);
        const check = await create({
          layer_id: setup.layerId,
          scan_source_id: setup.sourceId,
          security_tool_id: setup.tools[0],
        });
        const run = await t.admin.post(`/api/v1/layer/${setup.layerId}/run`);
        expect(run.status, JSON.stringify(run.body)).to.equal(200);
        const id = run.body.scan_results.find((r: Json) => r.check_id === check.id).scan_result_id;
        let result: Json;
        for (let i = 0; i < 600 && !['completed', 'failed', 'stopped'].includes(result?.state); i++) {
          if (i > 0) await new Promise((r) => setTimeout(r, 200));
          result = (await t.admin.get(`/api/v1/scan-result/${id}`)).body;
        }
        expect(result).to.include({
          state: 'failed',
          error: `Checkout failed: Host unreachable: could not connect to ${new URL(refused.baseUrl).host}`,
        });
        expect(refused.requests).to.deep.equal([]);
      } finally {
        await refused.close();
      }
    });
  });
}
