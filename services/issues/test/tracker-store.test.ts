import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { DATABASE_BACKENDS, TestDatabase } from '@bulwark/testkit';
import { STATUS } from '../src/domain/statuses';
import { migrations } from '../src/migrations';
import { historyStore } from '../src/store/history';
import { issueStore } from '../src/store/issues/issue-store';
import { pushStore, ticketStore, trackerStore } from '../src/store/trackers';
import { at, issue } from './fixtures';

for (const backend of DATABASE_BACKENDS) {
  describe(`tracker stores on ${backend.name}`, function () {
    let t: TestDatabase;
    before(async function () {
      t = await backend.open(this, 'issues', migrations);
    });
    after(async () => t?.close());

    it('queues a push for a status change of a linked issue only, not for one read from the tracker; claims never hand a push to two workers', async () => {
      const p = `p-${randomUUID().slice(0, 8)}`;
      const [linked, alone] = [issue(p, 1), issue(p, 2)];
      await issueStore.insertMany(t.db, [linked, alone]);
      const tracker = await trackerStore.insert(t.db, {
        name: 'r',
        type: 'redmine',
        url: 'http://tracker.example',
        credentialsSealed: 'sealed',
        projects: [],
        statusMapping: { to_bulwark: [], to_tracker: [] },
        fieldTemplates: {},
        jiraApiVersion: 3,
        syncEnabled: true,
      });
      const ticket = await ticketStore.upsert(t.db, tracker.id, {
        key: '7',
        url: 'http://tracker.example/issues/7',
        status: 'New',
        closed: false,
      });
      await ticketStore.link(t.db, [linked.id], ticket.id);
      const change = (id: string, kind: 'user' | 'scan' | 'tracker', to: number) => ({
        issueId: id,
        actorKind: kind,
        actor: kind,
        field: 'status',
        oldValue: '1',
        newValue: String(to),
        comment: null,
        at,
      });
      await historyStore.add(t.db, [
        change(linked.id, 'user', STATUS.fixed),
        change(alone.id, 'user', STATUS.fixed),
        change(linked.id, 'tracker', STATUS.new),
        change(linked.id, 'scan', STATUS.reopen),
      ]);

      const [a, b] = await Promise.all([pushStore.claim(t.db, 1, 60), pushStore.claim(t.db, 5, 60)]);
      const claimed = [...a, ...b];
      expect(claimed.map((c) => [c.issueId, c.toStatus, c.actor]).sort()).to.deep.equal(
        [
          [linked.id, STATUS.fixed, 'user'],
          [linked.id, STATUS.reopen, 'scan'],
        ].sort(),
      );
      expect(new Set(claimed.map((c) => c.id)).size).to.equal(2);
      expect(await pushStore.claim(t.db, 5, 60)).to.deep.equal([]);
      await pushStore.failed(t.db, claimed[0].id, 'HTTP 503', 0);
      await pushStore.done(t.db, claimed[1].id, 'commented');
      const again = await pushStore.claim(t.db, 5, 60);
      expect(again.map((c) => [c.id, c.attempts])).to.deep.equal([[claimed[0].id, 2]]);
    });

    it('records a new ticket status once when two syncs read it; forgets a ticket no issue is linked to', async () => {
      const p = `p-${randomUUID().slice(0, 8)}`;
      const one = issue(p, 1);
      await issueStore.insertMany(t.db, [one]);
      const tracker = await trackerStore.insert(t.db, {
        name: 'j',
        type: 'jira',
        url: 'http://jira.example',
        credentialsSealed: 'sealed',
        projects: [],
        statusMapping: { to_bulwark: [], to_tracker: [] },
        fieldTemplates: {},
        jiraApiVersion: 2,
        syncEnabled: false,
      });
      const ticket = await ticketStore.upsert(t.db, tracker.id, {
        key: 'SEC-1',
        url: 'http://jira.example/browse/SEC-1',
        status: 'To Do',
        closed: false,
      });
      const again = await ticketStore.upsert(t.db, tracker.id, {
        key: 'SEC-1',
        url: 'http://jira.example/browse/SEC-1',
        status: 'To Do',
        closed: false,
      });
      expect(again.id).to.equal(ticket.id);
      const wins = await Promise.all(
        [1, 2].map(() => ticketStore.recordStatus(t.db, ticket.id, 'To Do', { status: 'Done', closed: true })),
      );
      expect(wins.filter(Boolean)).to.have.length(1);
      await ticketStore.link(t.db, [one.id], ticket.id);
      expect((await trackerStore.ticketCounts(t.db, [tracker.id])).get(tracker.id)).to.equal(1);
      await ticketStore.dropUnlinked(t.db, [ticket.id]);
      expect(await ticketStore.get(t.db, ticket.id)).to.not.equal(undefined);
      await ticketStore.unlink(t.db, one.id);
      await ticketStore.dropUnlinked(t.db, [ticket.id]);
      expect(await ticketStore.get(t.db, ticket.id)).to.equal(undefined);
      // A deleted issue takes its link along; the ticket left without issues goes too.
      const other = await ticketStore.upsert(t.db, tracker.id, {
        key: 'SEC-2',
        url: 'http://jira.example/browse/SEC-2',
        status: 'To Do',
        closed: false,
      });
      await ticketStore.link(t.db, [one.id], other.id);
      await issueStore.deleteMany(t.db, [one.id]);
      await ticketStore.dropUnlinked(t.db);
      expect(await ticketStore.get(t.db, other.id)).to.equal(undefined);
    });
  });
}
