import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { PERMISSION_KEYS } from '@bulwark/contracts';
import type { PermissionLetter } from '@bulwark/platform';
import {
  Api,
  ADMIN_PASSWORD,
  Json,
  JiraContractServer,
  startJiraContractServer,
  SystemUnderTest,
  uniqueSuffix,
} from '@bulwark/testkit';
import { semgrepReport } from '../../services/issues/test/issues.suite';

const LETTERS: PermissionLetter[] = ['r', 'w', 'x', 'd'];
const MANUAL_TOOL_TYPE = 20;
const JIRA = { email: 'matrix@example.com', apiToken: 'matrix-jira-token' };

export const strongPassword = () => `Mx-${randomBytes(12).toString('base64url')}-9`;

export const ok = (res: { status: number; body: Json }, what = 'fixture'): Json => {
  expect(res.status, `${what}: ${JSON.stringify(res.body)}`).to.equal(200);
  return res.body;
};

/**
 * The objects the authorization matrix aims at: two projects, A (the scoped caller's) and B (someone
 * else's), each object of B that a route reads or changes, and objects for every project. Fixtures are
 * made by admin sessions of their own (a pool, so the per-token rate limit of one never binds), and
 * `fresh` makes a new disposable object of B for each route that deletes one.
 */
export class MatrixFixtures {
  readonly sfx = uniqueSuffix();
  readonly a = `mx-a-${this.sfx}`;
  readonly b = `mx-b-${this.sfx}`;
  readonly tagA = `mxtag-a-${this.sfx}`;
  readonly tagB = `mxtag-b-${this.sfx}`;
  layerA = '';
  layerB = '';
  templateB = '';
  sourceAll = '';
  sourceB = '';
  toolAll = '';
  toolB = '';
  checkB = '';
  checkGroupB = '';
  scanB = '';
  issuesB: string[] = [];
  issueA = '';
  /** Issues of B for routes that use one up (delete it, link it to a ticket), one each. */
  private spares: string[] = [];
  private lastScan = '';
  ruleB = '';
  ruleAll = '';
  gateB = '';
  conditionB = '';
  policyB = '';
  slaPolicyB = '';
  trackerB = '';
  notifierB = '';
  reportB = '';
  roleB = '';
  userB = '';
  /** A risk acceptance of B waiting for B's user to approve it. */
  pendingAcceptanceB = '';
  groupB = '';
  jira!: JiraContractServer;
  private admins: Api[] = [];
  private turn = 0;
  private readonly credentials = new WeakMap<Api, { username: string; password: string }>();

  constructor(private readonly t: SystemUnderTest) {}

  /** An admin session, a different one each call. */
  get admin(): Api {
    this.turn = (this.turn + 1) % this.admins.length;
    return this.admins[this.turn];
  }

  /** Every id and code of B a scoped caller must never see. */
  get secretsOfB(): string[] {
    return [
      this.b,
      this.tagB,
      this.layerB,
      this.templateB,
      this.sourceB,
      this.toolB,
      this.checkB,
      this.scanB,
      ...this.issuesB,
      this.ruleB,
      this.gateB,
      this.policyB,
      this.slaPolicyB,
      this.trackerB,
      this.notifierB,
      this.reportB,
      this.pendingAcceptanceB,
    ];
  }

  async setUp(): Promise<void> {
    for (let i = 0; i < 4; i++) this.admins.push(await this.signIn('admin', ADMIN_PASSWORD));
    this.jira = await startJiraContractServer({ projects: ['SEC'], issueTypes: ['Task'], ...JIRA });
    for (const [code, tag] of [
      [this.a, this.tagA],
      [this.b, this.tagB],
    ])
      ok(await this.admin.post('/api/v1/project', { code, name: `Matrix ${code}`, tags: [tag] }), 'project');
    this.layerA = await this.layer(this.a);
    this.layerB = await this.layer(this.b);
    this.templateB = await this.layer(this.b, true);
    this.sourceAll = await this.source([]);
    this.sourceB = await this.source([this.b]);
    this.toolAll = await this.tool([]);
    this.toolB = await this.tool([this.b]);
    this.checkB = await this.check(this.layerB);
    this.checkGroupB = ok(
      await this.admin.post('/api/v1/check', {
        ...this.checkBody(this.layerB),
        tags: [{ tag_name: 'main' }, { tag_name: 'dev' }],
      }),
    ).group_id;
    this.issuesB = await this.upload(this.checkB, 2);
    this.scanB = this.lastScan;
    this.spares = await this.upload(await this.check(this.layerB), 40);
    [this.issueA] = await this.upload(await this.check(this.layerA), 1);
    ok(
      await this.admin
        .withHeaders({ 'content-type': 'application/json' })
        .request('POST', `/api/v1/layer/${this.layerB}/sbom`, undefined, this.sbom()),
      'SBOM',
    );
    // Rules for a CVE no issue has, so that they change no status the other routes read.
    this.ruleB = await this.rule({ active_for_all: false, project_codes: [this.b], cve: 'CVE-1999-0001' });
    this.ruleAll = await this.rule({ active_for_all: true, cve: 'CVE-1999-0001' });
    this.gateB = await this.gate();
    this.conditionB = ok(await this.admin.post('/api/v1/condition', this.conditionBody(this.gateB)), 'condition').id;
    this.policyB = await this.policy();
    this.slaPolicyB = await this.slaPolicy();
    this.trackerB = await this.tracker();
    this.notifierB = await this.notifier();
    this.reportB = await this.report();
    this.roleB = await this.role({ 'issues.issues': ['r', 'w'] }, [`project:${this.b}`]);
    this.userB = await this.user([this.roleB]);
    this.pendingAcceptanceB = ok(
      await this.admin.post('/api/v1/risk-acceptance', {
        issue_ids: [await this.spareIssue()],
        reason: 'matrix',
        expires_at: new Date(Date.now() + 7 * 86400000).toISOString(),
        approver_id: this.userB,
      }),
      'risk acceptance',
    ).id;
    this.groupB = await this.group();
  }

  async tearDown(): Promise<void> {
    await this.jira?.close();
  }

  layerBody(project: string, isTemplate = false) {
    return { name: `layer ${uniqueSuffix()}`, project_code: project, layer_type_id: 1, is_template: isTemplate };
  }
  async layer(project: string, isTemplate = false): Promise<string> {
    return ok(await this.admin.post('/api/v1/layer', this.layerBody(project, isTemplate)), 'layer').id;
  }

  sourceBody(codes: string[]) {
    return {
      name: `source ${uniqueSuffix()}`,
      source_type_id: 1,
      settings: { url: 'http://127.0.0.1:9/matrix.git', branch_name: 'main', auth_method: 'Anonymous' },
      ...(codes.length ? { access_type: 'project', project_codes: codes } : { access_type: 'global' }),
    };
  }
  async source(codes: string[]): Promise<string> {
    return ok(await this.admin.post('/api/v1/source', this.sourceBody(codes)), 'source').id;
  }

  toolBody(codes: string[]) {
    return {
      name: `manual ${uniqueSuffix()}`,
      type_id: MANUAL_TOOL_TYPE,
      settings: {},
      ...(codes.length ? { access_type: 'project', project_codes: codes } : { access_type: 'global' }),
    };
  }
  async tool(codes: string[]): Promise<string> {
    return ok(await this.admin.post('/api/v1/tool', this.toolBody(codes)), 'tool').id;
  }

  checkBody(layer: string) {
    return {
      layer_id: layer,
      security_tool_id: this.toolAll,
      scan_source_id: this.sourceAll,
      source_auth: { branch_name: 'main' },
      run_scan_task: { type: 'manual' },
    };
  }
  async check(layer: string): Promise<string> {
    return ok(await this.admin.post('/api/v1/check', this.checkBody(layer)), 'check').id;
  }

  /** A report of `n` findings, each its own issue (the code differs in letters: digits are masked). */
  report_(n = 2): string {
    const letters = 'abcdefghijklmnopqrstuvwxyz';
    return semgrepReport(
      Array.from({ length: n }, (_, i) => ({
        rule: `matrix.rule.${i}`,
        line: 4,
        code: `call_${letters[i % 26]}${letters[Math.floor(i / 26) % 26]}(x)`,
        severity: 'ERROR' as const,
        path: `m${i}.py`,
      })),
    );
  }

  sbom(): string {
    return JSON.stringify({
      bomFormat: 'CycloneDX',
      specVersion: '1.5',
      version: 1,
      components: [{ type: 'library', name: 'left-pad', version: '1.3.0', purl: 'pkg:npm/left-pad@1.3.0' }],
    });
  }

  /** An issue of B no other route uses. */
  async spareIssue(): Promise<string> {
    const id = this.spares.pop();
    if (!id) throw new Error('the matrix ran out of spare issues of B: upload more in setUp');
    return id;
  }

  /** Uploads `n` findings to a check of B and waits until they are B's issues. */
  private async upload(check: string, n: number): Promise<string[]> {
    const scan = ok(
      await this.admin
        .withHeaders({ 'content-type': 'application/json' })
        .request('POST', `/api/v1/check/${check}/results`, undefined, this.report_(n)),
      'upload',
    );
    this.lastScan = scan.scan_result_id;
    const deadline = Date.now() + 60000;
    for (;;) {
      const items = ok(await this.admin.get(`/api/v1/issues?filter[scan]=${this.lastScan}&limit=100`)).items as Json[];
      if (items.length === n) return items.map((i) => i.id);
      if (Date.now() > deadline) throw new Error(`scan ${this.lastScan} not ingested`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  ruleBody(params: Record<string, unknown>) {
    return { name: `rule ${uniqueSuffix()}`, rule_params: params, suppressing_status: 5, expiry_status: 1 };
  }
  async rule(params: Record<string, unknown>): Promise<string> {
    return ok(await this.admin.post('/api/v1/security-rule', this.ruleBody(params)), 'security rule').id;
  }

  /** A gate linked to B's layer (with inform, so B's scans are not locked by it). */
  async gate(): Promise<string> {
    const id = ok(await this.admin.post('/api/v1/quality-gate', { name: `gate ${uniqueSuffix()}` }), 'gate').id;
    ok(
      await this.admin.post('/api/v1/quality-gate/link-pipe', {
        layer_id: this.layerB,
        quality_gate_id: id,
        action: 'inform',
      }),
      'gate link',
    );
    return id;
  }
  conditionBody(gate: string) {
    return {
      quality_gate_id: gate,
      condition_type: 'severity',
      condition_value: 'critical',
      operator: 'equal',
      value: 0,
    };
  }

  policyBody() {
    return { name: `policy ${uniqueSuffix()}`, project_tags: [this.tagB], quality_gates: [] };
  }
  async policy(): Promise<string> {
    return ok(await this.admin.post('/api/v1/policy', this.policyBody()), 'policy').id;
  }

  slaPolicyBody() {
    return {
      name: `sla ${uniqueSuffix()}`,
      project_tags: [],
      project_codes: [this.b],
      days: { critical: 7, high: 30, medium: 90, low: null, info: null },
      known_exploited_days: null,
    };
  }
  async slaPolicy(): Promise<string> {
    return ok(await this.admin.post('/api/v1/sla-policy', this.slaPolicyBody()), 'SLA policy').id;
  }

  trackerBody(codes: string[]) {
    return {
      name: `jira ${uniqueSuffix()}`,
      type: 'jira',
      url: this.jira.url,
      credentials: { username: JIRA.email, password: JIRA.apiToken },
      sync_enabled: false,
      projects: codes.map((c) => ({ project_code: c, tracker_project: 'SEC', issue_type: 'Task' })),
    };
  }
  async tracker(codes = [this.b]): Promise<string> {
    return ok(await this.admin.post('/api/v1/tracker', this.trackerBody(codes)), 'tracker').id;
  }

  notifierBody(codes: string[]) {
    return { name: `hook ${uniqueSuffix()}`, settings: { url: 'http://127.0.0.1:9/hook' }, project_codes: codes };
  }
  async notifier(codes = [this.b]): Promise<string> {
    return ok(await this.admin.post('/api/v1/notifier', this.notifierBody(codes)), 'notifier').id;
  }

  reportBody(codes: string[]) {
    return { name: `report ${uniqueSuffix()}`, type: 'summary', filter: { period: 'all', project_code: codes } };
  }
  async report(codes = [this.b]): Promise<string> {
    return ok(await this.admin.post('/api/v1/report', this.reportBody(codes)), 'report').id;
  }

  roleBody(rights: Record<string, PermissionLetter[]>, scopes: string[] = []) {
    const code = `mx_${uniqueSuffix()}`;
    return { role_code: code, role_name: code, roles: rights, system_scopes: scopes };
  }
  async role(rights: Record<string, PermissionLetter[]>, scopes: string[] = []): Promise<string> {
    return ok(await this.admin.post('/api/v1/role', this.roleBody(rights, scopes)), 'role').role_code;
  }

  userBody(roles: string[]) {
    const password = strongPassword();
    return { username: `mx_${uniqueSuffix()}`, password, password_confirmation: password, roles };
  }
  async user(roles: string[]): Promise<string> {
    return ok(await this.admin.post('/api/v1/user', this.userBody(roles)), 'user').id;
  }

  groupBody() {
    return { name: `group ${uniqueSuffix()}`, roles: [this.roleB], project_codes: [this.b] };
  }
  async group(): Promise<string> {
    return ok(await this.admin.post('/api/v1/group', this.groupBody()), 'group').id;
  }

  /** A signed-in user whose one role grants `rights`, limited to `scopes` when given. */
  async principal(rights: Record<string, PermissionLetter[]>, scopes: string[] = []): Promise<Api> {
    return this.principalWith([await this.role(rights, scopes)]);
  }

  /** A signed-in user holding these roles. */
  async principalWith(roles: string[]): Promise<Api> {
    const body = this.userBody(roles);
    ok(await this.admin.post('/api/v1/user', body), 'principal');
    return this.signIn(body.username, body.password);
  }

  /** A new login session of the same user as `api` (logging out ends only that one). */
  async session(api: Api): Promise<Api> {
    const c = this.credentials.get(api);
    if (!c) throw new Error('not a principal of the matrix');
    return this.signIn(c.username, c.password);
  }

  private async signIn(username: string, password: string): Promise<Api> {
    const api = this.t.anon.as(await this.t.anon.login(username, password));
    this.credentials.set(api, { username, password });
    return api;
  }

  /** A user with no role of its own whose user group grants every key and letter on every project. */
  async principalThroughGroup(): Promise<Api> {
    const role = await this.role(allRights());
    const body = this.userBody([]);
    const id = ok(await this.admin.post('/api/v1/user', body), 'grouped user').id;
    ok(await this.admin.post('/api/v1/group', { name: `every key ${uniqueSuffix()}`, user_ids: [id], roles: [role] }));
    return this.signIn(body.username, body.password);
  }
}

/** Every key of the catalogue with every letter, less what `without` names (a key, or one letter of it). */
export function allRights(without?: { key: string; letter?: PermissionLetter }): Record<string, PermissionLetter[]> {
  const rights: Record<string, PermissionLetter[]> = {};
  for (const { key } of PERMISSION_KEYS) {
    if (without?.key === key && !without.letter) continue;
    rights[key] = LETTERS.filter((l) => !(without?.key === key && without.letter === l));
  }
  return rights;
}
