import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import {
  type Api,
  type ApiResponse,
  expectStatus,
  type Json,
  GitServer,
  startGitServer,
  SystemUnderTest,
  uniqueSuffix,
  uploadAndIngest,
  userWithRole,
  manualCheck,
} from '@bulwark/testkit';
import { MANUAL_TOOL_TYPE, scanSetup } from '../../scanning/test/scanning.suite';
import { semgrepReport } from './issues.suite';

/** Every letter of the issue-settings keys. */
const settingsEverywhere = Object.fromEntries(
  [
    'issues.security_rules',
    'issues.quality_gates',
    'issues.policies',
    'issues.deduplicate_rules',
    'issues.statuses',
    'integrations.trackers',
  ].map((key) => [key, ['r', 'w', 'x', 'd']]),
);

/**
 * Issue #28's reproductions for the objects the issues service owns: a user whose role covers only
 * project A, with every letter of the issue-settings keys, reaches none of project B through security
 * rules, quality gates, policies, deduplication rules, transitions or trackers, and still manages A's.
 */
export function issueSettingsScopeSuite(t: SystemUnderTest): void {
  let git: GitServer;
  let scoped: Api;
  const run = uniqueSuffix();
  const A = `scope-a-${run}`;
  let B: string;
  const tagA = `tag-a-${run}`;
  const tagB = `tag-b-${run}`;
  let layerA: string;
  let layerB: string;
  let issueB: Json;

  const ok = (res: ApiResponse) => expectStatus(res, 200);
  const status = expectStatus;
  const named = (prefix: string) => `${prefix} ${run}`;
  let cves = 1000;
  /** A rule that matches no issue of this run (each with a CVE of its own) unless `params` say otherwise. */
  const ruleBody = (name: string, params: Json) => ({
    name: named(name),
    rule_params: { cve: `CVE-1999-${cves++}`, ...params },
    suppressing_status: 6,
    expiry_status: 2,
  });
  const results = (body: Json) => Object.fromEntries(body.results.map((r: Json) => [r.id, r.status]));

  before(async function () {
    this.timeout(90000);
    ok(await t.admin.post('/api/v1/project', { code: A, name: `Project ${A}`, tags: [tagA] }));
    layerA = ok(
      await t.admin.post('/api/v1/layer', { name: 'code', project_code: A, layer_type_id: 1, is_template: false }),
    ).id;
    // Project B, with a scan whose issue a rule for every project would suppress.
    git = await startGitServer();
    git.addRepository('app', { 'app.py': 'import subprocess\n' });
    const env = await scanSetup(t, git, 'app', [MANUAL_TOOL_TYPE]);
    B = env.code;
    layerB = env.layerId;
    ok(await t.admin.put(`/api/v1/project/${B}`, { tags: [tagB] }));
    const check = await manualCheck(t.admin, env);
    const report = semgrepReport([{ rule: `scope.rule.${run}`, line: 3, code: 'subprocess.call(cmd, shell=True)' }]);
    [issueB] = await uploadAndIngest(t.admin, check, report, 1);

    scoped = t.anon.as((await userWithRole(t.admin, t.anon, settingsEverywhere, [A])).token);
  });
  after(async () => git?.close());

  describe('security rules', () => {
    it('refuses a rule for every project or for B, and leaves B’s issues alone', async () => {
      const before = ok(await t.admin.get(`/api/v1/issue/${issueB.id}`)).status_id;
      const everywhere = ruleBody('every project', { cve: undefined, cwe: 'CWE-78', active_for_all: true });
      status(await scoped.post('/api/v1/security-rule', everywhere), 403);
      status(await scoped.post('/api/v1/security-rule', { ...everywhere, rule_params: { cwe: 'CWE-78' } }), 403);
      status(
        await scoped.post(
          '/api/v1/security-rule',
          ruleBody('for B', { cwe: 'CWE-78', active_for_all: false, project_codes: [B] }),
        ),
        403,
      );
      status(
        await scoped.post(
          '/api/v1/security-rule',
          ruleBody('for A and B', { active_for_all: false, project_codes: [A, B] }),
        ),
        403,
      );
      expect(ok(await t.admin.get(`/api/v1/issue/${issueB.id}`))).to.include({
        status_id: before,
        security_rule_id: null,
      });
      expect(ok(await t.admin.get(`/api/v1/security-rules?search[name]=${run}`)).total).to.equal(0);
    });

    it('shows only rules touching A, with A’s code only, and changes only A’s', async () => {
      const mine = ok(
        await scoped.post('/api/v1/security-rule', ruleBody('mine', { active_for_all: false, project_codes: [A] })),
      );
      const ofB = ok(
        await t.admin.post('/api/v1/security-rule', ruleBody('of B', { active_for_all: false, project_codes: [B] })),
      );
      const shared = ok(
        await t.admin.post(
          '/api/v1/security-rule',
          ruleBody('shared rule', { active_for_all: false, project_codes: [A, B] }),
        ),
      );
      const everywhere = ok(await t.admin.post('/api/v1/security-rule', ruleBody('everywhere', {})));
      // Without active_for_all: false a rule applies to every project, whatever project_codes it names.
      const unflagged = ok(await t.admin.post('/api/v1/security-rule', ruleBody('unflagged', { project_codes: [B] })));

      const listed = ok(await scoped.get(`/api/v1/security-rules?search[name]=${run}&limit=1000`));
      expect(listed.items.map((r: Json) => r.id).sort()).to.deep.equal(
        [mine.id, shared.id, everywhere.id, unflagged.id].sort(),
      );
      expect(listed.total).to.equal(4);
      expect(JSON.stringify(listed)).to.not.contain(B);
      expect(listed.items.find((r: Json) => r.id === unflagged.id).rule_params.project_codes).to.deep.equal([]);
      expect(ok(await scoped.get(`/api/v1/security-rule/${shared.id}`)).rule_params.project_codes).to.deep.equal([A]);
      expect(ok(await t.admin.get(`/api/v1/security-rule/${shared.id}`)).rule_params.project_codes).to.deep.equal([
        A,
        B,
      ]);
      status(await scoped.get(`/api/v1/security-rule/${ofB.id}`), 404);
      const values = ok(await scoped.get(`/api/v1/security-rules/filter?search[name]=${run}`));
      expect(values.cve).to.not.include(ofB.rule_params.cve);

      status(await scoped.put(`/api/v1/security-rule/${ofB.id}`, ruleBody('of B', { project_codes: [A] })), 404);
      status(
        await scoped.put(`/api/v1/security-rule/${shared.id}`, ruleBody('shared rule', { project_codes: [A] })),
        403,
      );
      status(await scoped.put(`/api/v1/security-rule/${everywhere.id}`, ruleBody('everywhere', {})), 403);
      status(await scoped.put(`/api/v1/security-rule/${unflagged.id}`, ruleBody('unflagged', {})), 403);
      status(await scoped.put(`/api/v1/security-rule/${mine.id}`, ruleBody('mine', { active_for_all: true })), 403);
      status(
        await scoped.put(
          `/api/v1/security-rule/${mine.id}`,
          ruleBody('mine', { active_for_all: false, project_codes: [A, B] }),
        ),
        403,
      );
      expect(
        ok(
          await scoped.put(
            `/api/v1/security-rule/${mine.id}`,
            ruleBody('mine', { active_for_all: false, project_codes: [A] }),
          ),
        ).name,
      ).to.equal(mine.name);

      const deleted = ok(await scoped.delete('/api/v1/security-rules', { ids: [ofB.id, shared.id, mine.id] }));
      expect(results(deleted)).to.deep.equal({ [ofB.id]: 'not_found', [shared.id]: 'forbidden', [mine.id]: 'deleted' });
      expect(deleted.results.find((r: Json) => r.id === shared.id).message)
        .to.contain('outside your scope')
        .and.not.contain(B);
      ok(await t.admin.get(`/api/v1/security-rule/${shared.id}`));
      expect(
        results(
          ok(await t.admin.delete('/api/v1/security-rules', { ids: [ofB.id, shared.id, everywhere.id, unflagged.id] })),
        ),
      ).to.deep.equal({
        [ofB.id]: 'deleted',
        [shared.id]: 'deleted',
        [everywhere.id]: 'deleted',
        [unflagged.id]: 'deleted',
      });
    });
  });

  describe('quality gates', () => {
    const gate = async (api: Api, name: string) => ok(await api.post('/api/v1/quality-gate', { name: named(name) }));
    const linkPipe = (api: Api, gateId: string, layerId: string) =>
      api.post('/api/v1/quality-gate/link-pipe', { layer_id: layerId, quality_gate_id: gateId, action: 'lock' });
    const condition = (gateId: string) => ({
      quality_gate_id: gateId,
      condition_type: 'severity',
      condition_value: 'critical',
      operator: 'not_greater_than',
      value: 0,
    });

    it('keeps an administrator’s gate of B out of reach: not listed, 404 to read, rename and condition, never deleted', async () => {
      const ofB = await gate(t.admin, 'gate of B');
      ok(await linkPipe(t.admin, ofB.id, layerB));
      const cond = ok(await t.admin.post('/api/v1/condition', condition(ofB.id)));

      expect(
        ok(await scoped.get(`/api/v1/quality-gates?search[name]=${run}&limit=1000`)).items.map((g: Json) => g.id),
      ).to.not.include(ofB.id);
      status(await scoped.get(`/api/v1/quality-gate/${ofB.id}`), 404);
      status(await scoped.put(`/api/v1/quality-gate/${ofB.id}`, { name: 'taken over' }), 404);
      status(await scoped.post('/api/v1/condition', condition(ofB.id)), 400);
      status(await scoped.put(`/api/v1/condition/${cond.id}`, { ...condition(ofB.id), value: 99 }), 404);
      expect(results(ok(await scoped.delete('/api/v1/conditions', { ids: [cond.id] })))).to.deep.equal({
        [cond.id]: 'not_found',
      });
      expect(results(ok(await scoped.delete('/api/v1/quality-gates', { ids: [ofB.id] })))).to.deep.equal({
        [ofB.id]: 'not_found',
      });
      status(await linkPipe(scoped, ofB.id, layerA), 400);

      const kept = ok(await t.admin.get(`/api/v1/quality-gate/${ofB.id}`));
      expect(kept.name).to.equal(ofB.name);
      expect(kept.conditions.map((c: Json) => c.value)).to.deep.equal(['0']);
      expect(kept.layers.map((l: Json) => l.layer_id)).to.deep.equal([layerB]);
    });

    it('shows a gate linked to A and B with A’s layer only, and refuses to rename, delete, unlink it or change its conditions', async () => {
      const shared = await gate(t.admin, 'shared gate');
      ok(await linkPipe(t.admin, shared.id, layerA));
      ok(await linkPipe(t.admin, shared.id, layerB));
      const cond = ok(await t.admin.post('/api/v1/condition', condition(shared.id)));

      const seen = ok(await scoped.get(`/api/v1/quality-gate/${shared.id}`));
      expect(seen.layers.map((l: Json) => l.layer_id)).to.deep.equal([layerA]);
      const listed = ok(await scoped.get(`/api/v1/quality-gates?search[name]=${run}&limit=1000`));
      expect(listed.items.find((g: Json) => g.id === shared.id).layers).to.have.length(1);
      expect(JSON.stringify(listed)).to.not.contain(layerB);
      expect(ok(await scoped.get(`/api/v1/quality-gates?search[project_name]=${B}`)).total).to.equal(0);

      status(await scoped.put(`/api/v1/quality-gate/${shared.id}`, { name: 'taken over' }), 403);
      status(await scoped.post('/api/v1/condition', condition(shared.id)), 403);
      status(await scoped.put(`/api/v1/condition/${cond.id}`, { ...condition(shared.id), value: 99 }), 403);
      const refused = ok(await scoped.delete('/api/v1/conditions', { ids: [cond.id] }));
      expect(results(refused)).to.deep.equal({ [cond.id]: 'forbidden' });
      expect(results(ok(await scoped.delete('/api/v1/quality-gates', { ids: [shared.id] })))).to.deep.equal({
        [shared.id]: 'forbidden',
      });
      status(await scoped.post('/api/v1/quality-gate/link-layer', { layer_id: layerA, quality_gates: [] }), 403);

      const kept = ok(await t.admin.get(`/api/v1/quality-gate/${shared.id}`));
      expect(kept.name).to.equal(shared.name);
      expect(kept.conditions.map((c: Json) => c.value)).to.deep.equal(['0']);
      expect(kept.layers.map((l: Json) => l.layer_id).sort()).to.deep.equal([layerA, layerB].sort());
    });

    it('refuses to link a gate to B’s layer, or to give A’s gate to B', async () => {
      const mine = await gate(scoped, 'linked to B');
      status(await linkPipe(scoped, mine.id, layerB), 400);
      status(
        await scoped.post('/api/v1/quality-gate/link-layer', {
          layer_id: layerB,
          quality_gates: [{ quality_gate_id: mine.id, action: 'lock' }],
        }),
        400,
      );
      expect(
        ok(await t.admin.get(`/api/v1/quality-gate/layer/${layerB}`)).quality_gates.map((g: Json) => g.quality_gate_id),
      ).to.not.include(mine.id);
    });

    it('answers 404 for the gate state of B’s layer, as for a layer that does not exist', async () => {
      status(await scoped.get(`/api/v1/quality-gate/layer/${layerB}`), 404);
      status(await t.admin.get(`/api/v1/quality-gate/layer/${randomUUID()}`), 404);
      ok(await scoped.get(`/api/v1/quality-gate/layer/${layerA}`));
    });

    it('manages gates within A: create, link to A’s layer, conditions, rename, unlink, delete', async () => {
      const mine = await gate(scoped, 'of A');
      expect(ok(await linkPipe(scoped, mine.id, layerA)).quality_gates.map((g: Json) => g.quality_gate_id)).to.include(
        mine.id,
      );
      const cond = ok(await scoped.post('/api/v1/condition', condition(mine.id)));
      expect(ok(await scoped.put(`/api/v1/condition/${cond.id}`, { ...condition(mine.id), value: 2 })).value).to.equal(
        '2',
      );
      expect(
        ok(await scoped.put(`/api/v1/quality-gate/${mine.id}`, { name: named('renamed A') })).layers,
      ).to.deep.equal([{ layer_id: layerA, action: 'lock' }]);
      expect(ok(await t.admin.get(`/api/v1/quality-gate/${mine.id}`)).name).to.equal(named('renamed A'));
      expect(results(ok(await scoped.delete('/api/v1/conditions', { ids: [cond.id] })))).to.deep.equal({
        [cond.id]: 'deleted',
      });
      // Unlinking A's own gate while keeping the administrator's shared one, which it may not change.
      const others = ok(await scoped.get(`/api/v1/quality-gate/layer/${layerA}`))
        .quality_gates.filter((g: Json) => g.quality_gate_id !== mine.id)
        .map((g: Json) => ({ quality_gate_id: g.quality_gate_id, action: g.action }));
      expect(others).to.have.length.greaterThan(0);
      const after = ok(
        await scoped.post('/api/v1/quality-gate/link-layer', { layer_id: layerA, quality_gates: others }),
      );
      expect(after.quality_gates.map((g: Json) => g.quality_gate_id)).to.not.include(mine.id);
      expect(results(ok(await scoped.delete('/api/v1/quality-gates', { ids: [mine.id] })))).to.deep.equal({
        [mine.id]: 'deleted',
      });
    });

    it('sees and changes a gate linked nowhere, and no longer changes A’s gate once a policy applies it by tag', async () => {
      const loose = await gate(t.admin, 'linked nowhere');
      expect(ok(await scoped.get(`/api/v1/quality-gate/${loose.id}`)).layers).to.deep.equal([]);
      ok(await scoped.put(`/api/v1/quality-gate/${loose.id}`, { name: named('renamed loose') }));

      const mine = await gate(scoped, 'applied by policy');
      ok(await linkPipe(scoped, mine.id, layerA));
      const policy = ok(
        await t.admin.post('/api/v1/policy', {
          name: named('applies A’s gate'),
          project_tags: [tagA],
          quality_gates: [{ quality_gate_id: mine.id, action: 'inform' }],
        }),
      );
      status(await scoped.put(`/api/v1/quality-gate/${mine.id}`, { name: 'renamed' }), 403);
      status(await scoped.post('/api/v1/condition', condition(mine.id)), 403);
      ok(await t.admin.delete('/api/v1/policies', { ids: [policy.id] }));
      ok(await scoped.put(`/api/v1/quality-gate/${mine.id}`, { name: named('renamed again') }));
    });
  });

  describe('policies', () => {
    it('refuses a policy by tag, shows policies by A’s tags with A’s tags only, and changes none of them', async () => {
      status(await scoped.post('/api/v1/policy', { name: named('policy of A'), project_tags: [tagA] }), 403);
      status(await scoped.post('/api/v1/policy', { name: named('policy of B'), project_tags: [tagB] }), 403);
      const ofB = ok(await t.admin.post('/api/v1/policy', { name: named('policy of B'), project_tags: [tagB] }));
      const shared = ok(
        await t.admin.post('/api/v1/policy', { name: named('shared policy'), project_tags: [tagA, tagB] }),
      );

      const listed = ok(await scoped.get(`/api/v1/policies?search[name]=${run}&limit=1000`));
      expect(listed.items.map((p: Json) => p.id)).to.deep.equal([shared.id]);
      expect(listed.items[0].project_tags).to.deep.equal([tagA]);
      expect(JSON.stringify(listed)).to.not.contain(tagB);
      expect(ok(await scoped.get(`/api/v1/policies?search[project_name]=${tagB}`)).total).to.equal(0);

      status(await scoped.put(`/api/v1/policy/${ofB.id}`, { name: 'x', project_tags: [tagA] }), 404);
      status(await scoped.put(`/api/v1/policy/${shared.id}`, { name: 'x', project_tags: [tagA] }), 403);
      expect(results(ok(await scoped.delete('/api/v1/policies', { ids: [ofB.id, shared.id] })))).to.deep.equal({
        [ofB.id]: 'not_found',
        [shared.id]: 'forbidden',
      });
      expect(results(ok(await t.admin.delete('/api/v1/policies', { ids: [ofB.id, shared.id] })))).to.deep.equal({
        [ofB.id]: 'deleted',
        [shared.id]: 'deleted',
      });
    });
  });

  describe('deduplication rules, statuses and transitions', () => {
    it('reads them but changes none: they apply to the whole organisation', async () => {
      const refused = status(
        await scoped.post('/api/v1/deduplicate-rule', { name: named('default'), fields: ['rule_id'] }),
        403,
      );
      expect(refused.error.message).to.contain('every project');
      const rule = ok(
        await t.admin.post('/api/v1/deduplicate-rule', {
          name: named('dedup'),
          tool_name: `tool-${run}`,
          fields: ['rule_id'],
        }),
      );
      status(await scoped.put(`/api/v1/deduplicate-rule/${rule.id}`, { name: 'x', fields: ['fingerprint'] }), 403);
      status(await scoped.delete('/api/v1/deduplicate-rules', { ids: [rule.id] }), 403);
      expect(ok(await scoped.get(`/api/v1/deduplicate-rules?search[name]=${run}`)).total).to.equal(1);
      ok(await t.admin.delete('/api/v1/deduplicate-rules', { ids: [rule.id] }));

      status(await scoped.post('/api/v1/issues/statuses/transition', { from_status_id: 4, to_status_id: 6 }), 403);
      const [transition] = ok(await scoped.get('/api/v1/issues/statuses/transitions')).items;
      status(await scoped.delete('/api/v1/issues/statuses/transitions', { ids: [transition.id] }), 403);
      expect(ok(await t.admin.get('/api/v1/issues/statuses/transitions')).items.map((x: Json) => x.id)).to.include(
        transition.id,
      );
      expect(ok(await scoped.get('/api/v1/issues/statuses')).items.length).to.be.greaterThan(0);
    });
  });

  describe('a holder of the same keys on every project', () => {
    it('still creates and changes objects for every project, by tag and of B, and sees them whole', async () => {
      const everywhere = t.anon.as((await userWithRole(t.admin, t.anon, settingsEverywhere)).token);

      const rule = ok(await everywhere.post('/api/v1/security-rule', ruleBody('unscoped rule', {})));
      const gate = ok(await everywhere.post('/api/v1/quality-gate', { name: named('unscoped gate') }));
      ok(
        await everywhere.post('/api/v1/quality-gate/link-pipe', {
          layer_id: layerB,
          quality_gate_id: gate.id,
          action: 'inform',
        }),
      );
      const policy = ok(
        await everywhere.post('/api/v1/policy', {
          name: named('unscoped policy'),
          project_tags: [tagA, tagB],
          quality_gates: [{ quality_gate_id: gate.id, action: 'inform' }],
        }),
      );
      expect(policy.project_tags).to.deep.equal([tagA, tagB]);
      expect(ok(await everywhere.get(`/api/v1/quality-gate/${gate.id}`)).layers).to.deep.equal([
        { layer_id: layerB, action: 'inform' },
      ]);
      const dedup = ok(
        await everywhere.post('/api/v1/deduplicate-rule', {
          name: named('unscoped dedup'),
          tool_name: `unscoped-${run}`,
          fields: ['rule_id'],
        }),
      );
      ok(await everywhere.put(`/api/v1/quality-gate/${gate.id}`, { name: named('unscoped gate renamed') }));
      for (const [path, id] of [
        ['/api/v1/policies', policy.id],
        ['/api/v1/quality-gates', gate.id],
        ['/api/v1/security-rules', rule.id],
        ['/api/v1/deduplicate-rules', dedup.id],
      ])
        expect(results(ok(await everywhere.delete(path, { ids: [id] })))).to.deep.equal({ [id]: 'deleted' });
    });
  });

  describe('task trackers', () => {
    const tracker = (name: string, codes: string[]) => ({
      name: named(name),
      type: 'redmine',
      url: 'http://127.0.0.1:9',
      credentials: { api_key: `key-${run}` },
      projects: codes.map((c) => ({ project_code: c, tracker_project: `tp-${c}`, issue_type: 'Bug' })),
    });

    it('shows trackers mapping A with A’s mappings only, and changes only those mapping A alone', async () => {
      status(await scoped.post('/api/v1/tracker', tracker('every project', ['*'])), 403);
      status(await scoped.post('/api/v1/tracker', tracker('of B', [B])), 403);
      const mine = ok(await scoped.post('/api/v1/tracker', tracker('of A', [A])));
      const ofB = ok(await t.admin.post('/api/v1/tracker', tracker('of B', [B])));
      const shared = ok(await t.admin.post('/api/v1/tracker', tracker('shared', [A, B])));
      const everywhere = ok(await t.admin.post('/api/v1/tracker', tracker('everywhere', ['*'])));

      const listed = ok(await scoped.get(`/api/v1/trackers?search[name]=${run}&limit=1000`));
      expect(listed.items.map((x: Json) => x.id).sort()).to.deep.equal([mine.id, shared.id, everywhere.id].sort());
      expect(JSON.stringify(listed)).to.not.contain(B);
      expect(
        ok(await scoped.get(`/api/v1/tracker/${shared.id}`)).projects.map((p: Json) => p.project_code),
      ).to.deep.equal([A]);
      status(await scoped.get(`/api/v1/tracker/${ofB.id}`), 404);

      status(await scoped.put(`/api/v1/tracker/${ofB.id}`, tracker('of B', [A])), 404);
      status(await scoped.put(`/api/v1/tracker/${shared.id}`, tracker('shared', [A])), 403);
      status(await scoped.put(`/api/v1/tracker/${everywhere.id}`, tracker('everywhere', [A])), 403);
      status(await scoped.put(`/api/v1/tracker/${mine.id}`, tracker('of A', [A, B])), 403);
      ok(await scoped.put(`/api/v1/tracker/${mine.id}`, tracker('of A', [A])));
      status(await scoped.post(`/api/v1/tracker/${ofB.id}/sync`), 404);
      status(await scoped.post(`/api/v1/tracker/${shared.id}/sync`), 403);

      const ids = [ofB.id, shared.id, everywhere.id, mine.id];
      expect(results(ok(await scoped.delete('/api/v1/trackers', { ids, force: true })))).to.deep.equal({
        [ofB.id]: 'not_found',
        [shared.id]: 'forbidden',
        [everywhere.id]: 'forbidden',
        [mine.id]: 'deleted',
      });
      expect(ok(await t.admin.get(`/api/v1/tracker/${shared.id}`)).projects).to.have.length(2);
      expect(
        results(ok(await t.admin.delete('/api/v1/trackers', { ids: ids.slice(0, 3), force: true }))),
      ).to.deep.equal({
        [ofB.id]: 'deleted',
        [shared.id]: 'deleted',
        [everywhere.id]: 'deleted',
      });
    });
  });
}
