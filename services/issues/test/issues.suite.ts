import { expect } from 'chai';
import Ajv from 'ajv-draft-04';
import addFormats from 'ajv-formats';
import knex, { Knex } from 'knex';
import sarifSchema from '@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json';
import { Spec, Validation } from '@cyclonedx/cyclonedx-library';
import {
  ADMIN_PASSWORD,
  type Api,
  GitServer,
  serviceMetric,
  startGitServer,
  SystemUnderTest,
  type Json,
  userWithRole,
  manualCheck,
} from '@bulwark/testkit';
import { MANUAL_TOOL_TYPE, scanSetup } from '../../scanning/test/scanning.suite';
import { rescanReport } from '../../scanning/test/rescan-report';

interface SemgrepResult {
  rule: string;
  line: number;
  code: string;
  severity?: 'ERROR' | 'WARNING' | 'INFO';
  cwe?: string;
  path?: string;
}

/** A Semgrep JSON report, the way `semgrep --json` writes it. */
export function semgrepReport(results: SemgrepResult[]): string {
  return JSON.stringify({
    version: '1.100.0',
    errors: [],
    paths: { scanned: ['app.py'] },
    results: results.map((r) => ({
      check_id: r.rule,
      path: r.path ?? 'app.py',
      start: { line: r.line, col: 1, offset: r.line * 10 },
      end: { line: r.line, col: 30, offset: r.line * 10 + 29 },
      extra: {
        message: `${r.rule} finding`,
        severity: r.severity ?? 'ERROR',
        lines: r.code,
        metadata: { cwe: [r.cwe ?? 'CWE-78: OS Command Injection'] },
      },
    })),
  });
}

const SHELL: SemgrepResult = {
  rule: 'python.lang.security.dangerous-subprocess',
  line: 4,
  code: 'subprocess.call(cmd, shell=True)',
  severity: 'ERROR',
  cwe: 'CWE-78: OS Command Injection',
};
const EVAL: SemgrepResult = {
  rule: 'python.lang.security.eval',
  line: 9,
  code: 'eval(data)',
  severity: 'WARNING',
  cwe: 'CWE-95',
};
/** The same findings in another file: issues are deduplicated per project, so each test keeps to its own files. */
const inFile = (path: string, ...results: SemgrepResult[]) => results.map((r) => ({ ...r, path }));

/** A Semgrep report of `n` distinct findings over 300 rules and 4,000 files, as the crash tests ingest. */
export function largeReport(n: number): string {
  // Snippets are normalized with digits masked: distinct findings need distinct letters.
  const letters = (i: number) => i.toString(26).replace(/[0-9]/g, (d) => 'qrstuvwxyz'[Number(d)]);
  return semgrepReport(
    Array.from({ length: n }, (_, i) => ({
      rule: `bench.rule.${i % 300}`,
      line: 1 + (i % 500),
      code: `call_${letters(i)}(x)`,
      severity: (['ERROR', 'WARNING', 'INFO'] as const)[i % 3],
      path: `src/m${i % 4000}.py`,
    })),
  );
}

/** A project's issues in the issues service's database, in a fixed order: what two runs must agree on. */
export function issueSnapshot(db: Knex, project: string) {
  return db('issues')
    .where('project_code', project)
    .orderBy('fingerprint')
    .select(
      'match_key',
      'fingerprint',
      'rule_id',
      'file_path',
      'start_line',
      'severity',
      'status_id',
      'occurrences',
      'detections',
    );
}

export function issuesSuite(t: SystemUnderTest): void {
  let git: GitServer;
  let env: Awaited<ReturnType<typeof scanSetup>>;

  const ok = (res: { status: number; body: Json }) => {
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body;
  };
  const newCheck = (layerId = env.layerId) => manualCheck(t.admin, env, layerId);
  /** A layer of its own in the suite's project (its id), for counts no other test's issues reach. */
  const newLayer = async (name: string, description: string) =>
    ok(
      await t.admin.post('/api/v1/layer', {
        name,
        description,
        project_code: env.code,
        layer_type_id: 1,
        is_template: false,
      }),
    ).id as string;
  const issuesOf = async (query: string) => ok(await t.admin.get(`/api/v1/issues?limit=1000&${query}`));

  /** Uploads a report and waits until the issues service has ingested it (asynchronously, through the bus). */
  const upload = async (checkId: string, results: SemgrepResult[]) => {
    const scan = ok(
      await t.admin
        .withHeaders({ 'content-type': 'application/json' })
        .request('POST', `/api/v1/check/${checkId}/results`, undefined, semgrepReport(results)),
    );
    const deadline = Date.now() + 30000;
    for (;;) {
      const count = ok(await t.admin.get(`/api/v1/issues/count?filter[scan]=${scan.scan_result_id}`)).count;
      if (count === results.length) return scan.scan_result_id as string;
      if (Date.now() > deadline)
        throw new Error(`scan ${scan.scan_result_id} not ingested: ${count} of ${results.length} issues`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  const waitFor = async (what: string, probe: () => Promise<boolean>, ms = 30000) => {
    const deadline = Date.now() + ms;
    while (!(await probe())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  };

  before(async function () {
    this.timeout(60000);
    git = await startGitServer();
    git.addRepository('app', { 'app.py': 'import subprocess\n' });
    env = await scanSetup(t, git, 'app', [MANUAL_TOOL_TYPE]);
  });
  after(async () => git?.close());

  describe('ingestion, deduplication and automatic transitions', () => {
    it('turns findings into issues once: the same report again adds no duplicate; a missing finding is Fixed, back again it is Reopen; a line shift keeps the issue', async function () {
      this.timeout(120000);
      const check = await newCheck();
      const [SHELL_, EVAL_] = inFile('ingest.py', SHELL, EVAL);
      const first = await upload(check, [SHELL_, EVAL_]);
      let items = (await issuesOf(`filter[check]=${check}`)).items;
      expect(items).to.have.length(2);
      const shell = items.find((i: Json) => i.rule_id === SHELL.rule);
      const evalIssue = items.find((i: Json) => i.rule_id === EVAL.rule);
      expect(shell).to.include({
        status_id: 1,
        status: 'New',
        severity: 'high',
        project_code: env.code,
        layer_id: env.layerId,
        check_id: check,
        scan_result_id: first,
        start_line: 4,
        detections: 1,
        category: 'sast',
      });
      expect(shell.cwes).to.deep.equal([78]);
      expect(shell.first_detected_at).to.equal(shell.last_detected_at);

      const again = await upload(check, [SHELL_, EVAL_]);
      items = (await issuesOf(`filter[check]=${check}`)).items;
      expect(items.map((i: Json) => i.id).sort()).to.deep.equal([shell.id, evalIssue.id].sort());
      const shellAgain = items.find((i: Json) => i.id === shell.id);
      expect(shellAgain).to.include({
        detections: 2,
        scan_result_id: again,
        first_detected_at: shell.first_detected_at,
        first_scan_result_id: first,
      });

      await upload(check, [SHELL_]);
      expect(ok(await t.admin.get(`/api/v1/issue/${evalIssue.id}`))).to.include({ status_id: 4, status: 'Fixed' });
      const fixedHistory = ok(await t.admin.get(`/api/v1/issue/${evalIssue.id}/history`)).items;
      expect(fixedHistory[0]).to.include({ actor_kind: 'scan', field: 'status', old_value: '1', new_value: '4' });

      await upload(check, [SHELL_, EVAL_]);
      expect(ok(await t.admin.get(`/api/v1/issue/${evalIssue.id}`))).to.include({ status_id: 8, status: 'Reopen' });

      const shifted = await upload(check, [
        { ...SHELL_, line: 14 },
        { ...EVAL_, line: 19 },
      ]);
      items = (await issuesOf(`filter[check]=${check}`)).items;
      expect(items).to.have.length(2);
      expect(items.find((i: Json) => i.id === shell.id)).to.include({ start_line: 14, scan_result_id: shifted });
    });

    it('a re-import of an unchanged report changes nothing but detection times and counts; a Fixed issue is Reopen, a triaged one stays', async function () {
      this.timeout(120000);
      const check = await newCheck();
      const report = inFile('unchanged.py', SHELL, EVAL, {
        rule: 'python.flask.debug',
        line: 20,
        code: 'app.run(debug=True)',
        severity: 'INFO',
        cwe: 'CWE-489',
      });
      const first = await upload(check, report);
      const byRule = (items: Json[]) => items.sort((a, b) => a.rule_id.localeCompare(b.rule_id));
      const [fixedOne, triaged] = byRule((await issuesOf(`filter[check]=${check}`)).items);
      ok(await t.admin.put(`/api/v1/issue/${fixedOne.id}`, { status_id: 4, comment: 'fixed by hand' }));
      ok(await t.admin.put(`/api/v1/issue/${triaged.id}`, { status_id: 5, comment: 'not reachable' }));
      const snapshot = async () => {
        const items = byRule((await issuesOf(`filter[check]=${check}`)).items);
        return Promise.all(
          items.map(async (i: Json) => ({
            issue: i,
            history: ok(await t.admin.get(`/api/v1/issue/${i.id}/history`)).items,
          })),
        );
      };
      const before = await snapshot();

      const again = await upload(check, report);
      const after = await snapshot();
      expect(after.map((a) => a.issue.id)).to.deep.equal(before.map((b) => b.issue.id));
      for (const [k, b] of before.entries()) {
        const a = after[k];
        const reopened = b.issue.id === fixedOne.id;
        expect(a.issue).to.include({ detections: 2, scan_result_id: again, first_scan_result_id: first });
        expect(Date.parse(a.issue.last_detected_at)).to.be.greaterThan(Date.parse(b.issue.last_detected_at));
        const same = (i: Json) => ({
          ...i,
          detections: undefined,
          scan_result_id: undefined,
          last_detected_at: undefined,
          updated_at: undefined,
          status_id: undefined,
          status: undefined,
        });
        expect(same(a.issue)).to.deep.equal(same(b.issue));
        expect(a.issue.status_id).to.equal(reopened ? 8 : b.issue.status_id);
        expect(a.history.slice(reopened ? 1 : 0)).to.deep.equal(b.history);
        if (reopened)
          expect(a.history[0]).to.include({
            actor_kind: 'scan',
            actor: again,
            field: 'status',
            old_value: '4',
            new_value: '8',
            comment: 'Detected again after it was fixed',
          });
      }
      expect(after.find((a) => a.issue.id === triaged.id)!.issue.status_id).to.equal(5);
    });

    it('a rescan in new bytes reads only what changed: the same findings re-detect set-wise, a diff of 1 gone, 1 new and 1 moved leaves exactly what reading every finding would', async function () {
      this.timeout(120000);
      // A session of its own: its polls would otherwise spend the suite's shared rate limit.
      const admin = t.admin.as(await t.admin.login('admin', ADMIN_PASSWORD));
      const check = await newCheck();
      const send = async (report: string, expected: number) => {
        const scan = ok(
          await admin
            .withHeaders({ 'content-type': 'application/json' })
            .request('POST', `/api/v1/check/${check}/results`, undefined, report),
        ).scan_result_id as string;
        await waitFor(
          `scan ${scan} ingested`,
          async () => ok(await admin.get(`/api/v1/issues/count?filter[scan]=${scan}`)).count === expected,
        );
        return scan;
      };
      const readAs = (read: string) => serviceMetric(t.sys.services.issues, 'bulwark_ingested_scans_total', { read });
      const results = Array.from({ length: 20 }, (_, n) => ({ n, line: 10 + n }));
      const first = await send(rescanReport('2026-11-01T10:00:00Z', results, 'rescan'), 20);
      const byFile = async () =>
        new Map<string, Json>(
          (await issuesOf(`filter[check]=${check}`)).items.map((i: Json) => [i.file_path as string, i]),
        );
      const triaged = (await byFile()).get('rescan/f5.py')!;
      ok(await admin.put(`/api/v1/issue/${triaged.id}`, { status_id: 5, comment: 'not reachable' }));

      const [unchangedBefore, diffBefore] = [await readAs('unchanged'), await readAs('diff')];
      const second = await send(rescanReport('2026-11-02T10:00:00Z', results, 'rescan'), 20);
      expect(await readAs('unchanged'), 'the same findings in new bytes re-detect set-wise').to.equal(
        unchangedBefore + 1,
      );
      const afterSecond = await byFile();
      for (const issue of afterSecond.values()) expect(issue).to.include({ detections: 2, scan_result_id: second });

      // f0 is gone, f20 is new, f1 moved down a line (its snippet keeps the issue); the rest are as they were.
      const changed = [...results.filter((r) => r.n !== 0 && r.n !== 1), { n: 1, line: 12 }, { n: 20, line: 30 }];
      const third = await send(rescanReport('2026-11-03T10:00:00Z', changed, 'rescan'), 20);
      expect(await readAs('diff'), 'the rescan is read as its diff').to.equal(diffBefore + 1);
      const after = await byFile();
      expect(after.size).to.equal(21);
      expect(after.get('rescan/f0.py')).to.include({ status_id: 4, scan_result_id: second, detections: 2 });
      expect(after.get('rescan/f1.py')).to.include({
        id: afterSecond.get('rescan/f1.py')!.id,
        start_line: 12,
        detections: 3,
        scan_result_id: third,
      });
      expect(after.get('rescan/f20.py')).to.include({
        detections: 1,
        scan_result_id: third,
        first_scan_result_id: third,
        start_line: 30,
      });
      for (let n = 2; n < 20; n++) {
        const issue = after.get(`rescan/f${n}.py`)!;
        const was = afterSecond.get(`rescan/f${n}.py`)!;
        expect(issue).to.include({
          id: was.id,
          detections: 3,
          scan_result_id: third,
          first_scan_result_id: first,
          start_line: was.start_line,
          status_id: n === 5 ? 5 : was.status_id,
        });
      }
      const history = ok(await admin.get(`/api/v1/issue/${after.get('rescan/f0.py')!.id}/history`)).items;
      expect(history[0]).to.include({ actor_kind: 'scan', actor: third, field: 'status', new_value: '4' });
    });

    it('maps a report suppression (SARIF) to a status', async function () {
      this.timeout(60000);
      const check = await newCheck();
      const sarif = JSON.stringify({
        version: '2.1.0',
        $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
        runs: [
          {
            tool: { driver: { name: 'CodeQL', rules: [{ id: 'py/sql-injection' }] } },
            results: [
              {
                ruleId: 'py/sql-injection',
                level: 'error',
                message: { text: 'SQL built from user input' },
                locations: [
                  {
                    physicalLocation: {
                      artifactLocation: { uri: 'db.py' },
                      region: { startLine: 3, snippet: { text: 'cur.execute(q % x)' } },
                    },
                  },
                ],
                suppressions: [{ kind: 'inSource', justification: 'reviewed' }],
              },
            ],
          },
        ],
      });
      const scan = ok(
        await t.admin
          .withHeaders({ 'content-type': 'application/json' })
          .request('POST', `/api/v1/check/${check}/results`, undefined, sarif),
      );
      await waitFor(
        'the SARIF issue',
        async () => ok(await t.admin.get(`/api/v1/issues/count?filter[scan]=${scan.scan_result_id}`)).count === 1,
      );
      const [issue] = (await issuesOf(`filter[scan]=${scan.scan_result_id}`)).items;
      expect(issue).to.include({ status_id: 7, status: 'Suppressed', tool_name: issue.tool_name });
      expect(issue.suppression).to.include({ source: 'sarif' });
    });
  });

  describe('queries', () => {
    let check: string;
    before(async function () {
      this.timeout(60000);
      check = await newCheck();
      await upload(
        check,
        inFile('query.py', SHELL, EVAL, {
          rule: 'python.flask.debug',
          line: 20,
          code: 'app.run(debug=True)',
          severity: 'INFO',
          cwe: 'CWE-489',
        }),
      );
    });

    it('filters, searches, inverts, sorts and pages; unknown filters answer 400 naming them', async () => {
      expect(
        (await issuesOf(`filter[check]=${check}&filter[severity]=high`)).items.map((i: Json) => i.rule_id),
      ).to.deep.equal([SHELL.rule]);
      expect((await issuesOf(`filter[check]=${check}&filter[severity]=high&filter[severity]=medium`)).total).to.equal(
        2,
      );
      expect((await issuesOf(`filter[check]=${check}&filter[cwe]=95`)).items.map((i: Json) => i.rule_id)).to.deep.equal(
        [EVAL.rule],
      );
      expect((await issuesOf(`filter[check]=${check}&search[title]=FLASK.DEBUG`)).total).to.equal(1);
      expect(
        (
          await issuesOf(
            `filter[project_code]=${env.code}&filter[check]=${check}&filter[status]=1&filter[category]=sast`,
          )
        ).total,
      ).to.equal(3);
      const tool = (await issuesOf(`filter[check]=${check}`)).items[0].tool_name;
      expect((await issuesOf(`filter[check]=${check}&filter[tool]=${encodeURIComponent(tool)}`)).total).to.equal(3);
      // filter_inversion negates each filter: not this check's high ones.
      const inverted = await issuesOf(`filter[severity]=high&filter_inversion=true&filter[project_code]=nope`);
      expect(inverted.items.every((i: Json) => i.severity !== 'high')).to.equal(true);
      const bySeverity = (await issuesOf(`filter[check]=${check}&sort=-severity`)).items.map((i: Json) => i.severity);
      expect(bySeverity).to.deep.equal(['high', 'medium', 'low']);
      const p1 = ok(await t.admin.get(`/api/v1/issues?filter[check]=${check}&sort=severity&limit=2`));
      expect(p1).to.include({ total: 3, page: 1, limit: 2 });
      const p2 = ok(
        await t.admin.get(`/api/v1/issues?filter[check]=${check}&sort=severity&limit=2&cursor=${p1.next_cursor}`),
      );
      expect([...p1.items, ...p2.items].map((i: Json) => i.severity)).to.deep.equal(['low', 'medium', 'high']);
      expect(
        ok(await t.admin.get(`/api/v1/issues?filter[check]=${check}&sort=severity&limit=2&page=2`)).items.map(
          (i: Json) => i.severity,
        ),
      ).to.deep.equal(['high']);

      const bad = await t.admin.get('/api/v1/issues?filter[bogus]=1&filter[severity]=urgent');
      expect(bad.status).to.equal(400);
      expect(bad.body.error.details.map((d: Json) => d.field)).to.include.members([
        'filter[bogus]',
        'filter[severity]',
      ]);
      expect((await t.admin.get('/api/v1/issues?limit=1001')).status).to.equal(400);
    });

    it('counts, lists filter values, basic filter and the CVSS scale', async () => {
      expect(ok(await t.admin.get(`/api/v1/issues/count?filter[check]=${check}&filter[severity]=low`))).to.deep.equal({
        count: 1,
      });
      const values = ok(await t.admin.get(`/api/v1/issues/filter?filter[check]=${check}`));
      expect(values.severity).to.have.members(['high', 'medium', 'low']);
      expect(values.cwe).to.have.members([78, 95, 489]);
      expect(values.status).to.deep.equal([{ id: 1, name: 'New' }]);
      const basic = ok(
        await t.admin.get(`/api/v1/issues/basic-filter?filter[need_detected_at]=true&filter[project_code]=${env.code}`),
      );
      expect(basic.detected_at.min).to.be.a('string');
      expect(ok(await t.admin.get('/api/v1/issues/basic-filter'))).not.to.have.property('detected_at');
      const scale = ok(await t.admin.get('/api/v1/issues/cvss-severities')).items;
      expect(scale.find((s: Json) => s.severity === 'critical')).to.include({ min: 9, max: 10 });
    });

    it('counts per group what the single counts give (from issue_counts and from the rows), and new, fixed and open per week; 400 names a bad group_by or weeks', async () => {
      const count = async (query: string) => ok(await t.admin.get(`/api/v1/issues/count?${query}`)).count as number;
      const grouped = async (query: string) => ok(await t.admin.get(`/api/v1/issues/count/grouped?${query}`));

      // A filter on the check counts rows; each group is what /issues/count says for its values.
      const byCheck = await grouped(`group_by=status&group_by=severity&filter[check]=${check}`);
      expect(byCheck.group_by).to.deep.equal(['status', 'severity']);
      expect(byCheck.groups).to.deep.equal([
        { severity: 'high', status_id: 1, count: 1 },
        { severity: 'medium', status_id: 1, count: 1 },
        { severity: 'low', status_id: 1, count: 1 },
      ]);
      expect(byCheck.total).to.equal(await count(`filter[check]=${check}`));

      // Project, severity and status filters sum issue_counts: each group is its single count, and the
      // groups add up to the total, so no pair left out holds an issue (one request per pair would
      // spend the suite's rate limit).
      const project = await grouped(
        `group_by=severity&group_by=status&filter[project_code]=${env.code}&filter[category]=sast`,
      );
      expect(project.groups).to.not.be.empty;
      for (const group of project.groups) {
        const single = await count(
          `filter[project_code]=${env.code}&filter[category]=sast&filter[severity]=${group.severity}&filter[status]=${group.status_id}`,
        );
        expect(group.count, `${group.severity}/${group.status_id}`).to.equal(single);
      }
      expect(project.total).to.equal(await count(`filter[project_code]=${env.code}&filter[category]=sast`));
      expect(project.groups.reduce((sum: number, g: Json) => sum + g.count, 0)).to.equal(project.total);
      const everywhere = await grouped('group_by=severity');
      for (const g of everywhere.groups)
        expect(g.count, g.severity).to.equal(await count(`filter[severity]=${g.severity}`));
      expect(everywhere.total).to.equal(await count(''));

      // This week: two issues found, one of them fixed by hand; the weeks before have none of them.
      const weekCheck = await newCheck();
      await upload(weekCheck, inFile('weekly.py', SHELL, EVAL));
      const [fixed] = (await issuesOf(`filter[check]=${weekCheck}`)).items;
      ok(await t.admin.put(`/api/v1/issue/${fixed.id}`, { status_id: 4 }));
      const weeks = (await grouped(`group_by=week&weeks=3&filter[check]=${weekCheck}`)).groups;
      expect(weeks).to.have.length(3);
      expect(weeks.map((w: Json) => ({ new: w.new, fixed: w.fixed, open: w.open }))).to.deep.equal([
        { new: 0, fixed: 0, open: 0 },
        { new: 0, fixed: 0, open: 0 },
        { new: 2, fixed: 1, open: 1 },
      ]);
      expect(Date.parse(weeks[2].week_end) - Date.parse(weeks[2].week_start)).to.equal(7 * 24 * 3600 * 1000);
      expect(weeks[1].week_end).to.equal(weeks[2].week_start);
      const last = weeks[2];
      expect(last.new).to.equal(
        await count(
          `filter[check]=${weekCheck}&filter[detected_at_start]=${last.week_start}&filter[detected_at_end]=${last.week_end}`,
        ),
      );
      expect(last.open).to.equal(
        await count(`filter[check]=${weekCheck}&filter[status]=1&filter[status]=2&filter[status]=3&filter[status]=8`),
      );
      expect((await grouped('group_by=week')).groups).to.have.length(8);

      for (const [query, field] of [
        ['group_by=week&group_by=severity', 'group_by'],
        ['group_by=colour', 'group_by'],
        ['', 'group_by'],
        ['group_by=week&weeks=53', 'weeks'],
        ['group_by=status&filter[bogus]=1', 'filter[bogus]'],
      ]) {
        const bad = await t.admin.get(`/api/v1/issues/count/grouped?${query}`);
        expect(bad.status, query).to.equal(400);
        expect(
          bad.body.error.details.map((d: Json) => d.field),
          query,
        ).to.include(field);
      }
    });

    it('counts a CVE\u2019s reach and a layer\u2019s libraries per group on the server, past the 1,000 issues a page holds', async function () {
      this.timeout(120000);
      const layer = await newLayer('many libraries', 'grouped counts');
      const cve = `CVE-2099-${String(Math.floor(Math.random() * 900000) + 100000)}`;
      // 1,050 issues naming the CVE: 30 libraries in 35 versions each, and one more CVE beside them.
      const component = (i: number) => ({ name: `lib-${i % 30}`, version: `1.0.${Math.floor(i / 30)}` });
      const components = Array.from({ length: 1050 }, (_, i) => ({
        type: 'library',
        'bom-ref': `c${i}`,
        ...component(i),
      }));
      const vulnerabilities = [
        ...components.map((c) => ({ id: cve, ratings: [{ severity: 'high' }], affects: [{ ref: c['bom-ref'] }] })),
        { id: 'CVE-2099-0002', ratings: [{ severity: 'low' }], affects: [{ ref: 'c0' }] },
      ];
      const check = await newCheck(layer);
      const scan = ok(
        await t.admin
          .withHeaders({ 'content-type': 'application/json' })
          .request(
            'POST',
            `/api/v1/check/${check}/results`,
            undefined,
            JSON.stringify({ bomFormat: 'CycloneDX', specVersion: '1.5', version: 1, components, vulnerabilities }),
          ),
      );
      await waitFor(
        'the SCA issues',
        async () => ok(await t.admin.get(`/api/v1/issues/count?filter[scan]=${scan.scan_result_id}`)).count === 1051,
        90000,
      );
      const grouped = async (query: string) => ok(await t.admin.get(`/api/v1/issues/count/grouped?${query}`));
      // A page of the list holds at most 1,000 of them: what the console once aggregated.
      const page = ok(await t.admin.get(`/api/v1/issues?limit=1000&filter[cve]=${cve}`));
      expect(page.items).to.have.length(1000);
      expect(page.total).to.equal(1050);

      const reach = await grouped(
        `group_by=project_code&group_by=layer_id&group_by=lib_name&filter[cve]=${cve}&filter[exclude_duplicates]=true`,
      );
      expect(reach.total).to.equal(1050);
      expect(reach.groups).to.have.length(30);
      for (const g of reach.groups) expect(g).to.include({ project_code: env.code, layer_id: layer, count: 35 });
      expect(reach.groups.map((g: Json) => g.lib_name)).to.include.members(['lib-0', 'lib-29']);

      const ofLibrary = await grouped(
        `group_by=lib_name&group_by=lib_version&group_by=cve&group_by=severity&filter[layer]=${layer}&filter[lib_name]=lib-0`,
      );
      expect(ofLibrary.total).to.equal(36);
      expect(ofLibrary.groups[0]).to.deep.equal({
        count: 1,
        severity: 'high',
        lib_name: 'lib-0',
        lib_version: '1.0.0',
        cve,
      });
      expect(ofLibrary.groups.filter((g: Json) => g.cve === 'CVE-2099-0002')).to.deep.equal([
        { count: 1, severity: 'low', lib_name: 'lib-0', lib_version: '1.0.0', cve: 'CVE-2099-0002' },
      ]);

      // A duplicate is no separate issue: originals-only counts leave it out, as the list does.
      const [original, duplicate] = (await issuesOf(`filter[layer]=${layer}&filter[lib_name]=lib-1`)).items as Json[];
      ok(await t.admin.post(`/api/v1/issue/${original.id}/duplicates`, { ids: [duplicate.id] }));
      const originals = await grouped(`group_by=layer_id&filter[cve]=${cve}&filter[exclude_duplicates]=true`);
      expect(originals.groups).to.deep.equal([{ count: 1049, layer_id: layer }]);
      expect(
        ok(await t.admin.get(`/api/v1/issues?limit=1&filter[cve]=${cve}&filter[exclude_duplicates]=true`)).total,
      ).to.equal(1049);
    });

    it('hides issues outside the caller\u2019s projects', async () => {
      const { token } = await userWithRole(t.admin, t.anon, { 'issues.issues': ['r'] }, ['someone-else']);
      const scoped = t.anon.as(token);
      const mine = (await issuesOf(`filter[check]=${check}`)).items[0];
      expect((await scoped.get(`/api/v1/issues?filter[check]=${check}`)).body.total).to.equal(0);
      expect((await scoped.get(`/api/v1/issue/${mine.id}`)).status).to.equal(404);
      expect(
        (await scoped.get(`/api/v1/issues/count/grouped?group_by=severity&filter[check]=${check}`)).body,
      ).to.deep.equal({ group_by: ['severity'], groups: [], total: 0 });
      expect(
        (await scoped.get(`/api/v1/issues/count/grouped?group_by=week&weeks=1&filter[check]=${check}`)).body.groups[0],
      ).to.include({ new: 0, fixed: 0, open: 0 });
    });
  });

  describe('exports', () => {
    it('exports a layer\u2019s dependencies as a CycloneDX 1.6 SBOM and their vulnerabilities as a VEX the CycloneDX library validates, analysis.state from each issue\u2019s status', async function () {
      this.timeout(90000);
      const validator = new Validation.JsonStrictValidator(Spec.Version.v1dot6);
      const layer = await newLayer('dependencies', 'sbom export');
      const sbomUrl = (kind: string) => `/api/v1/layer/${layer}/sbom?format=cyclonedx&kind=${kind}`;
      expect((await t.admin.get(sbomUrl('sbom'))).status, 'no SBOM uploaded yet').to.equal(404);

      const lib = (name: string, version: string) => ({
        type: 'library',
        'bom-ref': `${name}@${version}`,
        name,
        version,
        purl: `pkg:npm/${name}@${version}`,
      });
      const sbomIn = {
        bomFormat: 'CycloneDX',
        specVersion: '1.5',
        version: 1,
        components: [
          lib('lodash', '4.17.20'),
          lib('minimist', '1.2.0'),
          { type: 'framework', name: 'express', version: '4.17.1' },
        ],
      };
      const stored = ok(
        await t.admin.request(
          'POST',
          `/api/v1/layer/${layer}/sbom?file_name=bom.json`,
          undefined,
          JSON.stringify(sbomIn),
        ),
      );

      // The layer's vulnerabilities come from a scanner report (a CycloneDX BOM with vulnerabilities, as Trivy writes).
      const vuln = (id: string, ref: string, severity: string, extra: object = {}) => ({
        id,
        ratings: [{ severity, score: 7.5, method: 'CVSSv31' }],
        affects: [{ ref }],
        ...extra,
      });
      const report = {
        bomFormat: 'CycloneDX',
        specVersion: '1.5',
        version: 1,
        components: [lib('lodash', '4.17.20'), lib('minimist', '1.2.0'), lib('left-pad', '1.0.0')],
        vulnerabilities: [
          vuln('CVE-2021-23337', 'lodash@4.17.20', 'high', { cwes: [94] }),
          vuln('CVE-2020-8203', 'lodash@4.17.20', 'high'),
          vuln('CVE-2021-44906', 'minimist@1.2.0', 'critical'),
          vuln('CVE-2020-0001', 'left-pad@1.0.0', 'medium'),
          vuln('CVE-2022-0002', 'minimist@1.2.0', 'low', {
            analysis: { state: 'not_affected', justification: 'code_not_reachable' },
          }),
          vuln('CVE-2022-0003', 'lodash@4.17.20', 'low'),
        ],
      };
      const check = await newCheck(layer);
      const scan = ok(
        await t.admin
          .withHeaders({ 'content-type': 'application/json' })
          .request('POST', `/api/v1/check/${check}/results`, undefined, JSON.stringify(report)),
      );
      await waitFor(
        'the SCA issues',
        async () => ok(await t.admin.get(`/api/v1/issues/count?filter[scan]=${scan.scan_result_id}`)).count === 6,
      );
      const issues = (await issuesOf(`filter[scan]=${scan.scan_result_id}`)).items as Json[];
      const byCve = (cve: string) => issues.find((i) => i.cve === cve);
      const setStatus = async (cve: string, status_id: number) =>
        ok(await t.admin.put(`/api/v1/issue/${byCve(cve).id}`, { status_id, comment: 'triaged' }));
      await setStatus('CVE-2021-23337', 2);
      await setStatus('CVE-2020-8203', 5);
      await setStatus('CVE-2021-44906', 6);
      await setStatus('CVE-2022-0003', 4);

      const sbomRes = await t.admin.download(sbomUrl('sbom'));
      expect(sbomRes.status).to.equal(200);
      expect(sbomRes.headers.get('content-type')).to.match(/^application\/vnd\.cyclonedx\+json/);
      const sbomText = sbomRes.body.toString('utf8');
      expect(await validator.validate(sbomText), 'SBOM schema errors').to.equal(null);
      const sbom = JSON.parse(sbomText);
      expect(sbom).to.include({ bomFormat: 'CycloneDX', specVersion: '1.6', serialNumber: `urn:uuid:${stored.id}` });
      expect(sbom.components.map((c: Json) => `${c.type} ${c.name}@${c.version}`).sort()).to.deep.equal([
        'framework express@4.17.1',
        'library lodash@4.17.20',
        'library minimist@1.2.0',
      ]);

      const vexRes = await t.admin.download(sbomUrl('vex'));
      expect(vexRes.status).to.equal(200);
      const vexText = vexRes.body.toString('utf8');
      expect(await validator.validate(vexText), 'VEX schema errors').to.equal(null);
      const vex = JSON.parse(vexText);
      const statement = (cve: string) => vex.vulnerabilities.find((v: Json) => v.id === cve);
      expect(vex.vulnerabilities).to.have.length(6);
      expect(statement('CVE-2021-23337').analysis).to.include({ state: 'exploitable' });
      expect(statement('CVE-2021-23337').cwes).to.deep.equal([94]);
      expect(statement('CVE-2020-8203').analysis).to.include({ state: 'false_positive' });
      expect(statement('CVE-2021-44906').analysis).to.include({ state: 'exploitable' });
      expect(statement('CVE-2021-44906').analysis.response).to.deep.equal(['will_not_fix']);
      expect(statement('CVE-2020-0001').analysis).to.include({ state: 'in_triage' });
      expect(statement('CVE-2022-0002').analysis).to.include({
        state: 'not_affected',
        justification: 'code_not_reachable',
      });
      expect(statement('CVE-2022-0003').analysis).to.include({ state: 'resolved' });
      expect(statement('CVE-2021-23337')['bom-ref']).to.equal(byCve('CVE-2021-23337').id);
      // In the SBOM, by BOM-Link to its component; not in it, a component of the VEX itself.
      const lodashRef = sbom.components.find((c: Json) => c.name === 'lodash')['bom-ref'];
      expect(statement('CVE-2021-23337').affects).to.deep.equal([
        { ref: `urn:cdx:${stored.id}/1#${encodeURIComponent(lodashRef)}` },
      ]);
      const leftPad = vex.components.find((c: Json) => c.name === 'left-pad');
      expect(leftPad).to.include({ version: '1.0.0' });
      expect(statement('CVE-2020-0001').affects).to.deep.equal([{ ref: leftPad['bom-ref'] }]);

      // The SBOM needs dependencies; the VEX also shows issues, so it needs issues too.
      const { token } = await userWithRole(t.admin, t.anon, { 'scanning.dependencies': ['r'] });
      const sbomReader = t.anon.as(token);
      expect((await sbomReader.get(sbomUrl('sbom'))).status).to.equal(200);
      const noIssues = await sbomReader.get(sbomUrl('vex'));
      expect(noIssues.status).to.equal(403);
      expect(noIssues.body.error.message).to.contain('issues.issues');

      const badKind = await t.admin.get(`/api/v1/layer/${layer}/sbom?kind=spdx`);
      expect(badKind.status).to.equal(400);
      expect(JSON.stringify(badKind.body)).to.contain('kind');
      expect((await t.admin.get('/api/v1/layer/00000000-0000-4000-8000-000000000000/sbom?kind=vex')).status).to.equal(
        404,
      );
    });

    it('exports issues as SARIF 2.1.0 that the official schema accepts: rules with CWE tags and severity, fingerprints, suppressions for decided statuses', async function () {
      this.timeout(60000);
      const check = await newCheck();
      const scanId = await upload(check, inFile('export.py', SHELL, EVAL, { ...EVAL, line: 30, code: 'eval(other)' }));
      const mine = (await issuesOf(`filter[scan]=${scanId}`)).items as Json[];
      const falsePositive = mine.find((i) => i.start_line === 30);
      ok(await t.admin.put(`/api/v1/issue/${falsePositive.id}`, { status_id: 5, comment: 'test code' }));

      const res = await t.admin.download(`/api/v1/issues/export?format=sarif&filter[scan]=${scanId}`);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^application\/sarif\+json/);
      const log = JSON.parse(res.body.toString('utf8'));
      // unicodeRegExp off: a pattern of the official schema (language) is only valid as a non-unicode RegExp.
      const ajv = new Ajv({ strict: false, allErrors: true, unicodeRegExp: false });
      addFormats(ajv);
      const validate = ajv.compile(sarifSchema);
      expect(validate(log), JSON.stringify(validate.errors)).to.equal(true);

      expect(log.version).to.equal('2.1.0');
      expect(log.runs).to.have.length(1);
      const [run] = log.runs;
      expect(run.tool.driver.name).to.equal(mine[0].tool_name);
      expect(run.results).to.have.length(3);
      const rule = run.tool.driver.rules.find((r: Json) => r.id === SHELL.rule);
      expect(rule.properties.tags).to.include('external/cwe/cwe-78');
      expect(Number(rule.properties['security-severity'])).to.be.greaterThan(0);
      for (const r of run.results) {
        expect(run.tool.driver.rules[r.ruleIndex].id).to.equal(r.ruleId);
        const issue = mine.find((i) => i.id === r.properties['bulwark/issue_id']);
        expect(r.partialFingerprints['bulwark/v1']).to.equal(issue.fingerprint);
        expect(r.locations[0].physicalLocation).to.deep.equal({
          artifactLocation: { uri: 'export.py' },
          region: { startLine: issue.start_line },
        });
      }
      const suppressed = run.results.filter((r: Json) => r.suppressions);
      expect(suppressed.map((r: Json) => r.properties['bulwark/issue_id'])).to.deep.equal([falsePositive.id]);
      expect(suppressed[0].suppressions).to.deep.equal([
        { kind: 'external', status: 'accepted', justification: 'False positive' },
      ]);

      // Nothing matched: still a valid log, with no run.
      const none = JSON.parse(
        (
          await t.admin.download(`/api/v1/issues/export?filter[scan]=00000000-0000-4000-8000-000000000000`)
        ).body.toString('utf8'),
      );
      expect(validate(none)).to.equal(true);
      expect(none.runs).to.deep.equal([]);
      expect((await t.admin.get('/api/v1/issues/export?format=xlsx')).status).to.equal(400);
      expect((await t.admin.get('/api/v1/issues/export?filter_inversion=true')).status).to.equal(400);
    });
  });

  describe('statuses, transitions, assignee, comments, history, deletion', () => {
    let check: string;
    let ids: string[];
    before(async function () {
      this.timeout(60000);
      check = await newCheck();
      await upload(check, inFile('status.py', SHELL, EVAL));
      ids = (await issuesOf(`filter[check]=${check}`)).items.map((i: Json) => i.id);
    });

    it('lists the statuses in English and Russian and the transitions', async () => {
      const statuses = ok(await t.admin.get('/api/v1/issues/statuses')).items;
      expect(statuses.map((s: Json) => [s.id, s.name_en])).to.deep.equal([
        [1, 'New'],
        [2, 'Confirmed'],
        [3, 'In progress'],
        [4, 'Fixed'],
        [5, 'False positive'],
        [6, 'Risk accepted'],
        [7, 'Suppressed'],
        [8, 'Reopen'],
      ]);
      expect(statuses[7].name_ru).to.equal('Переоткрыта');
      expect(
        ok(await t.admin.get('/api/v1/issues/statuses?filter[id]=8&filter_inversion=true')).items.map(
          (s: Json) => s.id,
        ),
      ).not.to.include(8);
      expect(ok(await t.admin.get('/api/v1/issues/statuses?lang=ru&filter[id]=1')).items[0].name).to.equal('Новая');
    });

    it('changes a status only along a transition (409 names the allowed targets), with comment and history', async () => {
      const refused = await t.admin.put(`/api/v1/issue/${ids[0]}`, { status_id: 8 });
      expect(refused.status).to.equal(409);
      expect(refused.body.error.message).to.contain('Confirmed (2)');
      const created = ok(
        await t.admin.post('/api/v1/issues/statuses/transition', { from_status_id: 1, to_status_id: 8 }),
      );
      expect(
        (await t.admin.post('/api/v1/issues/statuses/transition', { from_status_id: 1, to_status_id: 8 })).status,
      ).to.equal(409);
      ok(await t.admin.put(`/api/v1/issue/${ids[0]}`, { status_id: 8, comment: 'back to the queue' }));
      expect(
        ok(await t.admin.delete('/api/v1/issues/statuses/transitions', { ids: [created.id] })).results,
      ).to.deep.equal([{ id: created.id, status: 'deleted' }]);
      expect((await t.admin.put(`/api/v1/issue/${ids[1]}`, { status_id: 8 })).status).to.equal(409);

      const updated = ok(
        await t.admin.put(`/api/v1/issue/${ids[0]}`, { assignee: 'alice', status_id: 3, comment: 'on it' }),
      );
      expect(updated).to.include({ assignee: 'alice', status_id: 3 });
      expect((await issuesOf(`filter[check]=${check}&filter[assignee]=alice`)).total).to.equal(1);
      const history = ok(await t.admin.get(`/api/v1/issue/${ids[0]}/history?responsible_user_values=admin`)).items;
      expect(history.map((h: Json) => [h.field, h.old_value, h.new_value, h.comment])).to.deep.equal([
        ['assignee', null, 'alice', 'on it'],
        ['status', '8', '3', 'on it'],
        ['status', '1', '8', 'back to the queue'],
      ]);
      expect(ok(await t.admin.get(`/api/v1/issue/${ids[0]}/history?responsible_group_values=scan`)).total).to.equal(0);
    });

    it('changes statuses in bulk with a comment, keeps comments, deletes issues in bulk', async () => {
      const bulk = ok(
        await t.admin.put('/api/v1/issues/status', {
          ids: [...ids, '00000000-0000-0000-0000-000000000000'],
          status_id: 5,
          comment: 'not reachable',
        }),
      );
      expect(bulk.results.map((r: Json) => r.status)).to.deep.equal(['conflict', 'changed', 'not_found']);
      expect(bulk.results[0].message).to.contain('allowed targets');
      ok(await t.admin.post(`/api/v1/issue/${ids[1]}/comment`, { message: 'checked with the team' }));
      expect(ok(await t.admin.get(`/api/v1/issue/${ids[1]}/comments`)).items[0]).to.include({
        author: 'admin',
        message: 'checked with the team',
      });
      expect((await issuesOf(`filter[check]=${check}&filter[comment_message]=WITH THE`)).total).to.equal(1);
      const del = ok(await t.admin.delete('/api/v1/issues', { ids: [ids[1], 'x'] }));
      expect(del.results).to.deep.equal([
        { id: ids[1], status: 'deleted' },
        { id: 'x', status: 'not_found' },
      ]);
      expect((await t.admin.get(`/api/v1/issue/${ids[1]}`)).status).to.equal(404);
    });
  });

  describe('security rules', () => {
    it('suppresses matching issues now and at ingestion, in their history, and moves them to the expiry status when the rule expires', async function () {
      this.timeout(90000);
      const check = await newCheck();
      await upload(check, inFile('rule.py', SHELL));
      const cwe = 4000 + Math.floor(Math.random() * 1000);
      const expiresAt = new Date(Date.now() + 8000).toISOString();
      const rule = ok(
        await t.admin.post('/api/v1/security-rule', {
          name: `accept CWE-78 ${cwe}`,
          rule_params: { cwe: 'CWE-78', active_for_all: false, project_codes: [env.code] },
          suppressing_status: 6,
          expiry_status: 2,
          expires_at: expiresAt,
        }),
      );
      const [existing] = (await issuesOf(`filter[check]=${check}`)).items;
      expect(existing).to.include({ status_id: 6, security_rule_id: rule.id });
      const history = ok(await t.admin.get(`/api/v1/issue/${existing.id}/history`)).items;
      expect(history[0]).to.include({ actor_kind: 'security_rule', actor: rule.name, old_value: '1', new_value: '6' });

      const other = await newCheck();
      await upload(other, inFile('rule2.py', SHELL, EVAL));
      const fresh = (await issuesOf(`filter[check]=${other}`)).items;
      expect(fresh.find((i: Json) => i.rule_id === SHELL.rule)).to.include({ status_id: 6 });
      expect(fresh.find((i: Json) => i.rule_id === EVAL.rule)).to.include({ status_id: 1 });

      expect(
        ok(await t.admin.get(`/api/v1/security-rules?search[name]=${encodeURIComponent(rule.name)}`)).items.map(
          (r: Json) => r.id,
        ),
      ).to.deep.equal([rule.id]);
      expect(ok(await t.admin.get('/api/v1/security-rules/filter')).suppressing_status).to.include(6);
      expect(
        (
          await t.admin.post('/api/v1/security-rule', {
            name: 'x',
            rule_params: {},
            suppressing_status: 7,
            expiry_status: 1,
          })
        ).status,
      ).to.equal(400);
      expect(
        (
          await t.admin.post('/api/v1/security-rule', {
            name: 'x',
            rule_params: { cve: 'CVE-1' },
            suppressing_status: 99,
            expiry_status: 1,
          })
        ).body.error.details[0].field,
      ).to.equal('suppressing_status');

      await waitFor(
        'the rule to expire',
        async () => ok(await t.admin.get(`/api/v1/issue/${existing.id}`)).status_id === 2,
        40000,
      );
      const after = ok(await t.admin.get(`/api/v1/issue/${existing.id}/history`)).items[0];
      expect(after).to.include({ actor_kind: 'security_rule', actor: rule.name, old_value: '6', new_value: '2' });
      expect(ok(await t.admin.get(`/api/v1/security-rule/${rule.id}`)).expired).to.equal(true);
      expect(ok(await t.admin.delete('/api/v1/security-rules', { ids: [rule.id] })).results[0].status).to.equal(
        'deleted',
      );
    });
  });

  describe('quality gates', () => {
    it('evaluates the layer\u2019s gates after each scan: the verdict with measured conditions is on the scan result; lock fails and locks, a passing scan unlocks', async function () {
      this.timeout(90000);
      const layer = ok(
        await t.admin.post('/api/v1/layer', {
          name: 'gated',
          description: 'gates',
          project_code: env.code,
          layer_type_id: 1,
          is_template: false,
        }),
      );
      const check = await newCheck(layer.id);
      const gate = ok(await t.admin.post('/api/v1/quality-gate', { name: `no highs ${layer.id}` }));
      const cond = ok(
        await t.admin.post('/api/v1/condition', {
          quality_gate_id: gate.id,
          condition_type: 'severity',
          condition_value: 'high',
          operator: 'not_greater_than',
          value: '0',
        }),
      );
      const info = ok(await t.admin.post('/api/v1/quality-gate', { name: `few mediums ${layer.id}` }));
      ok(
        await t.admin.post('/api/v1/condition', {
          quality_gate_id: info.id,
          condition_type: 'cwe',
          condition_value: 'CWE-95',
          operator: 'less_than',
          value: 1,
        }),
      );
      expect(
        (
          await t.admin.post('/api/v1/condition', {
            quality_gate_id: gate.id,
            condition_type: 'severity',
            condition_value: 'high',
            operator: 'about',
            value: '0',
          })
        ).status,
      ).to.equal(400);
      const linked = ok(
        await t.admin.post('/api/v1/quality-gate/link-layer', {
          layer_id: layer.id,
          quality_gates: [{ quality_gate_id: gate.id, action: 'lock' }],
        }),
      );
      expect(linked.quality_gates).to.deep.equal([{ quality_gate_id: gate.id, name: gate.name, action: 'lock' }]);
      ok(
        await t.admin.post('/api/v1/quality-gate/link-pipe', {
          layer_id: layer.id,
          quality_gate_id: info.id,
          action: 'inform',
        }),
      );

      const failing = await upload(check, inFile('gate.py', SHELL, EVAL));
      let result: Json;
      await waitFor(
        'the verdict',
        async () => (result = ok(await t.admin.get(`/api/v1/scan-result/${failing}`))).quality_gate !== null,
      );
      expect(result.quality_gate.status).to.equal('failed');
      expect(result.quality_gate.locked).to.equal(true);
      const high = result.quality_gate.conditions.find((c: Json) => c.condition_id === cond.id);
      expect(high).to.include({
        condition_type: 'severity',
        operator: 'not_greater_than',
        value: 0,
        measured: 1,
        passed: false,
        action: 'lock',
      });
      expect(result.quality_gate.conditions.find((c: Json) => c.quality_gate_id === info.id)).to.include({
        measured: 1,
        passed: false,
        action: 'inform',
      });
      expect(ok(await t.admin.get(`/api/v1/quality-gate/layer/${layer.id}`))).to.include({
        locked: true,
        last_scan_result_id: failing,
      });

      // The high issue is accepted as a risk: it no longer counts, and the next scan passes.
      const [highIssue] = (await issuesOf(`filter[layer]=${layer.id}&filter[severity]=high`)).items;
      ok(await t.admin.put(`/api/v1/issue/${highIssue.id}`, { status_id: 6, comment: 'accepted' }));
      const passing = await upload(check, inFile('gate.py', SHELL, EVAL));
      await waitFor(
        'the second verdict',
        async () => (result = ok(await t.admin.get(`/api/v1/scan-result/${passing}`))).quality_gate !== null,
      );
      expect(result.quality_gate).to.include({ status: 'passed', locked: false });
      expect(ok(await t.admin.get(`/api/v1/quality-gate/layer/${layer.id}`)).locked).to.equal(false);

      const listed = ok(
        await t.admin.get(
          `/api/v1/quality-gates?search[name]=${encodeURIComponent(gate.name)}&search[project_name]=${env.code}`,
        ),
      );
      expect(listed.items.map((g: Json) => g.id)).to.deep.equal([gate.id]);
      expect(listed.items[0].conditions).to.have.length(1);
      expect(
        ok(await t.admin.delete('/api/v1/quality-gates', { ids: [gate.id, info.id] })).results.map(
          (r: Json) => r.status,
        ),
      ).to.deep.equal(['deleted', 'deleted']);
    });

    it('applies the gates of a policy to the projects carrying its tags', async function () {
      this.timeout(60000);
      const gate = ok(await t.admin.post('/api/v1/quality-gate', { name: 'policy gate' }));
      ok(
        await t.admin.post('/api/v1/condition', {
          quality_gate_id: gate.id,
          condition_type: 'total',
          operator: 'not_greater_than',
          value: 0,
        }),
      );
      const policy = ok(
        await t.admin.post('/api/v1/policy', {
          name: `strict ${env.code}`,
          project_tags: ['test'],
          quality_gates: [{ quality_gate_id: gate.id, action: 'lock' }],
        }),
      );
      const check = await newCheck();
      const scan = await upload(check, [{ ...SHELL, path: 'policy.py' }]);
      let result: Json;
      await waitFor(
        'the policy verdict',
        async () => (result = ok(await t.admin.get(`/api/v1/scan-result/${scan}`))).quality_gate !== null,
      );
      expect(result.quality_gate.status).to.equal('failed');
      expect(result.quality_gate.gates.map((g: Json) => g.quality_gate_id)).to.include(gate.id);
      expect(ok(await t.admin.get(`/api/v1/policies?search[name]=${encodeURIComponent(policy.name)}`)).total).to.equal(
        1,
      );
      expect(ok(await t.admin.delete('/api/v1/policies', { ids: [policy.id] })).results[0].status).to.equal('deleted');
      ok(await t.admin.delete('/api/v1/quality-gates', { ids: [gate.id] }));
    });

    it('refuses a gate listed twice in one set of links with 400 naming the repeat (it was a 500)', async () => {
      const gate = ok(await t.admin.post('/api/v1/quality-gate', { name: `twice ${env.layerId}` }));
      const twice = [
        { quality_gate_id: gate.id, action: 'lock' },
        { quality_gate_id: gate.id, action: 'inform' },
      ];
      const linked = await t.admin.post('/api/v1/quality-gate/link-layer', {
        layer_id: env.layerId,
        quality_gates: twice,
      });
      expect(linked.status).to.equal(400);
      expect(linked.body.error.details).to.deep.equal([
        { field: 'quality_gates[1].quality_gate_id', problem: 'repeats a quality gate listed before' },
      ]);
      const policy = await t.admin.post('/api/v1/policy', {
        name: `twice ${env.code}`,
        project_tags: ['test'],
        quality_gates: twice,
      });
      expect(policy.status).to.equal(400);
      expect(policy.body.error.details[0].field).to.equal('quality_gates[1].quality_gate_id');
      expect(ok(await t.admin.get(`/api/v1/quality-gate/layer/${env.layerId}`)).quality_gates).to.deep.equal([]);
      ok(await t.admin.delete('/api/v1/quality-gates', { ids: [gate.id] }));
    });
  });

  describe('deduplication rules and similar issues', () => {
    it('configures which fields identify an issue per tool, and links similar issues as duplicates', async function () {
      this.timeout(60000);
      const rule = ok(
        await t.admin.post('/api/v1/deduplicate-rule', {
          name: `by rule and file ${Date.now()}`,
          tool_name: 'Semgrep',
          fields: ['rule_id', 'file_path'],
          scope: 'layer',
        }),
      );
      expect(
        (await t.admin.post('/api/v1/deduplicate-rule', { name: 'again', tool_name: 'semgrep', fields: ['rule_id'] }))
          .status,
      ).to.equal(409);
      const check = await newCheck();
      // Two different snippets of one rule in one file are one issue under this rule.
      const scan = ok(
        await t.admin.withHeaders({ 'content-type': 'application/json' }).request(
          'POST',
          `/api/v1/check/${check}/results`,
          undefined,
          semgrepReport([
            { ...SHELL, path: 'dedup.py' },
            { ...SHELL, path: 'dedup.py', line: 30, code: 'os.system(cmd)' },
          ]),
        ),
      );
      await waitFor(
        'the deduplicated issue',
        async () => ok(await t.admin.get(`/api/v1/issues/count?filter[scan]=${scan.scan_result_id}`)).count === 1,
      );
      const [issue] = (await issuesOf(`filter[scan]=${scan.scan_result_id}`)).items;
      expect(issue.occurrences).to.equal(2);
      expect(
        ok(await t.admin.get(`/api/v1/deduplicate-rules?search[name]=${encodeURIComponent(rule.name)}`)).total,
      ).to.equal(1);
      ok(
        await t.admin.put(`/api/v1/deduplicate-rule/${rule.id}`, {
          name: rule.name,
          tool_name: 'Semgrep',
          fields: ['fingerprint'],
        }),
      );
      expect(ok(await t.admin.delete('/api/v1/deduplicate-rules', { ids: [rule.id] })).results[0].status).to.equal(
        'deleted',
      );

      const twin = await newCheck();
      await upload(twin, [{ ...SHELL, rule: 'another.tool.rule', path: 'dedup.py', line: 4 }]);
      const [twinIssue] = (await issuesOf(`filter[check]=${twin}`)).items;
      const similar = ok(await t.admin.get(`/api/v1/issue/${issue.id}/similar`)).items.map((i: Json) => i.id);
      expect(similar).to.include(twinIssue.id);
      expect(
        ok(await t.admin.post(`/api/v1/issue/${issue.id}/duplicates`, { ids: [twinIssue.id] })).results,
      ).to.deep.equal([{ id: twinIssue.id, status: 'changed' }]);
      expect((await issuesOf(`filter[check]=${twin}&filter[exclude_duplicates]=true`)).total).to.equal(0);
      expect((await issuesOf(`filter[duplicate_of]=${issue.id}`)).items.map((i: Json) => i.id)).to.deep.equal([
        twinIssue.id,
      ]);
    });
  });

  // Only the scaled mode has a process to kill apart from the test itself: the one holding the issues service.
  if (t.mode === 'scaled') {
    describe('crash during ingestion', () => {
      const N = 100_000;
      const big = largeReport(N);
      const issuesDb = () =>
        knex({
          client: 'pg',
          connection: (t.sys as unknown as { env: Record<string, string> }).env.ISSUES_DATABASE_URL,
          pool: { min: 0, max: 2 },
        });
      // A session of its own: the suite's admin token shares one rate limit with every test before this
      // one, and how many of their requests fall in the same minute depends on how fast this one runs.
      let admin: Api;
      before(async () => {
        admin = t.admin.as(await t.admin.login('admin', ADMIN_PASSWORD));
      });
      const bigUpload = async (checkId: string) =>
        ok(
          await admin
            .withHeaders({ 'content-type': 'application/json' })
            .request('POST', `/api/v1/check/${checkId}/results?file_name=big.json`, undefined, big),
        ).scan_result_id as string;
      // Polled once a second (the gateway rate-limits a token; a 429 is one more wait).
      const ingested = async (scanId: string) => {
        const deadline = Date.now() + 300000;
        for (;;) {
          const res = await admin.get(`/api/v1/issues/count?filter[scan]=${scanId}`);
          if (res.status === 200 && res.body.count === N) return;
          if (res.status !== 200 && res.status !== 429)
            throw new Error(`count answered ${res.status}: ${JSON.stringify(res.body)}`);
          if (Date.now() > deadline) throw new Error(`scan ${scanId} not ingested after the crash`);
          await new Promise((r) => setTimeout(r, 1000));
        }
      };

      it('SIGKILL in the middle of ingesting 100,000 findings, then a restart, ends with exactly the issues of an uninterrupted run', async function () {
        this.timeout(900000);
        const db = issuesDb();
        try {
          const crashed = await scanSetup({ ...t, admin }, git, 'app', [MANUAL_TOOL_TYPE]);
          const plain = await scanSetup({ ...t, admin }, git, 'app', [MANUAL_TOOL_TYPE]);
          const checkOf = async (e: typeof crashed) => await manualCheck(admin, e);

          const scanId = await bigUpload(await checkOf(crashed));
          // The ingestion is under way once a transaction of the issues database holds written rows.
          await waitFor(
            'the ingestion to write',
            async () =>
              (
                await db.raw(
                  "select count(*)::int as n from pg_stat_activity where datname = current_database() and backend_xid is not null and xact_start < now() - interval '1 second' and pid <> pg_backend_pid()",
                )
              ).rows[0].n > 0,
            120000,
          );
          expect((await db('issues').where('project_code', crashed.code).count({ n: '*' }))[0].n).to.equal('0');
          await t.sys.crashAndRestart!('services');
          await ingested(scanId);

          await ingested(await bigUpload(await checkOf(plain)));
          const [a, b] = [await issueSnapshot(db, crashed.code), await issueSnapshot(db, plain.code)];
          expect(a).to.have.length(N);
          expect(a).to.deep.equal(b);
          expect((await db('ingested_scans').where('scan_id', scanId).count({ n: '*' }))[0].n).to.equal('1');
          // Each of the two imports analyzed the issues it wrote before committing (autovacuum's analyses count apart).
          const { rows } = await db.raw(
            "select analyze_count from pg_stat_user_tables where relname = 'issue_records' and schemaname = current_schema()",
          );
          expect(Number(rows[0].analyze_count)).to.be.at.least(2);
        } finally {
          await db.destroy();
        }
      });
    });
  }
}
