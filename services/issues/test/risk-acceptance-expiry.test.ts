import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { DATABASE_BACKENDS, TestDatabase } from '@bulwark/testkit';
import type { Principal, ServiceData } from '@bulwark/platform';
import { STATUS } from '../src/domain/statuses';
import { migrations } from '../src/migrations';
import { historyStore } from '../src/store/history';
import { issueStore } from '../src/store/issues/issue-store';
import type { AssigneeDirectory, DirectoryEntry, ProjectReach } from '../src/triage/directory';
import { RiskAcceptances } from '../src/triage/risk-acceptances';
import { issue } from './fixtures';

const DAY = 86400000;

/** The identity service's answer for the users of this test (the HTTP suite asks the real one). */
class KnownUsers implements AssigneeDirectory {
  constructor(private readonly users: DirectoryEntry[]) {}
  find(ref: { type: string; id: string }) {
    return Promise.resolve(this.users.find((u) => u.type === ref.type && u.id === ref.id));
  }
  /** Every user of this test reaches every project: expiry, not reach, is what it tests. */
  async reached(ref: { type: string; id: string }, reach: ProjectReach) {
    return (await this.find(ref)) ? reach.projectCodes : [];
  }
  search() {
    return Promise.resolve(this.users);
  }
}

const person = (username: string, projects: string[]): Principal => ({
  userId: randomUUID(),
  username,
  permissions: { 'issues.issues': ['r', 'w'] },
  projects,
  tokenKind: 'login',
  tokenId: randomUUID(),
});

// Expiry with the time given, not waited for: the clock of the acceptances is the test's.
for (const backend of DATABASE_BACKENDS) {
  describe(`risk acceptance expiry on ${backend.name}`, function () {
    let t: TestDatabase;
    let data: ServiceData;
    before(async function () {
      t = await backend.open(this, 'issues', migrations);
      data = { db: t.db, transaction: (work) => t.db.transaction(work) };
    });
    after(async () => t?.close());

    /** A project, its requester and approver, and acceptances on a clock the test moves. */
    const setUp = () => {
      const project = `p-${randomUUID().slice(0, 8)}`;
      const approver = person('approver', [project]);
      const clock = { now: new Date('2030-01-01T00:00:00Z') };
      const acceptances = new RiskAcceptances({
        data,
        directory: new KnownUsers([{ type: 'user', id: approver.userId, name: 'approver', displayName: '' }]),
        clock: () => clock.now,
      });
      return { project, requester: person('requester', [project]), approver, acceptances, clock };
    };

    it('reopens the issues still Risk accepted when the acceptance expires, and leaves the others', async () => {
      const { project, requester, approver, acceptances, clock } = setUp();
      const rows = [1, 2, 3, 4].map((n) => issue(project, n));
      await t.db.transaction((trx) => issueStore.insertMany(trx, rows));
      const [kept, changed, pendingOne, another] = rows.map((r) => r.id);

      const accepted = await acceptances.create(requester, {
        issue_ids: [kept, changed],
        reason: 'until the release',
        expires_at: new Date(clock.now.getTime() + 7 * DAY).toISOString(),
      });
      const pending = await acceptances.create(requester, {
        issue_ids: [pendingOne],
        reason: 'asks for approval',
        expires_at: new Date(clock.now.getTime() + 3 * DAY).toISOString(),
        approver_id: approver.userId,
      });
      // A second acceptance due in the same expiry run: each acceptance reopens its own issues.
      await acceptances.create(requester, {
        issue_ids: [another],
        reason: 'another reason',
        expires_at: new Date(clock.now.getTime() + 5 * DAY).toISOString(),
      });
      expect([accepted.state, pending.state]).to.deep.equal(['accepted', 'pending']);
      // Someone moves one accepted issue on; expiry must not touch it.
      await t.db.transaction((trx) =>
        issueStore.update(trx, changed, { statusId: STATUS.fixed }, clock.now.toISOString()),
      );

      clock.now = new Date(clock.now.getTime() + 2 * DAY);
      expect(await acceptances.expireDue(), 'nothing is due yet').to.equal(0);

      clock.now = new Date(clock.now.getTime() + 6 * DAY);
      expect(await acceptances.expireDue()).to.equal(3);
      const status = async (id: string) => (await issueStore.get(t.db, id))?.statusId;
      expect(await status(kept)).to.equal(STATUS.reopen);
      expect(await status(another)).to.equal(STATUS.reopen);
      const reopened: { key: string }[] = await t
        .db('bulwark_outbox')
        .where({ type: 'issue.status_changed' })
        .whereRaw("payload::jsonb ->> 'to_status_id' = ?", [String(STATUS.reopen)])
        .whereIn(
          'key',
          rows.map((r) => r.id),
        )
        .select('key');
      expect(reopened.map((e) => e.key).sort(), 'one event per reopened issue').to.deep.equal([kept, another].sort());
      expect(await status(changed)).to.equal(STATUS.fixed);
      expect(await status(pendingOne), 'a pending acceptance moved nothing').to.equal(STATUS.new);
      expect((await acceptances.get(requester, accepted.id)).state).to.equal('expired');
      expect((await acceptances.get(requester, pending.id)).state).to.equal('expired');
      const { items } = await historyStore.list(t.db, kept, { page: 1, limit: 10 });
      expect(items[0]).to.include({
        actorKind: 'system',
        actor: 'risk acceptance',
        field: 'status',
        oldValue: String(STATUS.riskAccepted),
        newValue: String(STATUS.reopen),
      });
      expect(await acceptances.expireDue(), 'each acceptance expires once').to.equal(0);

      // An expired acceptance no longer holds its issues: they may be accepted again.
      const again = await acceptances.create(requester, {
        issue_ids: [kept],
        reason: 'once more',
        expires_at: new Date(clock.now.getTime() + DAY).toISOString(),
      });
      expect(again.state).to.equal('accepted');
    });

    it('refuses an approval after the acceptance’s time has passed', async () => {
      const { project, requester, approver, acceptances, clock } = setUp();
      const row = issue(project, 1);
      await t.db.transaction((trx) => issueStore.insertMany(trx, [row]));
      const pending = await acceptances.create(requester, {
        issue_ids: [row.id],
        reason: 'late',
        expires_at: new Date(clock.now.getTime() + DAY).toISOString(),
        approver_id: approver.userId,
      });
      clock.now = new Date(clock.now.getTime() + 2 * DAY);
      let refusal: unknown;
      await acceptances.decide(approver, pending.id, true).catch((err: unknown) => (refusal = err));
      expect(refusal).to.have.property('code', 'conflict');
      expect((await issueStore.get(t.db, row.id))?.statusId).to.equal(STATUS.new);
    });
  });
}
