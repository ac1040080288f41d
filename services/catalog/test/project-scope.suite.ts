import { expect } from 'chai';
import {
  ADMIN_PASSWORD,
  Api,
  GitServer,
  startGitServer,
  SystemUnderTest,
  uniqueSuffix,
  userWithRole,
  type Json,
} from '@bulwark/testkit';
import { startReceiver } from '../../notifications/test/notifications.suite';

const KEYS = [
  'catalog.sources',
  'catalog.tools',
  'catalog.projects',
  'notifications.notifiers',
  'notifications.events',
  'reporting.reports',
];

const ok = (res: { status: number; body: Json }): Json => {
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body;
};
const status = (res: { status: number; body: Json }, expected: number) =>
  expect(res.status, JSON.stringify(res.body)).to.equal(expected);
const ids = (items: Json[]) => items.map((i: { id: string }) => i.id);
const bulk = (res: { status: number; body: Json }) => ok(res).results.map((r: { status: string }) => r.status);

/**
 * Project scope of the objects that span projects in the catalog (sources, tools), notifications
 * (notifiers, the events log) and reporting (reports), and of custom fields, which are the
 * organisation's: a user limited to project A, holding every letter of their keys, against objects of
 * project B, of A and B, and of every project; and the same rights without a limit, which work as before.
 */
export function projectScopeSuite(t: SystemUnderTest): void {
  const suffix = uniqueSuffix();
  const [A, B] = [`scope-a-${suffix}`, `scope-b-${suffix}`];
  let admin: Api;
  let scoped: Api;
  let unscoped: Api;
  let git: GitServer;
  let repo: string;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  /** Nothing of B reaches the scoped caller: not its code, wherever it would have been. */
  const hidesB = (body: Json) => expect(JSON.stringify(body)).not.to.contain(B);

  const userWith = async (limitedTo: string[]) =>
    t.anon.as(
      (await userWithRole(admin, t.anon, Object.fromEntries(KEYS.map((k) => [k, ['r', 'w', 'x', 'd']])), limitedTo))
        .token,
    );

  const source = (codes: string[] | null) => ({
    name: `source ${suffix} ${uniqueSuffix()}`,
    source_type_id: 1,
    settings: { url: repo, branch_name: 'main', auth_method: 'Anonymous' },
    ...(codes ? { access_type: 'project', project_codes: codes } : { access_type: 'global' }),
  });
  const tool = (codes: string[] | null) => ({
    name: `tool ${suffix} ${uniqueSuffix()}`,
    type_id: 20,
    settings: { scan_result_lang: 'EN' },
    ...(codes ? { access_type: 'project', project_codes: codes } : { access_type: 'global' }),
  });
  const notifier = (codes: string[]) => ({
    name: `notifier ${suffix} ${uniqueSuffix()}`,
    settings: { url: receiver.url, rate_limit: 50 },
    events: ['report.ready'],
    project_codes: codes,
    active: false,
  });
  const connectionTest = (sourceId: string) => ({
    settings: { url: repo, branch_name: 'main', auth_method: 'Anonymous' },
    source_id: sourceId,
  });

  before(async function () {
    this.timeout(60000);
    admin = t.anon.as(await t.anon.login('admin', ADMIN_PASSWORD));
    for (const code of [A, B]) ok(await admin.post('/api/v1/project', { code, name: code }));
    scoped = await userWith([A]);
    unscoped = await userWith([]);
    git = await startGitServer();
    repo = git.addRepository('app', { 'README.md': '# app\n' });
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver?.close();
    await git?.close();
  });

  describe('sources and tools', () => {
    const src: Record<'b' | 'ab' | 'all' | 'a', string> = { b: '', ab: '', all: '', a: '' };
    const tl: Record<'b' | 'ab' | 'all', string> = { b: '', ab: '', all: '' };

    before(async () => {
      src.b = ok(await admin.post('/api/v1/source', source([B]))).id;
      src.ab = ok(await admin.post('/api/v1/source', source([A, B]))).id;
      src.all = ok(await admin.post('/api/v1/source', source(null))).id;
      src.a = ok(await admin.post('/api/v1/source', source([A]))).id;
      tl.b = ok(await admin.post('/api/v1/tool', tool([B]))).id;
      tl.ab = ok(await admin.post('/api/v1/tool', tool([A, B]))).id;
      tl.all = ok(await admin.post('/api/v1/tool', tool(null))).id;
    });

    it('shows global ones and those shared with its project, with only its own project code', async () => {
      const sources = ok(await scoped.get(`/api/v1/sources?search[name]=${suffix}&limit=1000`));
      expect(ids(sources.items)).to.have.members([src.ab, src.all, src.a]);
      hidesB(sources);
      expect(ok(await scoped.get(`/api/v1/source/${src.ab}`)).project_codes).to.deep.equal([A]);
      status(await scoped.get(`/api/v1/source/${src.b}`), 404);
      const tools = ok(await scoped.get(`/api/v1/tools?search[name]=${suffix}&limit=1000`));
      expect(ids(tools.items)).to.have.members([tl.ab, tl.all]);
      hidesB(tools);
      expect(ok(await scoped.get(`/api/v1/tool/${tl.ab}`)).project_codes).to.deep.equal([A]);
      status(await scoped.get(`/api/v1/tool/${tl.b}`), 404);
      const usable = ok(await scoped.get(`/api/v1/resources?filter[project_access]=${A}`));
      expect(ids(usable.sources)).to.include.members([src.ab, src.all, src.a]);
      expect(ids(usable.tools)).to.include.members([tl.ab, tl.all]);
      hidesB(usable);
      hidesB(ok(await scoped.get('/api/v1/resources')));
    });

    it('refuses to change, test, clean up or delete a shared or global one (403) and hides B\u2019s (404)', async () => {
      for (const id of [src.ab, src.all]) {
        status(await scoped.put(`/api/v1/source/${id}`, { name: 'taken over' }), 403);
        status(await scoped.post('/api/v1/sources-type/1/test', connectionTest(id)), 403);
      }
      status(await scoped.put(`/api/v1/source/${src.b}`, { name: 'taken over' }), 404);
      status(await scoped.post('/api/v1/sources-type/1/test', connectionTest(src.b)), 404);
      expect(bulk(await scoped.delete('/api/v1/sources', { ids: [src.ab, src.all, src.b] }))).to.deep.equal([
        'forbidden',
        'forbidden',
        'not_found',
      ]);
      for (const id of [tl.ab, tl.all]) {
        status(await scoped.put(`/api/v1/tool/${id}`, { name: 'taken over' }), 403);
        status(await scoped.post(`/api/v1/tool/${id}/cleanup`), 403);
      }
      status(await scoped.post(`/api/v1/tool/${tl.b}/cleanup`), 404);
      expect(bulk(await scoped.delete('/api/v1/tools', { ids: [tl.ab, tl.all, tl.b] }))).to.deep.equal([
        'forbidden',
        'forbidden',
        'not_found',
      ]);
      status(await scoped.put(`/api/v1/source/${src.a}`, { project_codes: [A, B] }), 400);
      status(await scoped.post('/api/v1/source', source(null)), 403);
      for (const id of [src.ab, src.all, src.b]) ok(await admin.get(`/api/v1/source/${id}`));
      for (const id of [tl.ab, tl.all, tl.b]) ok(await admin.get(`/api/v1/tool/${id}`));
    });

    it('works within its project: create, test, change, clean up and delete', async function () {
      this.timeout(30000);
      const own = ok(await scoped.post('/api/v1/source', source([A])));
      expect(ok(await scoped.post('/api/v1/sources-type/1/test', connectionTest(own.id))).ok).to.equal(true);
      expect(ok(await scoped.put(`/api/v1/source/${own.id}`, { name: `mine ${suffix}` })).name).to.equal(
        `mine ${suffix}`,
      );
      expect(bulk(await scoped.delete('/api/v1/sources', { ids: [own.id, src.a] }))).to.deep.equal([
        'deleted',
        'deleted',
      ]);
      const ownTool = ok(await scoped.post('/api/v1/tool', tool([A])));
      ok(await scoped.post(`/api/v1/tool/${ownTool.id}/cleanup`));
      expect(bulk(await scoped.delete('/api/v1/tools', { ids: [ownTool.id] }))).to.deep.equal(['deleted']);
    });

    it('leaves a caller of every project as it was: every code shown, shared and global ones changed', async function () {
      this.timeout(30000);
      expect(ok(await unscoped.get(`/api/v1/source/${src.ab}`)).project_codes).to.deep.equal([A, B].sort());
      expect(ok(await admin.get(`/api/v1/tool/${tl.ab}`)).project_codes).to.deep.equal([A, B].sort());
      ok(await unscoped.put(`/api/v1/source/${src.all}`, { name: `global ${suffix}` }));
      expect(ok(await unscoped.post('/api/v1/sources-type/1/test', connectionTest(src.ab))).ok).to.equal(true);
      ok(await unscoped.post(`/api/v1/tool/${tl.all}/cleanup`));
      expect(bulk(await unscoped.delete('/api/v1/tools', { ids: [tl.ab] }))).to.deep.equal(['deleted']);
    });
  });

  it('keeps custom fields the organisation\u2019s: a scoped caller reads them and cannot change them', async () => {
    const field = ok(await admin.post('/api/v1/field', { name: `field ${suffix}`, type: 'text' }));
    expect(ids(ok(await scoped.get('/api/v1/fields?limit=1000')).items)).to.include(field.id);
    ok(await scoped.get(`/api/v1/field/${field.id}`));
    status(await scoped.post('/api/v1/field', { name: `other ${suffix}`, type: 'text' }), 403);
    status(await scoped.put(`/api/v1/field/${field.id}`, { name: 'renamed' }), 403);
    status(await scoped.delete('/api/v1/fields', { ids: [field.id] }), 403);
    ok(await unscoped.put(`/api/v1/field/${field.id}`, { name: `renamed ${suffix}` }));
  });

  describe('webhook notifiers', () => {
    const n: Record<'b' | 'ab' | 'all' | 'a', string> = { b: '', ab: '', all: '', a: '' };

    before(async () => {
      n.b = ok(await admin.post('/api/v1/notifier', notifier([B]))).id;
      n.ab = ok(await admin.post('/api/v1/notifier', notifier([A, B]))).id;
      n.all = ok(await admin.post('/api/v1/notifier', notifier([]))).id;
      n.a = ok(await admin.post('/api/v1/notifier', notifier([A]))).id;
    });

    it('shows every-project ones and those sharing its project, with only its own project code', async () => {
      const list = ok(await scoped.get(`/api/v1/notifiers?search[name]=${suffix}&limit=1000`));
      expect(ids(list.items)).to.have.members([n.ab, n.all, n.a]);
      hidesB(list);
      expect(ok(await scoped.get(`/api/v1/notifier/${n.ab}`)).project_codes).to.deep.equal([A]);
      expect(ok(await scoped.get(`/api/v1/notifier/${n.all}`)).project_codes).to.deep.equal([]);
      status(await scoped.get(`/api/v1/notifier/${n.b}`), 404);
    });

    it('refuses to change, test or delete a shared or every-project one (403) and hides B\u2019s (404)', async () => {
      for (const id of [n.ab, n.all]) {
        status(await scoped.put(`/api/v1/notifier/${id}`, notifier([A])), 403);
        status(await scoped.post(`/api/v1/notifier/${id}/test`), 403);
      }
      status(await scoped.put(`/api/v1/notifier/${n.b}`, notifier([A])), 404);
      status(await scoped.post(`/api/v1/notifier/${n.b}/test`), 404);
      status(await scoped.put(`/api/v1/notifier/${n.a}`, notifier([A, B])), 400);
      status(await scoped.post('/api/v1/notifier', notifier([B])), 400);
      expect(bulk(await scoped.delete('/api/v1/notifiers', { ids: [n.ab, n.all, n.b] }))).to.deep.equal([
        'forbidden',
        'forbidden',
        'not_found',
      ]);
      for (const id of [n.ab, n.all, n.b])
        expect(ok(await admin.get(`/api/v1/notifier/${id}`)).name).to.contain(suffix);
    });

    it('works within its project: create (empty means its projects), change, test and delete', async () => {
      const own = ok(await scoped.post('/api/v1/notifier', notifier([])));
      expect(own.project_codes).to.deep.equal([A]);
      ok(await scoped.put(`/api/v1/notifier/${n.a}`, { ...notifier([A]), name: `mine ${suffix}` }));
      const before = receiver.received.length;
      expect(ok(await scoped.post(`/api/v1/notifier/${n.a}/test`)).delivered).to.equal(true);
      expect(receiver.received.length).to.equal(before + 1);
      expect(
        ok(await scoped.post('/api/v1/notifier-type/1/test', { settings: { url: receiver.url } })).delivered,
      ).to.equal(true);
      expect(bulk(await scoped.delete('/api/v1/notifiers', { ids: [own.id, n.a] }))).to.deep.equal([
        'deleted',
        'deleted',
      ]);
    });

    it('leaves a caller of every project as it was', async () => {
      expect(ok(await unscoped.get(`/api/v1/notifier/${n.ab}`)).project_codes).to.deep.equal([A, B]);
      ok(await unscoped.put(`/api/v1/notifier/${n.all}`, notifier([])));
      expect(ok(await unscoped.post(`/api/v1/notifier/${n.ab}/test`)).delivered).to.equal(true);
      expect(bulk(await unscoped.delete('/api/v1/notifiers', { ids: [n.b] }))).to.deep.equal(['deleted']);
    });
  });

  describe('reports and the events log', () => {
    const r: Record<'b' | 'ab' | 'all' | 'a', string> = { b: '', ab: '', all: '', a: '' };

    const waitFor = async <T>(what: string, probe: () => Promise<T | undefined>): Promise<T> => {
      const deadline = Date.now() + 60000;
      for (;;) {
        const found = await probe();
        if (found !== undefined) return found;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
    };
    const report = (codes: string[]) => ({
      name: `report ${suffix} ${uniqueSuffix()}`,
      type: 'summary',
      filter: { project_code: codes },
    });

    before(async function () {
      this.timeout(90000);
      r.b = ok(await admin.post('/api/v1/report', report([B]))).id;
      r.ab = ok(await admin.post('/api/v1/report', report([A, B]))).id;
      r.all = ok(await admin.post('/api/v1/report', report([]))).id;
      r.a = ok(await admin.post('/api/v1/report', report([A]))).id;
      for (const id of Object.values(r))
        await waitFor(`report ${id}`, async () => {
          const state = ok(await admin.get(`/api/v1/report/${id}`)).state;
          return state === 'ready' ? state : undefined;
        });
      await waitFor('the four report.ready events', async () => {
        const events = ok(await admin.get(`/api/v1/events?search[message]=${suffix}&filter[type]=report.ready`));
        return events.total === 4 ? events : undefined;
      });
    });

    it('opens only reports wholly within its project: one of A and B holds B\u2019s issues (404)', async () => {
      const list = ok(await scoped.get(`/api/v1/reports?search[name]=${suffix}&limit=1000`));
      expect(ids(list.items)).to.deep.equal([r.a]);
      hidesB(list);
      ok(await scoped.get(`/api/v1/report/${r.a}`));
      ok(await scoped.request('GET', `/api/v1/report/${r.a}/download?format=json`));
      for (const id of [r.b, r.ab, r.all]) {
        status(await scoped.get(`/api/v1/report/${id}`), 404);
        status(await scoped.request('GET', `/api/v1/report/${id}/download?format=json`), 404);
        status(await scoped.put(`/api/v1/report/${id}`, { data: { name: 'taken over' } }), 404);
      }
      expect(bulk(await scoped.delete('/api/v1/reports', { ids: [r.b, r.ab, r.all] }))).to.deep.equal([
        'not_found',
        'not_found',
        'not_found',
      ]);
      status(await scoped.post('/api/v1/report', report([B])), 400);
      status(await scoped.post('/api/v1/report', report([A, B])), 400);
      for (const id of [r.b, r.ab, r.all]) ok(await admin.get(`/api/v1/report/${id}`));
    });

    it('works within its project: create (empty means its projects), rename and delete', async () => {
      // Named apart from the suite's reports, so its own report.ready event stays out of the events test.
      const own = ok(await scoped.post('/api/v1/report', { ...report([]), name: `own ${uniqueSuffix()}` }));
      expect(own.filter.project_code).to.deep.equal([A]);
      ok(await scoped.put(`/api/v1/report/${r.a}`, { data: { name: `mine ${suffix}` } }));
      expect(bulk(await scoped.delete('/api/v1/reports', { ids: [own.id] }))).to.deep.equal(['deleted']);
      const all = ok(await unscoped.get(`/api/v1/reports?search[name]=${suffix}&limit=1000`));
      expect(ids(all.items)).to.include.members([r.b, r.ab, r.all, r.a]);
    });

    it('shows only its project\u2019s events, in the list and the CSV; events of several or no project are not its', async () => {
      const query = `search[message]=${suffix}&filter[type]=report.ready`;
      const events = ok(await scoped.get(`/api/v1/events?${query}`));
      expect(events.items.map((e: Json) => e.data.id)).to.deep.equal([r.a]);
      hidesB(events);
      expect(ok(await scoped.get(`/api/v1/events?${query}&filter[project_code]=${B}`)).total).to.equal(0);
      const csv = await scoped.download(`/api/v1/events/csv?${query}`);
      expect(csv.status).to.equal(200);
      const text = csv.body.toString('utf8');
      expect(text).to.contain(r.a);
      for (const hidden of [r.b, r.ab, r.all, B]) expect(text).not.to.contain(hidden);
      const everything = ok(await unscoped.get(`/api/v1/events?${query}`));
      expect(everything.items.map((e: Json) => e.data.id)).to.have.members(Object.values(r));
    });
  });
}
