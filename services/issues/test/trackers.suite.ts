import { expect } from 'chai';
import {
  GitServer,
  JiraContractServer,
  RedmineServer,
  requireInfra,
  startGitServer,
  startJiraContractServer,
  SystemUnderTest,
  uniqueSuffix,
  type Json,
  manualCheck,
} from '@bulwark/testkit';
import { MANUAL_TOOL_TYPE, scanSetup } from '../../scanning/test/scanning.suite';
import { semgrepReport } from './issues.suite';

const FIXED = 4;
const REOPEN = 8;

/** Redmine's own REST API, as a person or script working in Redmine would use it. */
function redmineApi(r: RedmineServer) {
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${r.url}${path}`, {
      method,
      headers: { 'x-redmine-api-key': r.apiKey, 'content-type': 'application/json' },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`Redmine ${method} ${path}: ${res.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
  return {
    issue: async (id: string) => (await call('GET', `/issues/${id}.json?include=journals`)).issue,
    create: async (subject: string) =>
      String(
        (await call('POST', '/issues.json', { issue: { project_id: r.project, tracker_id: 1, subject } })).issue.id,
      ),
    setStatus: async (id: string, name: string) => {
      const { issue_statuses } = await call('GET', '/issue_statuses.json');
      await call('PUT', `/issues/${id}.json`, {
        issue: { status_id: issue_statuses.find((s: { name: string }) => s.name === name).id },
      });
    },
  };
}

export function trackersSuite(t: SystemUnderTest): void {
  let git: GitServer;
  let env: Awaited<ReturnType<typeof scanSetup>>;

  const ok = (res: { status: number; body: Json }) => {
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body;
  };
  const fails = (res: { status: number; body: Json }, status: number, field?: string) => {
    expect(res.status, JSON.stringify(res.body)).to.equal(status);
    if (field) expect(res.body.error.details.map((d: { field: string }) => d.field)).to.include(field);
    return res.body;
  };
  const waitFor = async (what: string, probe: () => Promise<boolean>, ms = 30000) => {
    const deadline = Date.now() + ms;
    while (!(await probe())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 300));
    }
  };

  /** Uploads a Semgrep report into a new check of the test project; answers the issues it made. */
  const issuesFrom = async (results: { rule: string; line: number; code: string; path: string }[]) => {
    const check = await manualCheck(t.admin, env);
    const scan = ok(
      await t.admin
        .withHeaders({ 'content-type': 'application/json' })
        .request('POST', `/api/v1/check/${check}/results`, undefined, semgrepReport(results)),
    );
    let items: Json[] = [];
    await waitFor('ingestion', async () => {
      items = ok(await t.admin.get(`/api/v1/issues?filter[scan]=${scan.scan_result_id}&limit=100`)).items;
      return items.length === results.length;
    });
    return items;
  };

  const redmineTracker = (r: RedmineServer, extra: Record<string, unknown> = {}) => ({
    // Synced by request only, so the counts a sync answers are this test's alone.
    name: `redmine ${uniqueSuffix()}`,
    type: 'redmine',
    url: r.url,
    credentials: { api_key: r.apiKey },
    sync_enabled: false,
    projects: [{ project_code: env.code, tracker_project: r.project, issue_type: 'Bug' }],
    status_mapping: {
      to_bulwark: [{ tracker_status: 'Closed', status_id: FIXED }],
      to_tracker: [
        { status_id: REOPEN, tracker_status: 'In Progress' },
        { status_id: FIXED, tracker_status: 'Resolved' },
      ],
    },
    ...extra,
  });

  before(async function () {
    this.timeout(60000);
    git = await startGitServer();
    git.addRepository('app', { 'app.py': 'import subprocess\n' });
    env = await scanSetup(t, git, 'app', [MANUAL_TOOL_TYPE]);
  });
  after(async () => git?.close());

  describe('tracker settings', () => {
    it('creates, reads, lists and updates trackers; credentials are sealed and never returned, kept when an update leaves them out', async function () {
      const secret = `jira-token-${uniqueSuffix()}`;
      const body = {
        name: `jira ${uniqueSuffix()}`,
        type: 'jira',
        url: 'http://127.0.0.1:9/',
        credentials: { username: 'sec@example.com', password: secret },
        projects: [{ project_code: '*', tracker_project: 'SEC', issue_type: 'Task' }],
        status_mapping: { to_bulwark: [{ tracker_status: 'Done', status_id: FIXED }] },
        field_templates: { summary: '{{severity}} {{title}}', labels: ['bulwark'] },
      };
      const created = ok(await t.admin.post('/api/v1/tracker', body));
      expect(created).to.include({
        name: body.name,
        type: 'jira',
        url: 'http://127.0.0.1:9',
        has_credentials: true,
        jira_api_version: 3,
        sync_enabled: true,
        tickets: 0,
      });
      expect(created.status_mapping).to.deep.equal({
        to_bulwark: [{ tracker_status: 'Done', status_id: FIXED }],
        to_tracker: [],
      });
      expect(created.field_templates).to.deep.equal({
        summary: '{{severity}} {{title}}',
        description: '',
        labels: ['bulwark'],
      });
      for (const res of [
        created,
        ok(await t.admin.get(`/api/v1/tracker/${created.id}`)),
        ok(await t.admin.get('/api/v1/trackers?limit=1000')),
      ]) {
        expect(JSON.stringify(res)).to.not.contain(secret);
        for (const item of res.items ?? [res]) expect(item).to.not.have.property('credentials');
      }
      const list = ok(await t.admin.get('/api/v1/trackers?filter[type]=jira&limit=1000'));
      expect(list.items.map((i: Json) => i.id)).to.include(created.id);
      expect(list.items.every((i: Json) => i.type === 'jira')).to.equal(true);
      expect(
        ok(await t.admin.get(`/api/v1/trackers?search[name]=${encodeURIComponent(body.name)}`)).items.map(
          (i: Json) => i.id,
        ),
      ).to.deep.equal([created.id]);

      const { credentials: _c, ...withoutCredentials } = body;
      const updated = ok(
        await t.admin.put(`/api/v1/tracker/${created.id}`, {
          ...withoutCredentials,
          name: `${body.name} renamed`,
          sync_enabled: false,
        }),
      );
      expect(updated).to.include({ name: `${body.name} renamed`, sync_enabled: false, has_credentials: true });
      fails(
        await t.admin.put(`/api/v1/tracker/${created.id}`, { ...withoutCredentials, type: 'redmine' }),
        400,
        'credentials',
      );
      fails(await t.admin.get(`/api/v1/tracker/${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}`), 404);
      ok(await t.admin.delete('/api/v1/trackers', { ids: [created.id], force: true }));
    });

    it('documents the new routes in the OpenAPI document, with credentials write-only and the ticket on every issue', async () => {
      const doc = (await t.anon.get('/api/v1/swagger/doc.json')).body;
      const operations: [string, string][] = [
        ['/api/v1/tracker', 'post'],
        ['/api/v1/trackers', 'get'],
        ['/api/v1/tracker/{id}', 'get'],
        ['/api/v1/tracker/{id}', 'put'],
        ['/api/v1/trackers', 'delete'],
        ['/api/v1/tracker/{id}/sync', 'post'],
        ['/api/v1/issues/tickets', 'post'],
        ['/api/v1/issue/{id}/ticket', 'post'],
        ['/api/v1/issue/{id}/ticket', 'put'],
        ['/api/v1/issue/{id}/ticket', 'delete'],
      ];
      for (const [path, method] of operations)
        expect(doc.paths[path]?.[method], `${method} ${path}`).to.be.an('object');
      expect(doc.paths['/api/v1/trackers'].delete['x-permission']).to.deep.equal({
        key: 'integrations.trackers',
        letter: 'd',
        project_scope: 'project-set',
      });
      expect(doc.paths['/api/v1/tracker/{id}'].delete.responses).to.have.property('410');
      expect(doc.components.schemas.Tracker.properties).to.not.have.property('credentials');
      expect(doc.components.schemas.TrackerCredentials.writeOnly).to.equal(true);
      expect(doc.components.schemas.Issue.properties).to.have.property('ticket');
    });

    it('refuses bad input and hostile addresses with 400 naming the field', async () => {
      const base = { name: 'bad', type: 'redmine', url: 'http://127.0.0.1:9', credentials: { api_key: 'k' } };
      fails(await t.admin.post('/api/v1/tracker', { ...base, credentials: undefined }), 400, 'credentials');
      fails(await t.admin.post('/api/v1/tracker', { ...base, type: 'jira' }), 400, 'credentials');
      fails(await t.admin.post('/api/v1/tracker', { ...base, type: 'gitlab' }), 400, 'type');
      fails(await t.admin.post('/api/v1/tracker', { ...base, url: 'file:///etc/passwd' }), 400, 'url');
      fails(await t.admin.post('/api/v1/tracker', { ...base, url: 'http://admin:pw@127.0.0.1:9' }), 400, 'url');
      for (const hostile of [
        'http://169.254.169.254/latest/meta-data',
        'http://[::1]:8080',
        'http://0.0.0.0:80',
        'http://224.0.0.1',
      ]) {
        fails(await t.admin.post('/api/v1/tracker', { ...base, url: hostile }), 400, 'url');
      }
      fails(
        await t.admin.post('/api/v1/tracker', { ...base, field_templates: { summary: '{{title}} {{password}}' } }),
        400,
        'field_templates.summary',
      );
      fails(
        await t.admin.post('/api/v1/tracker', {
          ...base,
          status_mapping: { to_bulwark: [{ tracker_status: 'Closed', status_id: 999 }] },
        }),
        400,
        'status_mapping.to_bulwark[0].status_id',
      );
      fails(
        await t.admin.post('/api/v1/tracker', {
          ...base,
          projects: [
            { project_code: 'A', tracker_project: 'x', issue_type: 'Bug' },
            { project_code: 'A', tracker_project: 'y', issue_type: 'Bug' },
          ],
        }),
        400,
        'projects[1].project_code',
      );
      fails(await t.admin.post('/api/v1/tracker', { ...base, extra: 1 }), 400);
      fails(await t.admin.post('/api/v1/issues/tickets', { tracker_id: 'nope', ids: [] }), 400, 'tracker_id');
      fails(
        await t.admin.put(`/api/v1/issue/${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}/ticket`, {
          tracker_id: `${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}`,
          key: 'a b',
        }),
        400,
        'key',
      );
      expect(
        (await t.admin.delete(`/api/v1/tracker/${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}`)).status,
      ).to.equal(410);
    });
    it('gives one answer for an address the outbound policy refuses and a name that does not resolve', async () => {
      const base = { name: 'unreachable', type: 'redmine', credentials: { api_key: 'k' } };
      const nowhere = `no-such-host-${uniqueSuffix()}.invalid`;
      /** The answer with the host it names taken out. */
      const answer = (host: string, body: Json) => JSON.stringify(body.error).replaceAll(host, '<host>');
      const refused = fails(
        await t.admin.post('/api/v1/tracker', { ...base, url: 'http://169.254.169.254' }),
        400,
        'url',
      );
      const unresolvable = fails(
        await t.admin.post('/api/v1/tracker', { ...base, url: `http://${nowhere}` }),
        400,
        'url',
      );
      expect(answer('169.254.169.254', refused)).to.equal(answer(nowhere, unresolvable));
    });

    it('keeps stored credentials for the address they were stored for: an update elsewhere without them is a 400 naming url', async () => {
      const body = {
        name: `moving ${uniqueSuffix()}`,
        type: 'redmine',
        url: 'http://127.0.0.1:9/redmine',
        credentials: { api_key: `key-${uniqueSuffix()}` },
      };
      const created = ok(await t.admin.post('/api/v1/tracker', body));
      const { credentials: _c, ...withoutCredentials } = body;
      for (const url of ['https://127.0.0.1:9/redmine', 'http://127.0.0.1:10/redmine', 'http://localhost:9/redmine'])
        fails(await t.admin.put(`/api/v1/tracker/${created.id}`, { ...withoutCredentials, url }), 400, 'url');
      expect(ok(await t.admin.get(`/api/v1/tracker/${created.id}`)).url).to.equal('http://127.0.0.1:9/redmine');
      // Another path of the same server keeps them; another server takes them given again.
      expect(
        ok(
          await t.admin.put(`/api/v1/tracker/${created.id}`, {
            ...withoutCredentials,
            url: 'http://127.0.0.1:9/other',
          }),
        ),
      ).to.include({ url: 'http://127.0.0.1:9/other', has_credentials: true });
      expect(
        ok(await t.admin.put(`/api/v1/tracker/${created.id}`, { ...body, url: 'http://127.0.0.1:10/redmine' })),
      ).to.include({ url: 'http://127.0.0.1:10/redmine', has_credentials: true });
      ok(await t.admin.delete('/api/v1/trackers', { ids: [created.id], force: true }));
    });
  });

  describe('Redmine, running for real', () => {
    let r: RedmineServer;
    before(function () {
      r = requireInfra(this, 'redmine').redmine;
    });

    it('makes a ticket of an issue; closing it in Redmine moves the issue after a sync; Reopen and Fixed reach the ticket; bulk tickets group by rule', async function () {
      this.timeout(120000);
      const rm = redmineApi(r);
      const tracker = ok(await t.admin.post('/api/v1/tracker', redmineTracker(r)));
      const [a, b, c] = await issuesFrom([
        { rule: 'py.rm.shell', line: 3, code: 'os.system(cmd)', path: 'rm1.py' },
        { rule: 'py.rm.shell', line: 8, code: 'os.popen(cmd)', path: 'rm2.py' },
        { rule: 'py.rm.eval', line: 5, code: 'eval(x)', path: 'rm3.py' },
      ]).then((items) => ['rm1.py', 'rm2.py', 'rm3.py'].map((p) => items.find((i: Json) => i.file_path === p)));

      // One issue becomes one ticket in Redmine.
      const ticket = ok(await t.admin.post(`/api/v1/issue/${c.id}/ticket`, { tracker_id: tracker.id }));
      expect(ticket).to.include({
        tracker_id: tracker.id,
        tracker_type: 'redmine',
        status: 'New',
        closed: false,
        url: `${r.url}/issues/${ticket.key}`,
      });
      const inRedmine = await rm.issue(ticket.key);
      expect(inRedmine.project.name).to.equal('Bulwark tests');
      expect(inRedmine.tracker.name).to.equal('Bug');
      expect(inRedmine.subject).to.contain(c.title);
      expect(inRedmine.description).to.contain(c.id);
      expect(ok(await t.admin.get(`/api/v1/issue/${c.id}`)).ticket).to.deep.include({
        key: ticket.key,
        url: ticket.url,
        status: 'New',
      });
      const linkHistory = ok(await t.admin.get(`/api/v1/issue/${c.id}/history`)).items.find(
        (h: Json) => h.field === 'ticket',
      );
      expect(linkHistory).to.include({ actor_kind: 'user', actor: 'admin', old_value: null, new_value: ticket.key });
      fails(await t.admin.post(`/api/v1/issue/${c.id}/ticket`, { tracker_id: tracker.id }), 409);

      // A selection grouped by rule: the two shell issues share one ticket.
      const bulk = ok(
        await t.admin.post('/api/v1/issues/tickets', {
          tracker_id: tracker.id,
          ids: [a.id, b.id, c.id],
          group_by: 'rule',
        }),
      );
      expect(bulk.tickets).to.have.length(1);
      expect(bulk.tickets[0].issue_ids.sort()).to.deep.equal([a.id, b.id].sort());
      expect(bulk.results.find((x: Json) => x.id === c.id)).to.include({ status: 'conflict', ticket_key: ticket.key });
      const grouped = await rm.issue(bulk.tickets[0].key);
      expect(grouped.subject).to.contain('2 issues').and.contain('py.rm.shell');
      expect(grouped.description).to.contain(a.id).and.contain(b.id);

      // Closed in Redmine: the next sync moves the issue to Fixed, once.
      await rm.setStatus(ticket.key, 'Closed');
      const sync = ok(await t.admin.post(`/api/v1/tracker/${tracker.id}/sync`));
      expect(sync).to.include({ tickets: 2, changed: 1, issues_moved: 1, error: null });
      const fixed = ok(await t.admin.get(`/api/v1/issue/${c.id}`));
      expect(fixed).to.include({ status_id: FIXED });
      expect(fixed.ticket).to.include({ status: 'Closed', closed: true });
      const byTracker = ok(await t.admin.get(`/api/v1/issue/${c.id}/history?responsible_group_values=tracker`)).items;
      expect(byTracker).to.have.length(1);
      expect(byTracker[0]).to.include({
        field: 'status',
        old_value: '1',
        new_value: String(FIXED),
        actor: `tracker:${tracker.name}`,
      });
      expect(ok(await t.admin.post(`/api/v1/tracker/${tracker.id}/sync`))).to.include({ changed: 0, issues_moved: 0 });

      // Reopen in Bulwark moves the ticket to In Progress with a note; Fixed then to Resolved.
      ok(await t.admin.put(`/api/v1/issue/${c.id}`, { status_id: REOPEN }));
      await waitFor('the ticket to reopen', async () => (await rm.issue(ticket.key)).status.name === 'In Progress');
      expect((await rm.issue(ticket.key)).journals.map((j: Json) => j.notes).join('\n')).to.contain('is now Reopen');
      ok(await t.admin.put(`/api/v1/issue/${c.id}`, { status_id: FIXED }));
      await waitFor('the ticket to be resolved', async () => (await rm.issue(ticket.key)).status.name === 'Resolved');
      // Resolved maps to nothing in Bulwark: the sync records it and moves nothing.
      expect(ok(await t.admin.post(`/api/v1/tracker/${tracker.id}/sync`))).to.include({ changed: 1, issues_moved: 0 });
      expect(ok(await t.admin.get(`/api/v1/issue/${c.id}`))).to.include({ status_id: FIXED });

      // In use: deleting answers conflict until forced; forced, the links go and the issues say so.
      const del = ok(await t.admin.delete('/api/v1/trackers', { ids: [tracker.id, 'not-an-id'] }));
      expect(del.results).to.deep.equal([
        { id: tracker.id, status: 'conflict', message: del.results[0].message },
        { id: 'not-an-id', status: 'not_found' },
      ]);
      expect(del.results[0].message).to.contain('in use');
      expect(ok(await t.admin.delete('/api/v1/trackers', { ids: [tracker.id], force: true })).results).to.deep.equal([
        { id: tracker.id, status: 'deleted' },
      ]);
      expect(ok(await t.admin.get(`/api/v1/issue/${a.id}`)).ticket).to.equal(null);
      expect(
        ok(await t.admin.get(`/api/v1/issue/${a.id}/history`)).items.find(
          (h: Json) => h.field === 'ticket' && h.new_value === null,
        ),
      ).to.include({ old_value: bulk.tickets[0].key, comment: 'Tracker deleted' });
    });

    it('links an issue to an existing ticket, refuses a key Redmine does not have, unlinks; a tracker nothing uses is deleted without force', async function () {
      this.timeout(60000);
      const rm = redmineApi(r);
      const tracker = ok(await t.admin.post('/api/v1/tracker', redmineTracker(r, { projects: [] })));
      const [issue] = await issuesFrom([{ rule: 'py.rm.link', line: 2, code: 'pickle.loads(x)', path: 'rm-link.py' }]);
      const key = await rm.create('made by a person in Redmine');
      const linked = ok(await t.admin.put(`/api/v1/issue/${issue.id}/ticket`, { tracker_id: tracker.id, key }));
      expect(linked).to.include({ key, status: 'New', url: `${r.url}/issues/${key}` });
      fails(
        await t.admin.put(`/api/v1/issue/${issue.id}/ticket`, { tracker_id: tracker.id, key: '99999999' }),
        400,
        'key',
      );
      // No project mapping: a new ticket cannot be placed.
      expect(
        ok(await t.admin.post('/api/v1/issues/tickets', { tracker_id: tracker.id, ids: [issue.id] })).results[0],
      ).to.include({ status: 'conflict' });
      expect(ok(await t.admin.delete(`/api/v1/issue/${issue.id}/ticket`))).to.deep.equal({
        id: issue.id,
        status: 'unlinked',
        key,
      });
      expect(ok(await t.admin.delete(`/api/v1/issue/${issue.id}/ticket`))).to.deep.equal({
        id: issue.id,
        status: 'unchanged',
        key: null,
      });
      expect(ok(await t.admin.get(`/api/v1/issue/${issue.id}`)).ticket).to.equal(null);
      const history = ok(await t.admin.get(`/api/v1/issue/${issue.id}/history`)).items.filter(
        (h: Json) => h.field === 'ticket',
      );
      expect(history.map((h: Json) => [h.old_value, h.new_value])).to.deep.equal([
        [key, null],
        [null, key],
      ]);
      expect(history[0]).to.include({ actor_kind: 'user', actor: 'admin' });
      // Linked again, the tracker is in use; unlinked, its ticket is forgotten and nothing uses it.
      ok(await t.admin.put(`/api/v1/issue/${issue.id}/ticket`, { tracker_id: tracker.id, key }));
      expect(ok(await t.admin.get(`/api/v1/tracker/${tracker.id}`)).tickets).to.equal(1);
      expect(ok(await t.admin.delete('/api/v1/trackers', { ids: [tracker.id] })).results[0].status).to.equal(
        'conflict',
      );
      ok(await t.admin.delete(`/api/v1/issue/${issue.id}/ticket`));
      expect(ok(await t.admin.get(`/api/v1/tracker/${tracker.id}`)).tickets).to.equal(0);
      expect(ok(await t.admin.delete('/api/v1/trackers', { ids: [tracker.id] })).results).to.deep.equal([
        { id: tracker.id, status: 'deleted' },
      ]);
    });
  });

  describe('Jira, against the contract test server built from Jira\u2019s published REST shapes', () => {
    let jira: JiraContractServer;
    const email = 'bulwark@example.com';
    const apiToken = `token-${uniqueSuffix()}`;
    before(async () => {
      jira = await startJiraContractServer({ projects: ['SEC'], issueTypes: ['Task', 'Bug'], email, apiToken });
    });
    after(async () => jira?.close());

    const jiraTracker = (version: 2 | 3, password = apiToken) => ({
      name: `jira ${uniqueSuffix()}`,
      type: 'jira',
      url: jira.url,
      jira_api_version: version,
      credentials: { username: email, password },
      projects: [{ project_code: env.code, tracker_project: 'SEC', issue_type: 'Task' }],
      status_mapping: {
        to_bulwark: [{ tracker_status: 'Done', status_id: FIXED }],
        to_tracker: [{ status_id: REOPEN, tracker_status: 'To Do' }],
      },
      field_templates: { labels: ['bulwark', 'appsec'] },
      // v3 is left to the schedule (every 2 s in tests); v2 is synced by request, with exact counts.
      sync_enabled: version === 3,
    });

    for (const version of [3, 2] as const) {
      it(`v${version}: creates the issue, reads it by JQL, moves the Bulwark issue when Done, transitions and comments on Reopen`, async function () {
        this.timeout(60000);
        const tracker = ok(await t.admin.post('/api/v1/tracker', jiraTracker(version)));
        const [issue] = await issuesFrom([
          { rule: `py.jira.v${version}`, line: 7, code: 'yaml.load(x)', path: `jira-v${version}.py` },
        ]);
        const ticket = ok(await t.admin.post(`/api/v1/issue/${issue.id}/ticket`, { tracker_id: tracker.id }));
        expect(ticket).to.include({
          tracker_type: 'jira',
          status: 'To Do',
          closed: false,
          url: `${jira.url}/browse/${ticket.key}`,
        });
        const stored = jira.issues.get(ticket.key)!;
        expect(stored).to.include({ project: 'SEC', issueType: 'Task' });
        expect(stored.labels).to.deep.equal(['bulwark', 'appsec']);
        if (version === 3) expect(stored.description).to.include({ type: 'doc', version: 1 });
        else expect(stored.description).to.be.a('string').and.contain(issue.id);

        jira.setStatus(ticket.key, 'Done');
        if (version === 3) {
          await waitFor(
            'the scheduled sync to fix the issue',
            async () => ok(await t.admin.get(`/api/v1/issue/${issue.id}`)).status_id === FIXED,
          );
          expect(ok(await t.admin.get(`/api/v1/tracker/${tracker.id}`)).last_sync_at).to.be.a('string');
        } else
          expect(ok(await t.admin.post(`/api/v1/tracker/${tracker.id}/sync`))).to.include({
            changed: 1,
            issues_moved: 1,
            error: null,
          });
        expect(
          jira.requests.some(
            (q) =>
              q.method === 'POST' && q.path === (version === 3 ? '/search/jql' : '/search') && q.version === version,
          ),
        ).to.equal(true);
        expect(ok(await t.admin.get(`/api/v1/issue/${issue.id}`)).ticket).to.include({ status: 'Done', closed: true });

        ok(await t.admin.put(`/api/v1/issue/${issue.id}`, { status_id: REOPEN }));
        await waitFor('the Jira issue to reopen', async () => jira.statusOf(ticket.key) === 'To Do');
        await waitFor('the comment', async () =>
          jira.commentTexts(ticket.key).some((x) => x.includes('is now Reopen')),
        );
        // Fixed is mapped to no transition: it reaches the ticket as a comment.
        ok(await t.admin.put(`/api/v1/issue/${issue.id}`, { status_id: FIXED }));
        await waitFor('the Fixed comment', async () =>
          jira.commentTexts(ticket.key).some((x) => x.includes('is now Fixed')),
        );
        expect(jira.statusOf(ticket.key)).to.equal('To Do');
        ok(await t.admin.delete('/api/v1/trackers', { ids: [tracker.id], force: true }));
      });
    }

    it('makes one ticket when several requests ask for the same issue at once; the others answer 409', async function () {
      this.timeout(30000);
      const tracker = ok(await t.admin.post('/api/v1/tracker', jiraTracker(2)));
      const [issue] = await issuesFrom([
        { rule: 'py.jira.race', line: 3, code: 'pickle.loads(x)', path: 'jira-race.py' },
      ]);
      const answers = await Promise.all(
        Array.from({ length: 5 }, () => t.admin.post(`/api/v1/issue/${issue.id}/ticket`, { tracker_id: tracker.id })),
      );
      const statuses = answers.map((a) => a.status);
      expect(
        statuses.filter((x) => x === 200),
        JSON.stringify(statuses),
      ).to.have.length(1);
      expect(
        statuses.filter((x) => x === 409),
        JSON.stringify(statuses),
      ).to.have.length(4);
      const made = [...jira.issues.values()].filter((record) => JSON.stringify(record).includes(issue.id));
      expect(made.map((record) => record.key)).to.deep.equal([answers.find((a) => a.status === 200)!.body.key]);
      // The claims are released: once unlinked, the issue can have a ticket made again.
      ok(await t.admin.delete(`/api/v1/issue/${issue.id}/ticket`));
      expect(ok(await t.admin.post(`/api/v1/issue/${issue.id}/ticket`, { tracker_id: tracker.id })).key).to.not.equal(
        made[0].key,
      );
      ok(await t.admin.delete('/api/v1/trackers', { ids: [tracker.id], force: true }));
    });

    it('a refusal by Jira answers failed per issue, and the tracker stays usable', async function () {
      this.timeout(30000);
      const wrong = ok(await t.admin.post('/api/v1/tracker', jiraTracker(3, 'wrong-token')));
      const [issue] = await issuesFrom([
        { rule: 'py.jira.refused', line: 1, code: 'exec(x)', path: 'jira-refused.py' },
      ]);
      const res = ok(await t.admin.post('/api/v1/issues/tickets', { tracker_id: wrong.id, ids: [issue.id] }));
      expect(res.tickets).to.deep.equal([]);
      expect(res.results[0]).to.include({ id: issue.id, status: 'failed' });
      expect(res.results[0].message).to.contain('HTTP 401');
      expect(JSON.stringify(res)).to.not.contain('wrong-token');
      // The failure reaches the error log (through the issues service's outbox and the bus).
      let logged: { service: string; level: string; message: string; message_ru: string }[] = [];
      await waitFor('the failure in the error log', async () => {
        logged = ok(
          await t.admin.get(`/api/v1/errors-log?filter[code]=tracker.create_failed&filter[service]=issues&limit=1000`),
        ).items.filter((e: { subject: string }) => e.subject === wrong.id);
        return logged.length > 0;
      });
      expect(logged[0]).to.include({ service: 'issues', level: 'warning' });
      expect(logged[0].message).to.contain('HTTP 401').and.not.contain('wrong-token');
      expect(logged[0].message_ru).to.contain('HTTP 401');
      fails(await t.admin.post(`/api/v1/issue/${issue.id}/ticket`, { tracker_id: wrong.id }), 409);
      const sync = ok(await t.admin.post(`/api/v1/tracker/${wrong.id}/sync`));
      expect(sync).to.include({ tickets: 0, error: null });
      ok(await t.admin.delete('/api/v1/trackers', { ids: [wrong.id], force: true }));
    });
  });
}
