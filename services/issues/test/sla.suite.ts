import { expect } from 'chai';
import type { Api, ApiResponse, GitServer, Json, SystemUnderTest } from '@bulwark/testkit';
import { expectStatus, fieldProblem, manualCheck, uniqueSuffix, uploadAndIngest, userWithRole } from '@bulwark/testkit';
import { startReceiver } from '../../notifications/test/notifications.suite';
import { appRepository, uploadProject, type UploadProject } from './uploaded-issues';

const DAY = 86400000;

/** A generic findings report: one finding of each severity given. */
const report = (run: string, severities: string[]) =>
  JSON.stringify({
    findings: severities.map((severity) => ({
      title: `${severity} finding ${run}`,
      description: 'A finding',
      severity,
      file_path: `src/${severity}.py`,
      line: 1,
    })),
  });

const days = (over: Partial<Record<'critical' | 'high' | 'medium' | 'low' | 'info', number | null>> = {}) => ({
  critical: null,
  high: null,
  medium: null,
  low: null,
  info: null,
  ...over,
});

/**
 * SLAs (issue #30, point 3): SLA policies under project scope, due dates and states on the issues,
 * their filter and sort, the pause of Risk accepted, breaches announced once to a webhook, and the
 * gate condition sla_breached. Time moving on is the SLA clock test's (sla-clock.test.ts), which
 * injects it; here the days are 0 (due at the first detection) or far ahead.
 */
export function slaSuite(t: SystemUnderTest): void {
  let git: GitServer;
  let P: UploadProject;
  let Q: UploadProject;
  let check: string;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const run = uniqueSuffix();
  const ok = (res: ApiResponse) => expectStatus(res, 200);
  const policy = (over: Record<string, unknown> = {}) => ({
    name: `sla ${uniqueSuffix()}`,
    project_tags: [],
    project_codes: [P.code],
    days: days({ critical: 0, high: 30 }),
    known_exploited_days: null,
    ...over,
  });
  const issues = async (query = '') =>
    ok(await t.admin.get(`/api/v1/issues?limit=100&filter[project_code]=${P.code}${query}`)).items as Json[];
  const bySeverity = async () => new Map((await issues()).map((i) => [i.severity as string, i]));
  const waitFor = async <T>(what: string, probe: () => T | undefined): Promise<T> => {
    const deadline = Date.now() + 30000;
    for (;;) {
      const found = probe();
      if (found !== undefined) return found;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const breachesOf = (issueId: string) =>
    receiver.received.filter((r) => r.body.type === 'issue.sla_breached' && r.body.data.issue_id === issueId);
  let policyId: string;

  before(async function () {
    this.timeout(120000);
    git = await appRepository();
    P = await uploadProject(t, git);
    Q = await uploadProject(t, git);
    receiver = await startReceiver();
    // Subscribed before any policy exists, so every breach of P's issues reaches it.
    ok(
      await t.admin.post('/api/v1/notifier', {
        name: `sla hook ${run}`,
        settings: { url: receiver.url },
        events: ['issue.sla_breached'],
        project_codes: [P.code],
      }),
    );
    check = await manualCheck(t.admin, P);
    await uploadAndIngest(t.admin, check, report(run, ['critical', 'high', 'low']), 3);
  });
  after(async () => {
    await receiver?.close();
    await git?.close();
  });

  it('creates, reads, lists, changes and deletes SLA policies, refusing bad bodies naming the field', async () => {
    const created = ok(
      await t.admin.post('/api/v1/sla-policy', policy({ name: `crud ${run}`, project_codes: [Q.code] })),
    );
    expect(created).to.include({ name: `crud ${run}`, known_exploited_days: null });
    expect(created.days).to.deep.equal(days({ critical: 0, high: 30 }));
    expect(created.project_codes).to.deep.equal([Q.code]);
    expect(ok(await t.admin.get(`/api/v1/sla-policy/${created.id}`))).to.deep.equal(created);
    const listed = ok(await t.admin.get(`/api/v1/sla-policies?search[name]=crud ${run}`));
    expect(listed.items.map((p: Json) => p.id)).to.deep.equal([created.id]);
    const changed = ok(
      await t.admin.put(
        `/api/v1/sla-policy/${created.id}`,
        policy({ name: `crud2 ${run}`, project_codes: [Q.code], known_exploited_days: 5 }),
      ),
    );
    expect(changed).to.include({ name: `crud2 ${run}`, known_exploited_days: 5 });
    expect(
      fieldProblem(await t.admin.post('/api/v1/sla-policy', policy({ days: days({ high: -1 }) })), 'days.high'),
    ).to.be.a('string');
    const { info: _dropped, ...noInfo } = days();
    fieldProblem(await t.admin.post('/api/v1/sla-policy', policy({ days: noInfo })), 'days.info');
    fieldProblem(await t.admin.post('/api/v1/sla-policy', policy({ name: '' })), 'name');
    fieldProblem(await t.admin.post('/api/v1/sla-policy', policy({ project_codes: 'all' })), 'project_codes');
    fieldProblem(
      await t.admin.post('/api/v1/sla-policy', policy({ known_exploited_days: 1.5 })),
      'known_exploited_days',
    );
    fieldProblem(
      await t.admin.put(`/api/v1/sla-policy/${created.id}`, policy({ days: days({ low: 100000 }) })),
      'days.low',
    );
    expect((await t.admin.get('/api/v1/sla-policy/00000000-0000-4000-8000-000000000000')).status).to.equal(404);
    expect(
      ok(await t.admin.delete('/api/v1/sla-policies', { ids: [created.id, '00000000-0000-4000-8000-000000000000'] }))
        .results,
    ).to.deep.equal([
      { id: created.id, status: 'deleted' },
      { id: '00000000-0000-4000-8000-000000000000', status: 'not_found' },
    ]);
  });

  it('gives open issues sla_due_at and sla_state, filtered and sorted by them, the count agreeing', async () => {
    policyId = ok(await t.admin.post('/api/v1/sla-policy', policy({ name: `p ${run}` }))).id;
    const i = await bySeverity();
    expect(i.get('critical')).to.include({ sla_state: 'breached', sla_due_at: i.get('critical')?.first_detected_at });
    expect(i.get('high')?.sla_state).to.equal('on_track');
    expect(new Date(i.get('high')?.sla_due_at).getTime()).to.equal(
      new Date(i.get('high')?.first_detected_at).getTime() + 30 * DAY,
    );
    expect(i.get('low')).to.include({ sla_state: null, sla_due_at: null });
    const ids = async (q: string) => (await issues(q)).map((x) => x.id);
    expect(await ids('&filter[sla_state]=breached')).to.deep.equal([i.get('critical')?.id]);
    expect(await ids('&filter[sla_state]=on_track&filter[sla_state]=due_soon')).to.deep.equal([i.get('high')?.id]);
    expect(await ids('&sort=sla_due_at')).to.deep.equal(['critical', 'high', 'low'].map((s) => i.get(s)?.id));
    expect(await ids('&sort=-sla_due_at')).to.deep.equal(['low', 'high', 'critical'].map((s) => i.get(s)?.id));
    const first = ok(await t.admin.get(`/api/v1/issues?limit=1&filter[project_code]=${P.code}&sort=sla_due_at`));
    const next = ok(
      await t.admin.get(
        `/api/v1/issues?limit=2&filter[project_code]=${P.code}&sort=sla_due_at&cursor=${first.next_cursor}`,
      ),
    );
    expect(next.items.map((x: Json) => x.id)).to.deep.equal(['high', 'low'].map((s) => i.get(s)?.id));
    expect(
      ok(await t.admin.get(`/api/v1/issues/count?filter[project_code]=${P.code}&filter[sla_state]=breached`)).count,
    ).to.equal(1);
    fieldProblem(await t.admin.get('/api/v1/issues?filter[sla_state]=late'), 'filter[sla_state]');
  });

  it('announces a breach once to a subscribed webhook; a pause stops the clock and adds its time', async function () {
    this.timeout(60000);
    const i = await bySeverity();
    const critical: Json = i.get('critical');
    const event = await waitFor('issue.sla_breached', () => breachesOf(critical.id)[0]);
    expect(event.body.data).to.include({ project_code: P.code, severity: 'critical', sla_due_at: critical.sla_due_at });
    ok(await t.admin.put(`/api/v1/issue/${critical.id}`, { status_id: 6, comment: 'accepted for now' }));
    expect(ok(await t.admin.get(`/api/v1/issue/${critical.id}`))).to.include({ sla_due_at: null, sla_state: null });
    ok(await t.admin.put(`/api/v1/issue/${critical.id}`, { status_id: 8, comment: 'back' }));
    const resumed = ok(await t.admin.get(`/api/v1/issue/${critical.id}`));
    expect(new Date(resumed.sla_due_at).getTime()).to.be.above(new Date(critical.sla_due_at).getTime());
    expect(resumed.sla_state).to.equal('breached');
    // A second breach (the high issue, its days cut to 0) arrives after any repeat of the first would have.
    ok(
      await t.admin.put(
        `/api/v1/sla-policy/${policyId}`,
        policy({ name: `p ${run}`, days: days({ critical: 0, high: 0 }) }),
      ),
    );
    await waitFor('the second breach', () => breachesOf(i.get('high')?.id)[0]);
    expect(breachesOf(critical.id)).to.have.length(1);
  });

  it('counts breached issues in the gate condition sla_breached', async function () {
    this.timeout(60000);
    const gate = ok(await t.admin.post('/api/v1/quality-gate', { name: `sla ${run}` })).id;
    ok(
      await t.admin.post('/api/v1/condition', {
        quality_gate_id: gate,
        condition_type: 'sla_breached',
        condition_value: '',
        operator: 'not_greater_than',
        value: 0,
      }),
    );
    ok(
      await t.admin.post('/api/v1/quality-gate/link-layer', {
        layer_id: P.layerId,
        quality_gates: [{ quality_gate_id: gate, action: 'inform' }],
      }),
    );
    await uploadAndIngest(t.admin, check, report(run, ['critical', 'high', 'low']), 3);
    const state = ok(await t.admin.get(`/api/v1/quality-gate/layer/${P.layerId}`));
    const verdict = (state.last_verdict?.conditions ?? []).find((c: Json) => c.condition_type === 'sla_breached');
    expect(verdict, JSON.stringify(state)).to.include({ measured: 2, passed: false });
  });

  it('lets a caller limited to a project manage only policies of its projects, and shows it only its own codes', async () => {
    const scoped = t.anon.as(
      (await userWithRole(t.admin, t.anon, { 'issues.sla_policies': ['r', 'w', 'd'] }, [P.code])).token,
    );
    const own = ok(await scoped.post('/api/v1/sla-policy', policy({ name: `own ${run}` })));
    expect(own.project_codes).to.deep.equal([P.code]);
    const refused = async (api: Api, body: Json) =>
      expect((await api.post('/api/v1/sla-policy', body)).status).to.equal(403);
    await refused(scoped, policy({ project_codes: [Q.code] }));
    await refused(scoped, policy({ project_codes: [], project_tags: [`t-${run}`] }));
    await refused(scoped, policy({ project_codes: [] }));
    const both = ok(
      await t.admin.post('/api/v1/sla-policy', policy({ name: `both ${run}`, project_codes: [P.code, Q.code] })),
    );
    const onlyQ = ok(await t.admin.post('/api/v1/sla-policy', policy({ name: `q ${run}`, project_codes: [Q.code] })));
    const seen = ok(await scoped.get(`/api/v1/sla-policies?limit=1000&search[name]=${run}`)).items as Json[];
    expect(seen.map((p) => p.id))
      .to.include.members([own.id, both.id])
      .and.not.include(onlyQ.id);
    expect(seen.find((p) => p.id === both.id)?.project_codes).to.deep.equal([P.code]);
    expect((await scoped.get(`/api/v1/sla-policy/${onlyQ.id}`)).status).to.equal(404);
    expect((await scoped.put(`/api/v1/sla-policy/${both.id}`, policy())).status).to.equal(403);
    const results = ok(await scoped.delete('/api/v1/sla-policies', { ids: [both.id, onlyQ.id, own.id] })).results;
    expect(results.map((r: Json) => r.status)).to.deep.equal(['forbidden', 'not_found', 'deleted']);
    ok(await t.admin.delete('/api/v1/sla-policies', { ids: [both.id, onlyQ.id] }));
  });
}
