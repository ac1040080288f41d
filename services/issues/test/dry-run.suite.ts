import { expect } from 'chai';
import {
  gateOnHighs,
  type GitServer,
  type Json,
  manualCheck,
  SystemUnderTest,
  uploadAndIngest,
  userWithRole,
} from '@bulwark/testkit';
import { startReceiver } from '../../notifications/test/notifications.suite';
import { appRepository, uploadProject, type UploadProject, vulnerabilityReport } from './uploaded-issues';

/**
 * POST /check/{id}/results?dry_run=true answers what the upload would do and writes nothing; the real
 * upload that follows does what it said, and the history says why of every status it changed.
 */
export function dryRunSuite(t: SystemUnderTest): void {
  let git: GitServer;
  let env: UploadProject;

  const ok = (res: { status: number; body: Json }) => {
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body;
  };
  const post = (checkId: string, report: string, query = 'dry_run=true', api = t.admin) =>
    api
      .withHeaders({ 'content-type': 'application/json' })
      .request('POST', `/api/v1/check/${checkId}/results?${query}`, undefined, report);
  const cve = () => `CVE-2099-${Math.floor(100000 + Math.random() * 899999)}`;
  const issueOf = async (checkId: string, id: string): Promise<Json> => {
    const items: Json[] = ok(await t.admin.get(`/api/v1/issues?limit=100&filter[check]=${checkId}`)).items;
    return items.find((i) => (i.vulnerability_ids as string[]).includes(id));
  };
  const lastReason = async (issueId: string) =>
    (ok(await t.admin.get(`/api/v1/issue/${issueId}/history`)).items as Json[]).find((h) => h.field === 'status')
      ?.reason;
  /** What a dry run must leave as it was. */
  const state = async (checkId: string, issueIds: string[]) => ({
    issues: ok(await t.admin.get(`/api/v1/issues/count?filter[project_code]=${env.code}`)).count,
    scans: ok(await t.admin.get(`/api/v1/scan-results?filter[check_id]=${checkId}`)).total,
    gate: ok(await t.admin.get(`/api/v1/quality-gate/layer/${env.layerId}`)),
    issuesNow: await Promise.all(issueIds.map(async (id) => ok(await t.admin.get(`/api/v1/issue/${id}`)))),
    history: await Promise.all(
      issueIds.map(async (id) => ok(await t.admin.get(`/api/v1/issue/${id}/history`)).total as number),
    ),
  });

  before(async function () {
    this.timeout(60000);
    git = await appRepository();
    env = await uploadProject(t, git);
  });
  after(async () => {
    await git?.close();
  });

  it('answers what an upload would do, writes nothing, and the upload then does it with the reasons in the history', async function () {
    this.timeout(180000);
    const receiver = await startReceiver();
    try {
      ok(
        await t.admin.post('/api/v1/notifier', {
          name: `dry run ${env.code}`,
          settings: { url: receiver.url, rate_limit: 100 },
          events: ['scan.completed', 'issues.ingested', 'quality_gate.evaluated'],
          project_codes: [env.code],
        }),
      );
      await gateOnHighs(t.admin, env.layerId, `dry run ${env.code}`, 'lock');
      const check = await manualCheck(t.admin, env);
      const [kept, absent, refound, twin, fresh, ruled] = [cve(), cve(), cve(), cve(), cve(), cve()];
      const first = await uploadAndIngest(t.admin, check, vulnerabilityReport([kept, absent, refound, twin]), 4);
      expect(first).to.have.length(4);
      // `refound` is fixed by a scan without it, `twin` becomes a duplicate of `kept`, `ruled` a rule's.
      await uploadAndIngest(t.admin, check, vulnerabilityReport([kept, absent, twin]), 3);
      const refoundIssue = await issueOf(check, refound);
      expect(refoundIssue.status_id).to.equal(4);
      const keptIssue = await issueOf(check, kept);
      const twinIssue = await issueOf(check, twin);
      const absentIssue = await issueOf(check, absent);
      ok(await t.admin.post(`/api/v1/issue/${keptIssue.id}/duplicates`, { ids: [twinIssue.id] }));
      const rule = ok(
        await t.admin.post('/api/v1/security-rule', {
          name: `suppress ${ruled}`,
          rule_params: { cve: ruled, active_for_all: false, project_codes: [env.code] },
          suppressing_status: 7,
          expiry_status: 1,
        }),
      );

      const report = vulnerabilityReport([kept, refound, twin, fresh, ruled]);
      const ids = [keptIssue, absentIssue, refoundIssue, twinIssue].map((i) => i.id as string);
      const before = await state(check, ids);
      const dry = ok(await post(check, report));
      expect(await state(check, ids)).to.deep.equal(before);

      expect(dry.dry_run).to.equal(true);
      expect(dry.findings).to.equal(5);
      expect(dry.counts).to.deep.equal({ new: 1, unchanged: 1, fixed: 1, reopened: 1, suppressed: 1, duplicate: 1 });
      const example = (kind: string) => {
        expect(dry.examples[kind], kind).to.have.length(1);
        return dry.examples[kind][0];
      };
      const match = { dedup_rule: null, fields: ['tool_fingerprint'], scope: 'project' };
      expect(example('new')).to.deep.include({ issue_id: null, severity: 'high', reason: { kind: 'new', match } });
      expect(example('unchanged')).to.deep.include({ issue_id: keptIssue.id, reason: { kind: 'unchanged', match } });
      expect(example('duplicate')).to.deep.include({
        issue_id: twinIssue.id,
        reason: { kind: 'duplicate', duplicate_of: keptIssue.id, match },
      });
      expect(example('reopened')).to.deep.include({ issue_id: refoundIssue.id });
      expect(example('reopened').reason).to.deep.include({ kind: 'reopened', check_id: check, match });
      expect(example('fixed')).to.deep.include({ issue_id: absentIssue.id });
      expect(example('fixed').reason).to.deep.include({ kind: 'fixed', check_id: check });
      expect(example('suppressed').reason).to.deep.include({
        kind: 'security_rule',
        rule_id: rule.id,
        rule_name: rule.name,
      });
      expect(dry.quality_gate).to.deep.include({ status: 'failed', locked: true });
      expect(dry.quality_gate.conditions[0]).to.deep.include({ measured: 3, passed: false });

      const scanId = ok(await post(check, report, '')).scan_result_id as string;
      const verdict = await (async () => {
        for (const deadline = Date.now() + 30000; Date.now() < deadline;) {
          const scan = ok(await t.admin.get(`/api/v1/scan-result/${scanId}`));
          if (scan.quality_gate) return scan.quality_gate;
          await new Promise((r) => setTimeout(r, 200));
        }
        throw new Error(`no verdict on scan ${scanId}`);
      })();
      const withoutIds = (v: Json) => ({
        status: v.status,
        locked: v.locked,
        conditions: v.conditions,
        gates: v.gates,
      });
      expect(withoutIds(dry.quality_gate)).to.deep.equal(withoutIds(verdict));
      expect(ok(await t.admin.get(`/api/v1/issues/count?filter[project_code]=${env.code}`)).count).to.equal(
        before.issues + dry.counts.new + dry.counts.suppressed,
      );

      expect(await lastReason(refoundIssue.id)).to.deep.equal({
        kind: 'reopened',
        scan_id: scanId,
        check_id: check,
        match,
      });
      expect(await lastReason(absentIssue.id)).to.deep.equal({ kind: 'fixed', scan_id: scanId, check_id: check });
      const ruledIssue = await issueOf(check, ruled);
      expect(await lastReason(ruledIssue.id)).to.deep.equal({
        kind: 'security_rule',
        scan_id: scanId,
        rule_id: rule.id,
        rule_name: rule.name,
      });
      const refoundHistory = ok(await t.admin.get(`/api/v1/issue/${refoundIssue.id}/history`)).items as Json[];
      expect(refoundHistory.map((h) => h.reason?.kind)).to.include('fixed');

      // Every event the receiver got names a real scan: the dry run published none.
      const scans = new Set(
        (ok(await t.admin.get(`/api/v1/scan-results?filter[check_id]=${check}`)).items as Json[]).map((s) => s.id),
      );
      expect(scans.size).to.equal(3);
      const deadline = Date.now() + 30000;
      while (!receiver.received.some((r) => r.body.type === 'issues.ingested' && r.body.data.scan_result_id === scanId))
        if (Date.now() > deadline) throw new Error('the upload’s issues.ingested never arrived');
        else await new Promise((r) => setTimeout(r, 200));
      for (const r of receiver.received) expect(scans, r.body.type).to.include(r.body.data.scan_result_id);
    } finally {
      await receiver.close();
    }
  });

  it('refuses a bad dry_run value naming it, and a caller without the upload permission', async () => {
    const check = await manualCheck(t.admin, env);
    const report = vulnerabilityReport([cve()]);
    const bad = await post(check, report, 'dry_run=maybe');
    expect(bad.status).to.equal(400);
    expect(bad.body.error.details.map((d: Json) => d.field)).to.include('dry_run');
    const reader = await userWithRole(t.admin, t.anon, { 'scanning.scan_results': ['r'] }, [env.code]);
    expect((await post(check, report, 'dry_run=true', t.anon.as(reader.token))).status).to.equal(403);
    const empty = await post(check, '', 'dry_run=true');
    expect(empty.status).to.equal(400);
    expect(ok(await t.admin.get(`/api/v1/scan-results?filter[check_id]=${check}`)).total).to.equal(0);
  });
}
