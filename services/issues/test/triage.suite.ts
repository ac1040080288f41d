import { expect } from 'chai';
import { Spec, Validation } from '@cyclonedx/cyclonedx-library';
import {
  type Api,
  type ApiResponse,
  expectStatus,
  fieldProblem,
  GitServer,
  type Json,
  SystemUnderTest,
  uniqueSuffix,
  userWithRole,
} from '@bulwark/testkit';
import { appRepository, ingestReport, uploadProject, type UploadProject } from './uploaded-issues';

const ZERO = '00000000-0000-4000-8000-000000000000';
const inDays = (days: number) => new Date(Date.now() + days * 86400000).toISOString();

/**
 * Triage of issues through the API (issue #29, points 2 and 3): assignment to users and groups,
 * the VEX analysis, comments, risk acceptance with a second approver; each within the caller's projects.
 */
export function triageSuite(t: SystemUnderTest): void {
  let git: GitServer;
  let P: UploadProject;
  let Q: UploadProject;
  /** Issues of P, by CVE; one issue of Q. */
  const issues = new Map<string, string>();
  let issueQ: string;
  let triager: Api;
  let approver: Api;
  let triagerId: string;
  let approverId: string;
  let groupId: string;

  const ok = (res: ApiResponse) => expectStatus(res, 200);
  const issue = (cve: string) => {
    const id = issues.get(cve);
    if (!id) throw new Error(`no issue for ${cve}`);
    return id;
  };
  /** The 400's detail for a field. */

  const ingest = (env: UploadProject, cves: string[]) => ingestReport(t, env, cves);
  const member = async (projects: string[]) => {
    const { token } = await userWithRole(t.admin, t.anon, { 'issues.issues': ['r', 'w'] }, projects);
    const api = t.anon.as(token);
    return { api, id: ok(await api.get('/api/v1/auth/me')).user.id as string };
  };

  before(async function () {
    this.timeout(120000);
    git = await appRepository();
    P = await uploadProject(t, git);
    Q = await uploadProject(t, git);
    const run = Math.floor(Math.random() * 90000) + 10000;
    const cves = Array.from({ length: 14 }, (_, i) => `CVE-2031-${run}${i}`);
    for (const i of await ingest(P, cves)) issues.set(i.cve, i.id);
    [{ id: issueQ }] = await ingest(Q, [`CVE-2032-${run}`]);
    ({ api: triager, id: triagerId } = await member([P.code]));
    ({ api: approver, id: approverId } = await member([P.code]));
    groupId = ok(await t.admin.post('/api/v1/group', { name: `triage ${uniqueSuffix()}`, user_ids: [triagerId] })).id;
  });
  after(async () => git?.close());

  const cve = (n: number) => [...issues.keys()][n];

  describe('assignment', () => {
    it('assigns to a user or a group of the identity service, in the history, and filters by me, none and id', async () => {
      const [one, two] = [issue(cve(0)), issue(cve(1))];
      const assigned = ok(
        await triager.put(`/api/v1/issue/${one}/assignee`, {
          assignee: { type: 'user', id: approverId },
          comment: 'yours',
        }),
      );
      expect(assigned).to.include({ assignee_type: 'user', assignee_id: approverId });
      expect(assigned.assignee).to.be.a('string').and.not.equal('');
      ok(await triager.put(`/api/v1/issue/${two}/assignee`, { assignee: { type: 'group', id: groupId } }));
      expect(ok(await t.admin.get(`/api/v1/issue/${two}`))).to.include({
        assignee_type: 'group',
        assignee_id: groupId,
      });

      const [entry] = ok(await triager.get(`/api/v1/issue/${one}/history`)).items;
      expect(entry).to.include({ field: 'assignee', old_value: null, new_value: assigned.assignee, comment: 'yours' });

      const ids = async (api: Api, assignee: string) =>
        (
          ok(await api.get(`/api/v1/issues?limit=1000&filter[project_code]=${P.code}&filter[assignee]=${assignee}`))
            .items as Json[]
        ).map((i) => i.id);
      expect(await ids(approver, 'me')).to.deep.equal([one]);
      expect(await ids(triager, 'me')).to.deep.equal([]);
      expect(await ids(triager, groupId)).to.deep.equal([two]);
      const unassigned = await ids(triager, 'none');
      expect(unassigned).to.have.length(issues.size - 2);
      expect(unassigned).not.to.include(one);

      ok(await triager.put(`/api/v1/issue/${two}/assignee`, { assignee: null }));
      expect(ok(await t.admin.get(`/api/v1/issue/${two}`))).to.include({
        assignee: null,
        assignee_type: null,
        assignee_id: null,
      });
    });

    it('refuses an assignee that does not exist or is malformed, naming the field', async () => {
      const one = issue(cve(0));
      expect(
        fieldProblem(
          await triager.put(`/api/v1/issue/${one}/assignee`, { assignee: { type: 'user', id: ZERO } }),
          'assignee.id',
        ),
      ).to.contain('not a known user');
      expect(
        fieldProblem(
          await triager.put(`/api/v1/issue/${one}/assignee`, { assignee: { type: 'group', id: approverId } }),
          'assignee.id',
        ),
      ).to.contain('not a known group');
      fieldProblem(
        await triager.put(`/api/v1/issue/${one}/assignee`, { assignee: { type: 'team', id: ZERO } }),
        'assignee.type',
      );
      fieldProblem(
        await triager.put(`/api/v1/issue/${one}/assignee`, { assignee: { type: 'user', id: 'bob' } }),
        'assignee.id',
      );
      fieldProblem(await triager.put(`/api/v1/issue/${one}/assignee`, {}), 'assignee');
    });

    it('assigns many issues in one request, all or nothing within the caller’s projects', async () => {
      const ids = [issue(cve(2)), issue(cve(3))];
      const body = ok(await triager.put('/api/v1/issues/assignee', { ids, assignee: { type: 'user', id: triagerId } }));
      expect(body.results).to.deep.equal(ids.map((id) => ({ id, status: 'changed' })));
      expect(
        ok(await triager.put('/api/v1/issues/assignee', { ids, assignee: { type: 'user', id: triagerId } })).results,
      ).to.deep.equal(ids.map((id) => ({ id, status: 'unchanged' })));

      const mixed = [issue(cve(4)), issueQ];
      expect(
        fieldProblem(
          await triager.put('/api/v1/issues/assignee', { ids: mixed, assignee: { type: 'user', id: triagerId } }),
          'ids',
        ),
      ).to.contain(issueQ);
      expect(ok(await t.admin.get(`/api/v1/issue/${issue(cve(4))}`)).assignee_id, 'nothing was assigned').to.equal(
        null,
      );
      expect(ok(await t.admin.get(`/api/v1/issue/${issueQ}`)).assignee_id).to.equal(null);
      fieldProblem(await triager.put('/api/v1/issues/assignee', { ids: [], assignee: null }), 'ids');
    });
  });

  describe('analysis and comments', () => {
    it('records a VEX analysis, in the history, and the VEX export states it', async () => {
      const id = issue(cve(5));
      const analysis = ok(
        await triager.put(`/api/v1/issue/${id}/analysis`, {
          state: 'not_affected',
          justification: 'code_not_reachable',
          response: ['will_not_fix'],
          detail: 'the vulnerable function is never called',
        }),
      );
      expect(analysis).to.include({ state: 'not_affected', justification: 'code_not_reachable' });
      expect(ok(await t.admin.get(`/api/v1/issue/${id}`)).analysis).to.deep.include({
        state: 'not_affected',
        response: ['will_not_fix'],
      });
      const [entry] = ok(await triager.get(`/api/v1/issue/${id}/history`)).items;
      expect(entry).to.include({ field: 'analysis', new_value: 'not_affected: code_not_reachable' });

      const vex = await t.admin.download(`/api/v1/layer/${P.layerId}/sbom?format=cyclonedx&kind=vex`);
      expect(vex.status).to.equal(200);
      const text = vex.body.toString('utf8');
      expect(await new Validation.JsonStrictValidator(Spec.Version.v1dot6).validate(text)).to.equal(null);
      const statement = (JSON.parse(text).vulnerabilities as Json[]).find((v) => v['bom-ref'] === id);
      expect(statement?.analysis).to.include({ state: 'not_affected', justification: 'code_not_reachable' });
      expect(statement?.analysis.response).to.deep.equal(['will_not_fix']);
      expect(statement?.analysis.detail).to.contain('the vulnerable function is never called');
    });

    it('refuses a justification without not_affected and values outside the CycloneDX vocabulary', async () => {
      const url = `/api/v1/issue/${issue(cve(5))}/analysis`;
      expect(
        fieldProblem(
          await triager.put(url, { state: 'exploitable', justification: 'code_not_present' }),
          'justification',
        ),
      ).to.contain('not_affected');
      fieldProblem(await triager.put(url, { state: 'fixed' }), 'state');
      fieldProblem(await triager.put(url, { state: 'exploitable', response: ['update', 'update'] }), 'response');
      fieldProblem(await triager.put(url, { state: 'exploitable', response: ['patch'] }), 'response[0]');
      fieldProblem(await triager.put(url, { state: 'in_triage', detail: 'x'.repeat(4001) }), 'detail');
    });

    it('keeps a hostile comment as text and refuses one that is too long', async () => {
      const id = issue(cve(6));
      const hostile = '<img src=x onerror=alert(1)><script>alert(2)</script>';
      ok(await triager.post(`/api/v1/issue/${id}/comment`, { message: hostile }));
      const [comment] = ok(await approver.get(`/api/v1/issue/${id}/comments`)).items;
      expect(comment.message).to.equal(hostile);
      expect(comment.author).to.be.a('string');
      fieldProblem(await triager.post(`/api/v1/issue/${id}/comment`, { message: 'x'.repeat(4001) }), 'message');
      fieldProblem(await triager.post(`/api/v1/issue/${id}/comment`, { message: '   ' }), 'message');
    });
  });

  describe('risk acceptance', () => {
    it('waits for the named second approver, who alone decides; approval moves the issues to Risk accepted', async () => {
      const ids = [issue(cve(7)), issue(cve(8))];
      const pending = ok(
        await triager.post('/api/v1/risk-acceptance', {
          issue_ids: ids,
          reason: 'behind the WAF until the upgrade',
          expires_at: inDays(30),
          approver_id: approverId,
        }),
      );
      expect(pending).to.include({
        state: 'pending',
        project_code: P.code,
        approver_id: approverId,
        requested_by_id: triagerId,
      });
      expect(pending.issue_ids).to.have.members(ids);
      for (const id of ids) expect(ok(await t.admin.get(`/api/v1/issue/${id}`)).status_id).to.equal(1);

      const waiting = ok(
        await approver.get('/api/v1/risk-acceptances?filter[state]=pending&filter[approver]=me'),
      ).items;
      expect(waiting.map((a: Json) => a.id)).to.deep.equal([pending.id]);
      expect(ok(await triager.get('/api/v1/risk-acceptances?filter[approver]=me')).items).to.deep.equal([]);

      expect(
        (await triager.post(`/api/v1/risk-acceptance/${pending.id}/approve`, {})).status,
        'the requester',
      ).to.equal(403);
      expect((await t.admin.post(`/api/v1/risk-acceptance/${pending.id}/approve`, {})).status, 'not named').to.equal(
        403,
      );
      const accepted = ok(await approver.post(`/api/v1/risk-acceptance/${pending.id}/approve`, { comment: 'agreed' }));
      expect(accepted).to.include({ state: 'accepted', decision_comment: 'agreed' });
      for (const id of ids) {
        expect(ok(await t.admin.get(`/api/v1/issue/${id}`)).status_id).to.equal(6);
        const [entry] = ok(await t.admin.get(`/api/v1/issue/${id}/history`)).items;
        expect(entry).to.include({ field: 'status', old_value: '1', new_value: '6' });
        expect(entry.comment).to.contain('behind the WAF');
      }
      expect((await approver.post(`/api/v1/risk-acceptance/${pending.id}/approve`, {})).status).to.equal(409);
      expect(ok(await triager.get(`/api/v1/risk-acceptances?filter[issue]=${ids[0]}`)).items[0].id).to.equal(
        pending.id,
      );

      expect(
        (await triager.post('/api/v1/risk-acceptance', { issue_ids: [ids[0]], reason: 'again', expires_at: inDays(3) }))
          .status,
        'an issue already accepted',
      ).to.equal(409);
    });

    it('accepts at once without an approver, and a rejection leaves the issues as they were', async () => {
      const now = ok(
        await triager.post('/api/v1/risk-acceptance', {
          issue_ids: [issue(cve(9))],
          reason: 'test fixture only',
          expires_at: inDays(7),
        }),
      );
      expect(now).to.include({ state: 'accepted', approver_id: null });
      expect(ok(await t.admin.get(`/api/v1/issue/${issue(cve(9))}`)).status_id).to.equal(6);

      const asked = ok(
        await triager.post('/api/v1/risk-acceptance', {
          issue_ids: [issue(cve(10))],
          reason: 'maybe',
          expires_at: inDays(7),
          approver_id: approverId,
        }),
      );
      expect(ok(await approver.post(`/api/v1/risk-acceptance/${asked.id}/reject`, { comment: 'fix it' }))).to.include({
        state: 'rejected',
        decided_by: ok(await approver.get('/api/v1/auth/me')).user.username,
      });
      expect(ok(await t.admin.get(`/api/v1/issue/${issue(cve(10))}`)).status_id).to.equal(1);
    });

    it('refuses bad requests naming the field: the requester as approver, an unknown user, the past, two projects', async () => {
      const body = { issue_ids: [issue(cve(11))], reason: 'r', expires_at: inDays(1) };
      expect(
        fieldProblem(await triager.post('/api/v1/risk-acceptance', { ...body, approver_id: triagerId }), 'approver_id'),
      ).to.contain('other than the requester');
      expect(
        fieldProblem(await triager.post('/api/v1/risk-acceptance', { ...body, approver_id: ZERO }), 'approver_id'),
      ).to.contain('not a known user');
      fieldProblem(await triager.post('/api/v1/risk-acceptance', { ...body, expires_at: inDays(-1) }), 'expires_at');
      fieldProblem(await triager.post('/api/v1/risk-acceptance', { ...body, expires_at: 'tomorrow' }), 'expires_at');
      fieldProblem(await triager.post('/api/v1/risk-acceptance', { ...body, reason: '' }), 'reason');
      fieldProblem(await triager.post('/api/v1/risk-acceptance', { ...body, issue_ids: [] }), 'issue_ids');
      expect(
        fieldProblem(
          await t.admin.post('/api/v1/risk-acceptance', { ...body, issue_ids: [issue(cve(11)), issueQ] }),
          'issue_ids',
        ),
      ).to.contain('one project');
    });

    it('revokes an accepted acceptance, reopening its issues, and withdraws a pending one; each once', async () => {
      const ids = [issue(cve(12)), issue(cve(13))];
      const held = ok(
        await triager.post('/api/v1/risk-acceptance', {
          issue_ids: ids,
          reason: 'until the release',
          expires_at: inDays(30),
        }),
      );
      const approverName = ok(await approver.get('/api/v1/auth/me')).user.username as string;
      const revoked = ok(
        await approver.post(`/api/v1/risk-acceptance/${held.id}/revoke`, { comment: 'the WAF rule was removed' }),
      );
      expect(revoked).to.include({
        state: 'revoked',
        revoked_by: approverName,
        revocation_comment: 'the WAF rule was removed',
        decided_by: null,
      });
      expect(Date.parse(revoked.revoked_at)).to.be.closeTo(Date.now(), 600000);
      for (const id of ids) {
        expect(ok(await t.admin.get(`/api/v1/issue/${id}`)).status_id).to.equal(8);
        const [entry] = ok(await t.admin.get(`/api/v1/issue/${id}/history`)).items;
        expect(entry).to.include({ field: 'status', old_value: '6', new_value: '8', actor: approverName });
        expect(entry.comment).to.equal(`Risk acceptance ${held.id} revoked: the WAF rule was removed`);
      }
      expect((await triager.post(`/api/v1/risk-acceptance/${held.id}/revoke`, {})).status, 'twice').to.equal(409);

      // Revoked, it holds the issues no more: a new request may name them, and its requester may withdraw it.
      const pending = ok(
        await triager.post('/api/v1/risk-acceptance', {
          issue_ids: [ids[0]],
          reason: 'again',
          expires_at: inDays(3),
          approver_id: approverId,
        }),
      );
      expect(ok(await triager.post(`/api/v1/risk-acceptance/${pending.id}/revoke`, {}))).to.include({
        state: 'revoked',
        revocation_comment: null,
      });
      expect(ok(await t.admin.get(`/api/v1/issue/${ids[0]}`)).status_id, 'a pending one moved nothing').to.equal(8);
      expect((await approver.post(`/api/v1/risk-acceptance/${pending.id}/approve`, {})).status).to.equal(409);
      expect(
        ok(await triager.get(`/api/v1/risk-acceptances?filter[state]=revoked&filter[issue]=${ids[0]}`)).items.map(
          (a: Json) => a.id,
        ),
      ).to.have.members([held.id, pending.id]);
    });

    it('refuses an issue whose status may not move to Risk accepted', async () => {
      const id = issue(cve(11));
      ok(await t.admin.put(`/api/v1/issue/${id}`, { status_id: 4 }));
      const res = await triager.post('/api/v1/risk-acceptance', {
        issue_ids: [id],
        reason: 'r',
        expires_at: inDays(1),
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(409);
      expect(res.body.error.details[0]).to.include({ field: 'issue_ids' });
    });
  });

  describe('project scope', () => {
    it('keeps another project’s assignments, analyses, comments and acceptances out of reach', async () => {
      const q = `/api/v1/issue/${issueQ}`;
      expect((await triager.put(`${q}/assignee`, { assignee: null })).status).to.equal(404);
      expect((await triager.put(`${q}/analysis`, { state: 'in_triage' })).status).to.equal(404);
      expect((await triager.post(`${q}/comment`, { message: 'hi' })).status).to.equal(404);
      expect((await triager.get(`${q}/comments`)).status).to.equal(404);
      fieldProblem(
        await triager.post('/api/v1/risk-acceptance', { issue_ids: [issueQ], reason: 'r', expires_at: inDays(1) }),
        'issue_ids',
      );
      const { id: approverOfQ } = await member([Q.code]);
      const ofQ = ok(
        await t.admin.post('/api/v1/risk-acceptance', {
          issue_ids: [issueQ],
          reason: 'Q only',
          expires_at: inDays(1),
          approver_id: approverOfQ,
        }),
      );
      expect((await triager.get(`/api/v1/risk-acceptance/${ofQ.id}`)).status).to.equal(404);
      expect((await triager.post(`/api/v1/risk-acceptance/${ofQ.id}/approve`, {})).status).to.equal(404);
      expect((await triager.post(`/api/v1/risk-acceptance/${ofQ.id}/revoke`, {})).status).to.equal(404);
      const listed = ok(await triager.get('/api/v1/risk-acceptances?limit=1000')).items as Json[];
      expect(listed.map((a) => a.project_code)).to.not.include(Q.code);
      expect(
        ok(await triager.get(`/api/v1/issues?filter[assignee]=none&filter[project_code]=${Q.code}`)).items,
      ).to.deep.equal([]);
    });

    it('names as assignee or approver only a user who may reach the issue’s project, and a group covering it', async () => {
      const q = `/api/v1/issue/${issueQ}`;
      expect(
        fieldProblem(await t.admin.put(`${q}/assignee`, { assignee: { type: 'user', id: triagerId } }), 'assignee.id'),
      ).to.contain(`may not read the issues of project ${Q.code}`);
      expect(
        fieldProblem(
          await t.admin.put('/api/v1/issues/assignee', {
            ids: [issue(cve(0)), issueQ],
            assignee: { type: 'user', id: triagerId },
          }),
          'assignee.id',
        ),
      ).to.contain(Q.code);
      const pName = `triage P ${uniqueSuffix()}`;
      const ofP = ok(await t.admin.post('/api/v1/group', { name: pName, project_codes: [P.code] })).id;
      expect(
        fieldProblem(await t.admin.put(`${q}/assignee`, { assignee: { type: 'group', id: ofP } }), 'assignee.id'),
      ).to.contain(`does not cover project ${Q.code}`);
      ok(await t.admin.put(`/api/v1/issue/${issue(cve(0))}/assignee`, { assignee: { type: 'group', id: ofP } }));
      const body = { issue_ids: [issueQ], reason: 'r', expires_at: inDays(1) };
      expect(
        fieldProblem(await t.admin.post('/api/v1/risk-acceptance', { ...body, approver_id: triagerId }), 'approver_id'),
      ).to.contain(`may not change the issues of project ${Q.code}`);
      const { token, username: readerName } = await userWithRole(t.admin, t.anon, { 'issues.issues': ['r'] }, [Q.code]);
      const reader = ok(await t.anon.as(token).get('/api/v1/auth/me')).user.id as string;
      ok(await t.admin.put(`${q}/assignee`, { assignee: { type: 'user', id: reader } }));
      fieldProblem(await t.admin.post('/api/v1/risk-acceptance', { ...body, approver_id: reader }), 'approver_id');
      expect(ok(await t.admin.get(q)).assignee_id).to.equal(reader);
      ok(await t.admin.put(`${q}/assignee`, { assignee: null }));
      const ofQ = ok(await t.admin.post('/api/v1/group', { name: `${pName} Q`, project_codes: [Q.code] })).id;
      const found = async (api: Api, search: string) =>
        (
          ok(await api.get(`/api/v1/issues/assignees?limit=50&search=${encodeURIComponent(search)}`)).items as Json[]
        ).map((a) => a.id);
      expect(await found(triager, pName), 'a P caller finds groups of P only').to.deep.equal([ofP]);
      expect(await found(t.admin, pName)).to.have.members([ofP, ofQ]);
      expect(await found(triager, readerName), 'a P caller does not find a user of Q').to.deep.equal([]);
      expect(await found(t.admin, readerName)).to.deep.equal([reader]);
      expect(await found(triager, ok(await approver.get('/api/v1/auth/me')).user.username)).to.deep.equal([approverId]);
      ok(await t.admin.delete('/api/v1/groups', { ids: [ofP, ofQ] }));
    });
  });
}
