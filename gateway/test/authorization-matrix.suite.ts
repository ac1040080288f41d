import { expect } from 'chai';
import { ROUTES } from '@bulwark/contracts';
import type { PermissionLetter, RouteSpec } from '@bulwark/platform';
import { Api, ApiResponse, SystemUnderTest } from '@bulwark/testkit';
import { allRights, MatrixFixtures, ok } from './authorization-fixtures';
import { MATRIX, Outcome, Probe } from './authorization-matrix';

/** Statuses of a bulk answer that say the id was acted on. */
const DONE = ['deleted', 'revoked', 'restored', 'archived', 'unarchived', 'changed'];

/** The gateway's public routes (documentation, browser session) are tested in their own suites; the rest of its own are here. */
const routes = ROUTES.filter((r) => r.service !== 'gateway' || r.access.kind !== 'public');

/**
 * The authorization matrix, generated from the route table: every operation, called by nobody (401),
 * by a caller holding every key but the route's (403 naming it), by one holding the route's key with
 * every letter but the route's (403), by a caller holding everything on project A only against an
 * object of project B or of every project (the route's project scope says what it gets), by a caller
 * holding every key on every project through a user group (the route's own answer), and by the admin.
 * An operation without a row in MATRIX fails the first test, so a new route cannot go unchecked.
 */
export function authorizationMatrix(t: SystemUnderTest): void {
  const fx = new MatrixFixtures(t);
  let scoped: Caller;
  let unscoped: Caller;
  /**
   * One caller for every "holds everything but …" cell: its one role is rewritten before each call
   * (a change of rights takes effect at once), so the matrix makes three users, not one per key and letter.
   */
  let lacking: { caller: Caller; role: string };
  const without = async (key: string, letter?: PermissionLetter) => {
    ok(await fx.admin.put(`/api/v1/role/${lacking.role}`, { roles: allRights({ key, letter }) }), 'lacking role');
    return lacking.caller.api();
  };

  before(async function () {
    this.timeout(180000);
    await fx.setUp();
    scoped = new Caller(fx, await fx.principal(allRights(), [`project:${fx.a}`]));
    const role = await fx.role({});
    lacking = { caller: new Caller(fx, await fx.principalWith([role])), role };
    unscoped = new Caller(fx, await fx.principalThroughGroup());
  });
  after(async () => fx.tearDown());

  it('has a row for every operation of the route table, and none for an operation it does not have', () => {
    const live = routes.filter((r) => !r.gone).map((r) => r.operationId);
    expect(
      live.filter((id) => !(id in MATRIX)),
      'operations without a row',
    ).to.deep.equal([]);
    expect(
      Object.keys(MATRIX).filter((id) => !live.includes(id)),
      'rows without an operation',
    ).to.deep.equal([]);
    for (const route of routes.filter((r) => !r.gone)) {
      const scope = route.access.kind === 'permission' ? route.access.scope : undefined;
      if (scope === 'project' || scope === 'project-set' || scope === 'grants')
        expect(MATRIX[route.operationId]?.scoped, `${route.operationId}: what a caller of project A gets`).to.exist;
    }
  });

  it('links an issue of A, for a caller of A, only into a tracker that serves A (or every project)', async () => {
    const key = ok(
      await fx.admin.post(`/api/v1/issue/${await fx.spareIssue()}/ticket`, { tracker_id: fx.trackerB }),
    ).key;
    const link = async (tracker: string) =>
      (await scoped.api()).put(`/api/v1/issue/${fx.issueA}/ticket`, { tracker_id: tracker, key });
    const refused = await link(fx.trackerB);
    expect(refused.status, JSON.stringify(refused.body)).to.equal(400);
    expect(refused.body.error.details.map((d: { field: string }) => d.field)).to.deep.equal(['tracker_id']);
    expect(JSON.stringify(refused.body)).not.to.contain(fx.b);
    ok(await link(await fx.tracker([fx.a])), 'a tracker of A');
    ok(await link(await fx.tracker(['*'])), 'a tracker of every project');
  });

  const call = async (api: Api, route: RouteSpec, probe: Probe): Promise<ApiResponse> => {
    const method = route.method.toUpperCase();
    if (probe.raw)
      return api
        .withHeaders({ 'content-type': probe.raw.contentType })
        .request(method, probe.path, undefined, probe.raw.text);
    return api.request(method, probe.path, route.method === 'get' ? undefined : (probe.body ?? {}));
  };

  /** Logging out ends the caller's token: that route is called with a session of each caller made for it. */
  const sessionFor = async (api: Api, route: RouteSpec): Promise<Api> =>
    route.operationId === 'logout' ? fx.session(api) : api;

  for (const route of routes) {
    const access = route.access;
    const label = `${route.method.toUpperCase()} ${route.path} (${access.kind === 'permission' ? `${access.key}:${access.letter}, ${access.scope}` : access.kind})`;
    it(label, async function () {
      this.timeout(60000);
      if (route.gone) {
        expect(
          (await t.anon.request(route.method.toUpperCase(), route.path.replace(/\{[^}]+\}/g, 'x'))).status,
        ).to.equal(410);
        return;
      }
      const entry = MATRIX[route.operationId];
      expect(entry, `no matrix row for ${route.operationId}`).to.exist;
      const expected = [entry.unscoped ?? 200].flat();

      // Nobody and the callers without the letter never reach the service: one probe serves them all.
      const refusedProbe = await entry.probe(fx);
      const anon = await call(t.anon, route, refusedProbe);
      if (access.kind === 'public') expect(anon.status, `nobody: ${JSON.stringify(anon.body)}`).to.be.oneOf(expected);
      else expect(anon.status, 'nobody').to.equal(401);

      if (access.kind === 'permission') {
        const noKey = await call(await without(access.key), route, refusedProbe);
        expect(noKey.status, 'a caller without the key').to.equal(403);
        expect(noKey.body.error.message).to.contain(`${access.key}:${access.letter}`);
        const otherLetters = await call(await without(access.key, access.letter), route, refusedProbe);
        expect(otherLetters.status, 'a caller with the key’s other letters').to.equal(403);
      }

      const limited = await call(await sessionFor(await scoped.api(), route), route, await entry.probe(fx));
      const scope = access.kind === 'permission' ? access.scope : undefined;
      if (scope === 'unscoped' || (scope === 'organisation' && access.kind === 'permission' && access.letter !== 'r')) {
        expect(limited.status, `a caller of project A: ${JSON.stringify(limited.body)}`).to.equal(403);
        expect(limited.body.error.message).to.contain('every project');
      } else if (entry.scoped) expectOutcome(limited, entry.scoped, fx.secretsOfB);
      else if (access.kind !== 'public')
        expect(limited.status, `a caller of project A: ${JSON.stringify(limited.body)}`).to.be.oneOf(expected);

      const everything = await call(await sessionFor(await unscoped.api(), route), route, await entry.probe(fx));
      expect(everything.status, `every key on every project: ${JSON.stringify(everything.body)}`).to.be.oneOf(expected);

      const admin = await call(await sessionFor(fx.admin, route), route, await entry.probe(fx));
      expect(admin.status, `admin: ${JSON.stringify(admin.body)}`).to.be.oneOf(expected);
    });
  }
}

/**
 * A matrix caller: a new session of the same user every 100 requests, so the gateway's per-token
 * rate limit (TEST_LIMITS in test systems) never answers for the route under test.
 */
class Caller {
  private uses = 0;
  constructor(
    private readonly fx: MatrixFixtures,
    private current: Api,
  ) {}

  async api(): Promise<Api> {
    if (++this.uses % 100 === 0) this.current = await this.fx.session(this.current);
    return this.current;
  }
}

function expectOutcome(res: ApiResponse, outcome: Outcome, secrets: string[]): void {
  const shown = `a caller of project A: ${res.status} ${typeof res.body === 'string' ? res.body.slice(0, 300) : JSON.stringify(res.body)}`;
  if ('status' in outcome) {
    expect(res.status, shown).to.be.oneOf(outcome.status);
    return;
  }
  if ('hidden' in outcome) {
    expect(res.status, shown).to.be.oneOf([200, 403, 404]);
    const text = typeof res.body === 'string' ? res.body : JSON.stringify(res.body);
    for (const secret of secrets) expect(text, `${shown}: shows ${secret} of project B`).not.to.contain(secret);
    return;
  }
  expect(res.status, shown).to.be.oneOf([200, 403]);
  if (res.status === 200) for (const r of res.body.results) expect(r.status, shown).not.to.be.oneOf(DONE);
}
