import { expect } from 'chai';
import {
  type Api,
  type ApiResponse,
  expectStatus,
  type GitServer,
  type Json,
  type SystemUnderTest,
  userWithRole,
} from '@bulwark/testkit';
import { ISSUE_VIEWS_PER_USER } from '@bulwark/contracts';
import { appRepository, ingestReport, uploadProject, type UploadProject } from './uploaded-issues';

const ZERO = '00000000-0000-4000-8000-000000000000';

/**
 * The issue list as a triage team uses it (issue #29, point 7): saved views that are each user's own,
 * an export of the list's filters as SARIF or CSV, and one rule for duplicates in every count.
 */
export function issueListSuite(t: SystemUnderTest): void {
  let git: GitServer;
  let P: UploadProject;
  let ids: string[];
  let alice: Api;
  let bob: Api;

  const ok = (res: ApiResponse) => expectStatus(res, 200);
  const problems = (res: ApiResponse) => {
    expect(res.status, JSON.stringify(res.body)).to.equal(400);
    return Object.fromEntries((res.body.error.details as Json[]).map((d) => [d.field, d.problem]));
  };
  const reader = async () => {
    const { token } = await userWithRole(t.admin, t.anon, { 'issues.issues': ['r'] }, [P.code]);
    return t.anon.as(token);
  };

  before(async function () {
    this.timeout(120000);
    git = await appRepository();
    P = await uploadProject(t, git);
    const run = Math.floor(Math.random() * 90000) + 10000;
    ids = (
      await ingestReport(
        t,
        P,
        [0, 1, 2].map((i) => `CVE-2033-${run}${i}`),
      )
    ).map((i) => i.id as string);
    [alice, bob] = await Promise.all([reader(), reader()]);
  });
  after(async () => git?.close());

  describe('saved views', () => {
    it('are each user\u2019s own: listed, named once, and deleted only by their owner', async () => {
      const query = `filter%5Bproject_code%5D=${P.code}&sort=-severity&limit=25`;
      const saved = ok(await alice.post('/api/v1/issue-views', { name: ' Criticals first ', query }));
      expect(saved).to.include({ name: 'Criticals first', query });
      expect(ok(await alice.get('/api/v1/issue-views')).items.map((v: Json) => v.id)).to.deep.equal([saved.id]);
      expect(ok(await bob.get('/api/v1/issue-views')).items).to.deep.equal([]);

      const again = await alice.post('/api/v1/issue-views', { name: 'Criticals first', query: '' });
      expect(again.status).to.equal(409);
      expect(again.body.error.details[0].field).to.equal('name');
      // Another user may use the same name: names are per user.
      ok(await bob.post('/api/v1/issue-views', { name: 'Criticals first', query: 'sort=status' }));

      expect(ok(await bob.delete('/api/v1/issue-views', { ids: [saved.id] })).results).to.deep.equal([
        { id: saved.id, status: 'not_found' },
      ]);
      expect(ok(await alice.get('/api/v1/issue-views')).items).to.have.length(1);
      expect(ok(await alice.delete('/api/v1/issue-views', { ids: [saved.id, ZERO] })).results).to.deep.equal([
        { id: saved.id, status: 'deleted' },
        { id: ZERO, status: 'not_found' },
      ]);
      expect(ok(await alice.get('/api/v1/issue-views')).items).to.deep.equal([]);
    });

    it('stops at the limit per user, also when saves race', async () => {
      const carol = await reader();
      const stored = ISSUE_VIEWS_PER_USER - 2;
      for (let i = 0; i < stored; i++) ok(await carol.post('/api/v1/issue-views', { name: `view ${i}`, query: '' }));
      // Ten saves at once with room for two: the count and the insert must not interleave.
      const racing = await Promise.all(
        Array.from({ length: 10 }, (_, i) => carol.post('/api/v1/issue-views', { name: `racing ${i}`, query: '' })),
      );
      expect(racing.map((r) => r.status).sort()).to.deep.equal([200, 200, ...Array(8).fill(409)]);
      expect(ok(await carol.get('/api/v1/issue-views')).items).to.have.length(ISSUE_VIEWS_PER_USER);
    });

    it('refuses a view that is not one, naming the field', async () => {
      expect(problems(await alice.post('/api/v1/issue-views', { name: '  ', query: '' }))).to.have.property('name');
      expect(
        problems(await alice.post('/api/v1/issue-views', { name: 'x', query: 'filter%5Bseverity%5D=high&cursor=abc' }))
          .query,
      ).to.match(/unknown parameters: cursor/);
      expect(
        problems(await alice.post('/api/v1/issue-views', { name: 'x', query: 'a'.repeat(4001) })),
      ).to.have.property('query');
      expect(
        problems(await alice.post('/api/v1/issue-views', { name: 'x', query: '', owner: 'bob' })),
      ).to.have.property('owner');
      expect(problems(await alice.delete('/api/v1/issue-views', { ids: [] }))).to.have.property('ids');
    });
  });

  describe('export of a view', () => {
    it('writes the filtered issues as CSV with a header, one issue a row', async () => {
      const res = await alice.download(`/api/v1/issues/export?format=csv&filter[project_code]=${P.code}`);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/csv/);
      expect(res.headers.get('content-disposition')).to.equal('attachment; filename="issues.csv"');
      const lines = res.body.toString('utf8').trimEnd().split('\r\n');
      expect(lines[0]).to.match(/^id,project_code,severity,title,status,scanner,/);
      expect(
        lines
          .slice(1)
          .map((l) => l.split(',')[0])
          .sort(),
      ).to.deep.equal([...ids].sort());

      const one = await alice.download(
        `/api/v1/issues/export?format=csv&filter[project_code]=${P.code}&search[cve]=${encodeURIComponent(
          ok(await alice.get(`/api/v1/issue/${ids[0]}`)).cve,
        )}`,
      );
      expect(one.body.toString('utf8').trimEnd().split('\r\n')).to.have.length(2);
      expect(problems(await alice.get('/api/v1/issues/export?format=xlsx'))).to.have.property('format');
    });
  });

  describe('duplicates in counts', () => {
    it('count the same in the list, the count and the grouped counts when duplicates are left out', async () => {
      const scope = `filter[project_code]=${P.code}`;
      const originals = `${scope}&filter[exclude_duplicates]=true`;
      ok(await t.admin.post(`/api/v1/issue/${ids[0]}/duplicates`, { ids: [ids[1]] }));
      try {
        expect(ok(await alice.get(`/api/v1/issues?${scope}`)).total, 'with duplicates').to.equal(3);
        expect(ok(await alice.get(`/api/v1/issues?${originals}`)).total).to.equal(2);
        expect(ok(await alice.get(`/api/v1/issues/count?${originals}`)).count).to.equal(2);
        const grouped = ok(
          await alice.get(`/api/v1/issues/count/grouped?${originals}&group_by=severity&group_by=status`),
        );
        expect(grouped.total).to.equal(2);
        expect(grouped.groups.reduce((n: number, g: Json) => n + g.count, 0)).to.equal(2);
        expect(
          ok(await alice.get(`/api/v1/issues?${scope}&filter[duplicate_of]=${ids[0]}`)).items.map((i: Json) => i.id),
        ).to.deep.equal([ids[1]]);
      } finally {
        ok(await t.admin.post(`/api/v1/issue/${ids[0]}/duplicates`, { ids: [ids[1]], unlink: true }));
      }
    });
  });
}
