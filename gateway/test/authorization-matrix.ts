import { randomUUID } from 'node:crypto';
import type { MatrixFixtures } from './authorization-fixtures';
import { ok } from './authorization-fixtures';

/** One request of the matrix: the route's method, a concrete path, and a body. */
export interface Probe {
  path: string;
  body?: unknown;
  /** A body sent as it is, with this content type (uploads). */
  raw?: { contentType: string; text: string };
}

/**
 * What a caller limited to project A gets for a probe aimed at project B or at every project:
 * - `status`: one of these statuses;
 * - `hidden`: 200 (or 403/404) with none of B's codes, tags and ids in the body;
 * - `bulk`: 403, or 200 with no id done (each `not_found`, `conflict` or `forbidden`).
 */
export type Outcome = { status: number[] } | { hidden: true } | { bulk: true };

export const REFUSED: Outcome = { status: [403, 404] };
/** A body naming B's object: refused, or answered as for an id that does not exist (400 naming the field). */
export const UNKNOWN: Outcome = { status: [400, 403, 404] };
export const NOT_FOUND: Outcome = { status: [404] };
export const FORBIDDEN: Outcome = { status: [403] };
export const HIDDEN: Outcome = { hidden: true };
export const BULK: Outcome = { bulk: true };

/**
 * A route's row of the matrix. `probe` makes the request (it may make a fresh object of B first, so a
 * probe that deletes has its own); `unscoped` is what a caller holding every key on every project
 * gets for it (200 unless said); `scoped` is what the caller limited to project A gets, where the
 * route's project scope lets the service decide (`project`, `project-set`, `grants`).
 */
export interface MatrixEntry {
  probe: (fx: MatrixFixtures) => Probe | Promise<Probe>;
  unscoped?: number | number[];
  scoped?: Outcome;
}

const ZERO = '00000000-0000-4000-8000-000000000000';
const inAWeek = () => new Date(Date.now() + 7 * 86400000).toISOString();
const get = (path: (fx: MatrixFixtures) => string, scoped?: Outcome, unscoped?: number | number[]): MatrixEntry => ({
  probe: (fx) => ({ path: path(fx) }),
  scoped,
  unscoped,
});
const send = (
  path: (fx: MatrixFixtures) => string,
  body: (fx: MatrixFixtures) => unknown,
  scoped?: Outcome,
  unscoped?: number | number[],
): MatrixEntry => ({
  probe: async (fx) => ({ path: path(fx), body: await body(fx) }),
  scoped,
  unscoped,
});
/** A bulk deletion of a fresh object of B. */
const bulkDelete = (path: string, fresh: (fx: MatrixFixtures) => Promise<string>, key = 'ids'): MatrixEntry =>
  send(
    () => path,
    async (fx) => ({ [key]: [await fresh(fx)] }),
    BULK,
  );

/** The matrix: every operation of the route table that is not gone (the gateway's own are tested elsewhere). */
export const MATRIX: Record<string, MatrixEntry> = {
  // ---- identity: sessions, login settings (unscoped), tokens
  login: send(
    () => '/api/v1/auth/login',
    () => ({}),
    undefined,
    400,
  ),
  me: get(() => '/api/v1/auth/me'),
  logout: send(
    () => '/api/v1/auth/logout',
    () => ({}),
  ),
  changeOwnPassword: send(
    () => '/api/v1/auth/password',
    () => ({}),
    undefined,
    400,
  ),
  ldapAllowed: get(() => '/api/v1/ldap/allowed'),
  getLdapSettings: get(() => '/api/v1/ldap/settings'),
  // An invalid body: the matrix must not change the directory settings the other suites use.
  updateLdapSettings: send(
    () => '/api/v1/ldap/settings',
    () => ({ urls: ['not a url'] }),
    undefined,
    400,
  ),
  testLdap: send(
    () => '/api/v1/ldap/test',
    () => ({}),
  ),
  getSsoSettings: get(() => '/api/v1/sso/settings'),
  updateSsoSettings: send(
    () => '/api/v1/sso/settings',
    () => ({ issuer: 'not a url' }),
    undefined,
    400,
  ),
  ssoLogin: get(() => '/api/v1/sso/login', undefined, 409),
  ssoCallback: get(() => '/api/v1/sso/callback', undefined, 409),
  ssoAllowed: get(() => '/api/v1/sso/allowed'),
  createToken: send(
    () => '/api/v1/token',
    () => ({ name: 'matrix', expires_at: new Date(Date.now() + 86400000).toISOString() }),
  ),
  listTokens: get(() => '/api/v1/tokens'),
  revokeTokens: send(
    () => '/api/v1/tokens',
    () => ({ ids: [ZERO] }),
  ),
  listPermissions: get(() => '/api/v1/permissions'),
  checkPermission: get(() => '/api/v1/permissions/check?key=issues.issues&letter=r'),

  // ---- identity: grants (the escalation rule). B's role gives issues.issues:r on B only.
  createRole: send(
    () => '/api/v1/role',
    (fx) => fx.roleBody({ 'issues.issues': ['r'] }),
    FORBIDDEN,
  ),
  listRoles: get(() => '/api/v1/roles?limit=1000', HIDDEN),
  getRole: get((fx) => `/api/v1/role/${fx.roleB}`, REFUSED),
  updateRole: send(
    (fx) => `/api/v1/role/${fx.roleB}`,
    (fx) => ({ roles: { 'issues.issues': ['r'] }, system_scopes: [`project:${fx.b}`] }),
    FORBIDDEN,
  ),
  deleteRoles: bulkDelete('/api/v1/roles', (fx) => fx.role({ 'issues.issues': ['r'] }, [`project:${fx.b}`])),
  createUser: send(
    () => '/api/v1/user',
    (fx) => fx.userBody([fx.roleB]),
    FORBIDDEN,
  ),
  // Users belong to no project: a caller limited to A sees them, and the roles they hold by name.
  listUsers: get(() => '/api/v1/users', { status: [200] }),
  getUser: get((fx) => `/api/v1/user/${fx.userB}`, { status: [200] }),
  updateUser: send(
    (fx) => `/api/v1/user/${fx.userB}`,
    () => ({ display_name: 'Matrix user of B' }),
    FORBIDDEN,
  ),
  deleteUsers: bulkDelete('/api/v1/users', (fx) => fx.user([fx.roleB])),
  restoreUsers: bulkDelete('/api/v1/restore-users', async (fx) => {
    const id = await fx.user([fx.roleB]);
    ok(await fx.admin.delete('/api/v1/users', { ids: [id] }));
    return id;
  }),
  createGroup: send(
    () => '/api/v1/group',
    (fx) => fx.groupBody(),
    FORBIDDEN,
  ),
  listGroups: get(() => '/api/v1/groups?limit=1000', HIDDEN),
  getGroup: get((fx) => `/api/v1/group/${fx.groupB}`, REFUSED),
  updateGroup: send(
    (fx) => `/api/v1/group/${fx.groupB}`,
    () => ({ description: 'Matrix group of B' }),
    REFUSED,
  ),
  deleteGroups: bulkDelete('/api/v1/groups', (fx) => fx.group()),

  // ---- license (unscoped)
  getLicense: get(() => '/api/v1/license'),
  installLicense: send(
    () => '/api/v1/license',
    () => ({ license: 'not a license' }),
    undefined,
    400,
  ),
  licenseStatus: get(() => '/api/v1/license/status'),
  licenseEnvironment: get(() => '/api/v1/license/environment'),

  // ---- catalog: sources and tools (project-set), custom fields (organisation), projects and layers (project)
  listSourceTypes: get(() => '/api/v1/source-types'),
  createSource: send(
    () => '/api/v1/source',
    (fx) => fx.sourceBody([fx.b]),
    UNKNOWN,
  ),
  listSources: get(() => '/api/v1/sources?limit=1000', HIDDEN),
  getSource: get((fx) => `/api/v1/source/${fx.sourceB}`, NOT_FOUND),
  updateSource: send(
    (fx) => `/api/v1/source/${fx.sourceB}`,
    () => ({ description: 'matrix' }),
    REFUSED,
  ),
  deleteSources: bulkDelete('/api/v1/sources', (fx) => fx.source([fx.b])),
  // B's source has no decoration until the unscoped probe of setSourceDecoration sets one.
  getSourceDecoration: get((fx) => `/api/v1/source/${fx.sourceB}/decoration`, NOT_FOUND, [200, 404]),
  setSourceDecoration: send(
    (fx) => `/api/v1/source/${fx.sourceB}/decoration`,
    () => ({ enabled: false, platform: 'github', api_url: 'http://127.0.0.1:9', token: 'matrix' }),
    REFUSED,
  ),
  testSourceConnection: send(
    () => '/api/v1/sources-type/1/test',
    (fx) => ({ source_id: fx.sourceB, settings: { url: 'http://127.0.0.1:9/matrix.git' } }),
    REFUSED,
  ),
  listToolTypes: get(() => '/api/v1/tool-types'),
  createTool: send(
    () => '/api/v1/tool',
    (fx) => fx.toolBody([fx.b]),
    UNKNOWN,
  ),
  listTools: get(() => '/api/v1/tools?limit=1000', HIDDEN),
  getTool: get((fx) => `/api/v1/tool/${fx.toolB}`, NOT_FOUND),
  updateTool: send(
    (fx) => `/api/v1/tool/${fx.toolB}`,
    () => ({ description: 'matrix' }),
    REFUSED,
  ),
  deleteTools: bulkDelete('/api/v1/tools', (fx) => fx.tool([fx.b])),
  cleanupTool: send(
    (fx) => `/api/v1/tool/${fx.toolB}/cleanup`,
    () => ({}),
    REFUSED,
  ),
  listFields: get(() => '/api/v1/fields'),
  createField: send(
    () => '/api/v1/field',
    () => ({ name: `Matrix field ${randomUUID()}`, type: 'text' }),
  ),
  getField: get(() => '/api/v1/field/2147483647', undefined, 404),
  updateField: send(
    () => '/api/v1/field/2147483647',
    () => ({ name: 'Matrix field' }),
    undefined,
    404,
  ),
  deleteFields: send(
    () => '/api/v1/fields',
    () => ({ ids: [2147483647] }),
  ),
  createProject: send(
    () => '/api/v1/project',
    (fx) => ({ code: `mx-new-${fx.sfx}-${Math.random().toString(36).slice(2, 8)}`, name: 'Matrix new project' }),
    FORBIDDEN,
  ),
  listProjects: get(() => '/api/v1/projects?limit=1000', HIDDEN),
  projectFilters: get(() => '/api/v1/projects/filter', HIDDEN),
  getProject: get((fx) => `/api/v1/project/${fx.b}`, NOT_FOUND),
  updateProject: send(
    (fx) => `/api/v1/project/${fx.b}`,
    () => ({ description: 'matrix' }),
    NOT_FOUND,
  ),
  deleteProjects: bulkDelete('/api/v1/projects', (fx) => freshProject(fx), 'codes'),
  restoreProjects: bulkDelete(
    '/api/v1/restore-projects',
    async (fx) => {
      const code = await freshProject(fx);
      ok(await fx.admin.delete('/api/v1/projects', { codes: [code] }));
      return code;
    },
    'codes',
  ),
  archiveProjects: bulkDelete('/api/v1/projects/archive', (fx) => freshProject(fx), 'codes'),
  unarchiveProjects: bulkDelete(
    '/api/v1/projects/unarchive',
    async (fx) => {
      const code = await freshProject(fx);
      ok(await fx.admin.put('/api/v1/projects/archive', { codes: [code] }));
      return code;
    },
    'codes',
  ),
  listResources: get(() => '/api/v1/resources'),
  listLayerTypes: get(() => '/api/v1/layer-types'),
  createLayer: send(
    () => '/api/v1/layer',
    (fx) => fx.layerBody(fx.b),
    UNKNOWN,
  ),
  listLayers: get(() => '/api/v1/layers?limit=1000', HIDDEN),
  getLayer: get((fx) => `/api/v1/layer/${fx.layerB}`, NOT_FOUND),
  updateLayer: send(
    (fx) => `/api/v1/layer/${fx.layerB}`,
    () => ({ description: 'matrix' }),
    NOT_FOUND,
  ),
  deleteLayers: bulkDelete('/api/v1/layers', (fx) => fx.layer(fx.b)),
  instantiateLayer: send(
    (fx) => `/api/v1/layer/${fx.templateB}/instantiate`,
    (fx) => ({ project_code: fx.b }),
    REFUSED,
  ),

  // ---- scanning (project)
  createCheck: send(
    () => '/api/v1/check',
    (fx) => fx.checkBody(fx.layerB),
    UNKNOWN,
  ),
  listChecks: get(() => '/api/v1/checks?limit=1000', HIDDEN),
  getCheck: get((fx) => `/api/v1/check/${fx.checkB}`, NOT_FOUND),
  updateCheck: send(
    (fx) => `/api/v1/check/${fx.checkB}`,
    (fx) => ({ source_auth: { branch_name: 'main' }, layer_id: fx.layerB }),
    NOT_FOUND,
  ),
  deleteChecks: bulkDelete('/api/v1/checks', (fx) => fx.check(fx.layerB)),
  deleteCheckGroup: {
    probe: async (fx) => {
      const body = { ...fx.checkBody(fx.layerB), tags: [{ tag_name: 'main' }, { tag_name: 'dev' }] };
      return { path: `/api/v1/check-group/${ok(await fx.admin.post('/api/v1/check', body)).group_id}` };
    },
    scoped: NOT_FOUND,
  },
  // A manual check is never run by Bulwark: 409 tells the caller to upload instead.
  runCheck: send(
    (fx) => `/api/v1/check/${fx.checkB}/run`,
    () => ({}),
    NOT_FOUND,
    409,
  ),
  runLayer: send(
    (fx) => `/api/v1/layer/${fx.layerB}/run`,
    () => ({}),
    NOT_FOUND,
  ),
  stopCheck: send(
    (fx) => `/api/v1/check/${fx.checkB}/stop`,
    () => ({}),
    NOT_FOUND,
    409,
  ),
  setCheckComparison: send(
    (fx) => `/api/v1/check/${fx.checkB}/comparison`,
    () => ({ mode: 'previous' }),
    NOT_FOUND,
  ),
  scanResultIssueStats: get((fx) => `/api/v1/scan-result/${fx.scanB}/stats/issues`, NOT_FOUND),
  compareScanResults: get((fx) => `/api/v1/scan-results/stats/compare?first=${fx.scanB}&second=${fx.scanB}`, NOT_FOUND),
  checkScanHistory: get((fx) => `/api/v1/scan-results/stats/${fx.checkB}`, NOT_FOUND),
  listScanResults: get(() => '/api/v1/scan-results?limit=1000', HIDDEN),
  scanResultFilters: get(() => '/api/v1/scan-results/filter', HIDDEN),
  getScanResult: get((fx) => `/api/v1/scan-result/${fx.scanB}`, NOT_FOUND),
  listScanFindings: get((fx) => `/api/v1/scan-result/${fx.scanB}/findings`, NOT_FOUND),
  downloadScanReport: get((fx) => `/api/v1/scan-result/${fx.scanB}/report`, NOT_FOUND),
  listReportFormats: get(() => '/api/v1/scan-report-formats'),
  uploadCheckResults: {
    probe: (fx) => ({
      path: `/api/v1/check/${fx.checkB}/results`,
      raw: { contentType: 'application/json', text: fx.report_() },
    }),
    scoped: NOT_FOUND,
  },
  uploadLayerSbom: {
    probe: (fx) => ({
      path: `/api/v1/layer/${fx.layerB}/sbom`,
      raw: { contentType: 'application/json', text: fx.sbom() },
    }),
    scoped: NOT_FOUND,
  },
  listSboms: get(() => '/api/v1/sboms?limit=1000', HIDDEN),
  listDependencies: get(() => '/api/v1/dependencies?limit=1000', HIDDEN),
  dependencyFilters: get(() => '/api/v1/dependencies/filter', HIDDEN),

  // ---- issues (project)
  listIssues: get(() => '/api/v1/issues?limit=1000', HIDDEN),
  exportIssues: get(() => '/api/v1/issues/export', HIDDEN),
  exportLayerCyclonedx: get((fx) => `/api/v1/layer/${fx.layerB}/sbom`, NOT_FOUND),
  countIssues: get((fx) => `/api/v1/issues/count?filter[project_code]=${fx.b}`, HIDDEN),
  countIssuesGrouped: get(() => '/api/v1/issues/count/grouped?group_by=severity&group_by=status', HIDDEN),
  issueFilterValues: get(() => '/api/v1/issues/filter', HIDDEN),
  issueBasicFilter: get(() => '/api/v1/issues/basic-filter', HIDDEN),
  issueCvssSeverities: get(() => '/api/v1/issues/cvss-severities', HIDDEN),
  deleteIssues: send(
    () => '/api/v1/issues',
    async (fx) => ({ ids: [await fx.spareIssue()] }),
    BULK,
  ),
  changeIssuesStatus: send(
    () => '/api/v1/issues/status',
    (fx) => ({ ids: [fx.issuesB[0]], status_id: 2 }),
    BULK,
  ),
  getIssue: get((fx) => `/api/v1/issue/${fx.issuesB[0]}`, NOT_FOUND),
  updateIssue: send(
    (fx) => `/api/v1/issue/${fx.issuesB[0]}`,
    () => ({ assignee: 'matrix' }),
    NOT_FOUND,
  ),
  issueHistory: get((fx) => `/api/v1/issue/${fx.issuesB[0]}/history`, NOT_FOUND),
  addIssueComment: send(
    (fx) => `/api/v1/issue/${fx.issuesB[0]}/comment`,
    () => ({ message: 'matrix' }),
    NOT_FOUND,
  ),
  listIssueComments: get((fx) => `/api/v1/issue/${fx.issuesB[0]}/comments`, NOT_FOUND),
  similarIssues: get((fx) => `/api/v1/issue/${fx.issuesB[0]}/similar`, NOT_FOUND),
  linkDuplicates: send(
    (fx) => `/api/v1/issue/${fx.issuesB[0]}/duplicates`,
    (fx) => ({ ids: [fx.issuesB[0]], unlink: true }),
    NOT_FOUND,
  ),

  // ---- issues: statuses and deduplication (organisation)
  listStatuses: get(() => '/api/v1/issues/statuses'),
  listTransitions: get(() => '/api/v1/issues/statuses/transitions'),
  createTransition: send(
    () => '/api/v1/issues/statuses/transition',
    () => ({ from_status_id: 1, to_status_id: 2 }),
    undefined,
    [200, 409],
  ),
  deleteTransitions: send(
    () => '/api/v1/issues/statuses/transitions',
    () => ({ ids: [ZERO] }),
  ),
  listDedupRules: get(() => '/api/v1/deduplicate-rules'),
  createDedupRule: send(
    () => '/api/v1/deduplicate-rule',
    () => ({ name: 'Matrix', tool_name: `matrix-${randomUUID()}`, fields: ['rule_id'] }),
  ),
  updateDedupRule: send(
    () => `/api/v1/deduplicate-rule/${ZERO}`,
    () => ({ name: 'Matrix', fields: ['rule_id'] }),
    undefined,
    404,
  ),
  deleteDedupRules: send(
    () => '/api/v1/deduplicate-rules',
    () => ({ ids: [ZERO] }),
  ),

  // ---- issues: security rules, gates and policies (project-set)
  createSecurityRule: send(
    () => '/api/v1/security-rule',
    (fx) => fx.ruleBody({ active_for_all: true, cve: 'CVE-1999-0001' }),
    FORBIDDEN,
  ),
  listSecurityRules: get(() => '/api/v1/security-rules?limit=1000', HIDDEN),
  securityRuleFilterValues: get(() => '/api/v1/security-rules/filter', HIDDEN),
  getSecurityRule: get((fx) => `/api/v1/security-rule/${fx.ruleB}`, NOT_FOUND),
  updateSecurityRule: send(
    (fx) => `/api/v1/security-rule/${fx.ruleAll}`,
    (fx) => fx.ruleBody({ active_for_all: true, cve: 'CVE-1999-0001' }),
    FORBIDDEN,
  ),
  deleteSecurityRules: bulkDelete('/api/v1/security-rules', (fx) =>
    fx.rule({ active_for_all: false, project_codes: [fx.b], cve: 'CVE-1999-0001' }),
  ),
  createQualityGate: send(
    () => '/api/v1/quality-gate',
    () => ({ name: 'Matrix gate' }),
    { status: [200] },
  ),
  listQualityGates: get(() => '/api/v1/quality-gates?limit=1000', HIDDEN),
  getQualityGate: get((fx) => `/api/v1/quality-gate/${fx.gateB}`, NOT_FOUND),
  updateQualityGate: send(
    (fx) => `/api/v1/quality-gate/${fx.gateB}`,
    () => ({ name: 'Matrix gate of B' }),
    REFUSED,
  ),
  deleteQualityGates: bulkDelete('/api/v1/quality-gates', (fx) => fx.gate()),
  createCondition: send(
    () => '/api/v1/condition',
    (fx) => fx.conditionBody(fx.gateB),
    UNKNOWN,
  ),
  updateCondition: send(
    (fx) => `/api/v1/condition/${fx.conditionB}`,
    (fx) => fx.conditionBody(fx.gateB),
    REFUSED,
  ),
  deleteConditions: bulkDelete('/api/v1/conditions', async (fx) => {
    return ok(await fx.admin.post('/api/v1/condition', fx.conditionBody(fx.gateB))).id;
  }),
  linkGatesToLayer: send(
    () => '/api/v1/quality-gate/link-layer',
    (fx) => ({ layer_id: fx.layerB, quality_gates: [{ quality_gate_id: fx.gateB, action: 'inform' }] }),
    UNKNOWN,
  ),
  linkGateToPipe: send(
    () => '/api/v1/quality-gate/link-pipe',
    (fx) => ({ layer_id: fx.layerB, quality_gate_id: fx.gateB, action: 'inform' }),
    UNKNOWN,
  ),
  layerGateState: get((fx) => `/api/v1/quality-gate/layer/${fx.layerB}`, NOT_FOUND),
  createPolicy: send(
    () => '/api/v1/policy',
    (fx) => fx.policyBody(),
    FORBIDDEN,
  ),
  listPolicies: get(() => '/api/v1/policies?limit=1000', HIDDEN),
  updatePolicy: send(
    (fx) => `/api/v1/policy/${fx.policyB}`,
    (fx) => fx.policyBody(),
    REFUSED,
  ),
  deletePolicies: bulkDelete('/api/v1/policies', (fx) => fx.policy()),
  createSlaPolicy: send(
    () => '/api/v1/sla-policy',
    (fx) => fx.slaPolicyBody(),
    FORBIDDEN,
  ),
  listSlaPolicies: get(() => '/api/v1/sla-policies?limit=1000', HIDDEN),
  getSlaPolicy: get((fx) => `/api/v1/sla-policy/${fx.slaPolicyB}`, NOT_FOUND),
  updateSlaPolicy: send(
    (fx) => `/api/v1/sla-policy/${fx.slaPolicyB}`,
    (fx) => fx.slaPolicyBody(),
    REFUSED,
  ),
  deleteSlaPolicies: bulkDelete('/api/v1/sla-policies', (fx) => fx.slaPolicy()),

  // ---- task trackers (project-set) and tickets (project)
  createTracker: send(
    () => '/api/v1/tracker',
    (fx) => fx.trackerBody([fx.b]),
    FORBIDDEN,
  ),
  listTrackers: get(() => '/api/v1/trackers?limit=1000', HIDDEN),
  getTracker: get((fx) => `/api/v1/tracker/${fx.trackerB}`, NOT_FOUND),
  updateTracker: send(
    (fx) => `/api/v1/tracker/${fx.trackerB}`,
    (fx) => {
      const { credentials: _kept, ...body } = fx.trackerBody([fx.b]);
      return body;
    },
    REFUSED,
  ),
  deleteTrackers: bulkDelete('/api/v1/trackers', (fx) => fx.tracker()),
  syncTracker: send(
    (fx) => `/api/v1/tracker/${fx.trackerB}/sync`,
    () => ({}),
    REFUSED,
  ),
  createTickets: send(
    () => '/api/v1/issues/tickets',
    async (fx) => ({ tracker_id: fx.trackerB, ids: [await fx.spareIssue()] }),
    BULK,
  ),
  createIssueTicket: {
    probe: async (fx) => ({ path: `/api/v1/issue/${await fx.spareIssue()}/ticket`, body: { tracker_id: fx.trackerB } }),
    scoped: REFUSED,
  },
  linkIssueTicket: {
    probe: async (fx) => ({
      path: `/api/v1/issue/${await fx.spareIssue()}/ticket`,
      body: { tracker_id: fx.trackerB, key: 'SEC-1' },
    }),
    scoped: REFUSED,
  },
  unlinkIssueTicket: {
    probe: async (fx) => {
      const issue = await fx.spareIssue();
      ok(await fx.admin.put(`/api/v1/issue/${issue}/ticket`, { tracker_id: fx.trackerB, key: 'SEC-1' }));
      return { path: `/api/v1/issue/${issue}/ticket` };
    },
    scoped: REFUSED,
  },

  // ---- issues: saved views (the caller's own; organisation scope)
  listIssueViews: get(() => '/api/v1/issue-views'),
  createIssueView: send(
    () => '/api/v1/issue-views',
    () => ({ name: `matrix ${randomUUID()}`, query: 'filter%5Bseverity%5D=high&sort=-severity' }),
  ),
  deleteIssueViews: send(
    () => '/api/v1/issue-views',
    () => ({ ids: [ZERO] }),
  ),

  // ---- issues: triage (assignment, analysis, risk acceptance)
  findAssignees: get(() => '/api/v1/issues/assignees?search=matrix'),
  assignIssue: send(
    (fx) => `/api/v1/issue/${fx.issuesB[0]}/assignee`,
    () => ({ assignee: null }),
    NOT_FOUND,
  ),
  assignIssues: send(
    () => '/api/v1/issues/assignee',
    (fx) => ({ ids: [fx.issuesB[0]], assignee: null }),
    UNKNOWN,
  ),
  setIssueAnalysis: send(
    (fx) => `/api/v1/issue/${fx.issuesB[0]}/analysis`,
    () => ({ state: 'in_triage' }),
    NOT_FOUND,
  ),
  createRiskAcceptance: send(
    () => '/api/v1/risk-acceptance',
    async (fx) => ({ issue_ids: [await fx.spareIssue()], reason: 'matrix', expires_at: inAWeek() }),
    UNKNOWN,
  ),
  listRiskAcceptances: get(() => '/api/v1/risk-acceptances?limit=1000', HIDDEN),
  getRiskAcceptance: get((fx) => `/api/v1/risk-acceptance/${fx.pendingAcceptanceB}`, NOT_FOUND),
  // Only the approver it names (B's user) decides: every caller of the matrix is refused, and it stays pending.
  approveRiskAcceptance: send(
    (fx) => `/api/v1/risk-acceptance/${fx.pendingAcceptanceB}/approve`,
    () => ({}),
    NOT_FOUND,
    403,
  ),
  rejectRiskAcceptance: send(
    (fx) => `/api/v1/risk-acceptance/${fx.pendingAcceptanceB}/reject`,
    () => ({}),
    NOT_FOUND,
    403,
  ),
  // Each probe revokes an acceptance of its own, which B's administrator made for a spare issue.
  revokeRiskAcceptance: {
    probe: async (fx) => {
      const body = { issue_ids: [await fx.spareIssue()], reason: 'matrix', expires_at: inAWeek() };
      const acceptance = ok(await fx.admin.post('/api/v1/risk-acceptance', body), 'risk acceptance');
      return { path: `/api/v1/risk-acceptance/${acceptance.id}/revoke`, body: {} };
    },
    scoped: NOT_FOUND,
  },

  // ---- reports (project-set)
  downloadSummaryReport: get(
    (fx) => `/api/v1/report/summary/download?format=json&filter[project_code]=${fx.b}`,
    NOT_FOUND,
  ),
  createReport: send(
    () => '/api/v1/report',
    (fx) => fx.reportBody([fx.b]),
    UNKNOWN,
  ),
  listReports: get(() => '/api/v1/reports?limit=1000', HIDDEN),
  getReport: get((fx) => `/api/v1/report/${fx.reportB}`, NOT_FOUND),
  updateReport: send(
    (fx) => `/api/v1/report/${fx.reportB}`,
    () => ({ data: { name: 'Matrix report of B' } }),
    NOT_FOUND,
  ),
  deleteReports: bulkDelete('/api/v1/reports', (fx) => fx.report()),
  downloadReport: get((fx) => `/api/v1/report/${fx.reportB}/download?format=json`, NOT_FOUND),

  // ---- notifications: notifiers (project-set), events (project), the error log (unscoped)
  createNotifier: send(
    () => '/api/v1/notifier',
    (fx) => fx.notifierBody([fx.b]),
    UNKNOWN,
  ),
  listNotifiers: get(() => '/api/v1/notifiers?limit=1000', HIDDEN),
  getNotifier: get((fx) => `/api/v1/notifier/${fx.notifierB}`, NOT_FOUND),
  updateNotifier: send(
    (fx) => `/api/v1/notifier/${fx.notifierB}`,
    (fx) => fx.notifierBody([fx.b]),
    REFUSED,
  ),
  deleteNotifiers: bulkDelete('/api/v1/notifiers', (fx) => fx.notifier()),
  testNotifier: send(
    (fx) => `/api/v1/notifier/${fx.notifierB}/test`,
    () => ({}),
    REFUSED,
  ),
  testNotifierType: send(
    () => '/api/v1/notifier-type/1/test',
    () => ({ settings: { url: 'http://127.0.0.1:9/hook' } }),
    { status: [200] },
  ),
  eventTemplate: get(() => '/api/v1/event-template'),
  listEvents: get(() => '/api/v1/events?limit=1000', HIDDEN),
  eventsCsv: get(() => '/api/v1/events/csv', HIDDEN),
  // ---- AI assistants: the MCP server (any authenticated caller; 400: the matrix's Accept lists no event stream) and its setting
  mcp: send(
    () => '/api/v1/mcp',
    () => ({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    undefined,
    400,
  ),
  getAssistantSettings: get(() => '/api/v1/mcp/settings'),
  // An invalid body: the matrix must not enable the write tools the MCP suite expects off.
  updateAssistantSettings: send(
    () => '/api/v1/mcp/settings',
    () => ({ write_tools: 'yes' }),
    undefined,
    400,
  ),
  getIntelSettings: get(() => '/api/v1/intel/settings'),
  // An invalid body: the matrix must not change the feed settings.
  updateIntelSettings: send(
    () => '/api/v1/intel/settings',
    () => ({ interval_hours: 0 }),
    undefined,
    400,
  ),
  // The test systems' feed addresses are a closed local port: each feed answers its error, nothing loads.
  syncIntel: send(
    () => '/api/v1/intel/sync',
    () => ({}),
  ),
  importIntel: {
    probe: () => ({ path: '/api/v1/intel/import?feed=kev', raw: { contentType: 'application/json', text: '{}' } }),
    unscoped: 400,
  },
  intelStatus: get(() => '/api/v1/intel/status'),
  listErrors: get(() => '/api/v1/errors-log'),
  errorsCsv: get(() => '/api/v1/errors-log/csv'),
  errorFilters: get(() => '/api/v1/errors-log/filters'),
};

async function freshProject(fx: MatrixFixtures): Promise<string> {
  const code = `mx-p-${fx.sfx}-${Math.random().toString(36).slice(2, 8)}`;
  ok(await fx.admin.post('/api/v1/project', { code, name: `Matrix ${code}` }));
  return code;
}
