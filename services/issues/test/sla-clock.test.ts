import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { DATABASE_BACKENDS, TestDatabase } from '@bulwark/testkit';
import { pgArray, type ServiceData, type Trx } from '@bulwark/platform';
import type { SlaDays } from '../src/domain/sla';
import { STATUS } from '../src/domain/statuses';
import { migrations } from '../src/migrations';
import { SlaProjects } from '../src/sla/sla-projects';
import { NewIssue, issueStore } from '../src/store/issues/issue-store';
import { slaClockStore } from '../src/store/sla-clock';
import { slaPolicyStore } from '../src/store/sla-policies';
import { issue } from './fixtures';

const DAY = 86400000;
const days = (critical: number | null, high: number | null, low: number | null = null) => ({
  critical,
  high,
  medium: null,
  low,
  info: null,
});
const SEVERITIES = [
  ['critical', 5],
  ['high', 4],
  ['medium', 3],
  ['low', 2],
  ['info', 1],
] as const;
const every = (critical: number | null, high: number, medium: number, low: number, info: number | null) => ({
  critical,
  high,
  medium,
  low,
  info,
});
/** A date no policy gives: an issue still holding it was not re-dated. */
const UNTOUCHED = '2000-01-01T00:00:00.000Z';

// The SLA clock is the database's (the trigger of migration 0018 and the issues view read now()):
// time is injected by moving the issues' stored times back, never waited for.
for (const backend of DATABASE_BACKENDS) {
  describe(`SLA clock on ${backend.name}`, function () {
    let t: TestDatabase;
    let data: ServiceData;
    const projects = new SlaProjects();
    before(async function () {
      t = await backend.open(this, 'issues', migrations);
      data = { db: t.db, transaction: (work) => t.db.transaction(work) };
    });
    after(async () => t?.close());

    const code = () => `p-${randomUUID().slice(0, 8)}`;
    const policy = (p: { codes?: string[]; tags?: string[]; days: SlaDays; kev?: number | null }) =>
      data.transaction(async (trx) => {
        await slaPolicyStore.insert(trx, {
          name: `sla ${randomUUID()}`,
          author: 'test',
          projectCodes: p.codes ?? [],
          projectTags: p.tags ?? [],
          days: p.days,
          knownExploitedDays: p.kev ?? null,
        });
        await slaClockStore.applyToIssues(trx, await slaClockStore.resolve(trx, null));
      });
    const ingest = (
      project: string,
      tags: string[],
      n: number[],
      over: (k: number) => Partial<NewIssue> = () => ({}),
    ) =>
      data.transaction(async (trx) => {
        await projects.atIngestion(trx, project, tags);
        // Detected now: the fixtures' fixed date would be long past.
        const rows = n.map((k) => issue(project, k, { firstDetectedAt: new Date().toISOString(), ...over(k) }));
        await issueStore.insertMany(trx, rows);
        return rows.map((r) => r.id);
      });
    const view = async (id: string) => {
      const i = await issueStore.get(t.db, id);
      if (!i) throw new Error(`issue ${id} not found`);
      return i;
    };
    const dueIn = async (id: string) => {
      const i = await view(id);
      return i.slaDueAt === null ? null : (new Date(i.slaDueAt).getTime() - Date.now()) / DAY;
    };
    /** Moves the issue's first detection (and so its whole clock) this many days into the past from now. */
    const detectedDaysAgo = (id: string, n: number) =>
      t.db.raw(`update issue_records set first_detected_at = now() - make_interval(days => ?) where id = ?`, [n, id]);
    const setStatus = (id: string, status: number) =>
      data.transaction((trx) => issueStore.setStatusMany(trx, [id], status, undefined, new Date().toISOString()));

    it('dates open issues from their first detection by the days of their severity; none without days', async () => {
      const p = code();
      await policy({ codes: [p], days: days(7, 30) });
      const [high, low] = await ingest(p, [], [1, 2]);
      await detectedDaysAgo(high, 10);
      expect(await dueIn(high)).to.be.closeTo(20, 0.01);
      expect((await view(high)).slaState).to.equal('on_track');
      expect(await view(low)).to.include({ slaDueAt: null, slaState: null });
      await detectedDaysAgo(high, 25);
      expect((await view(high)).slaState).to.equal('due_soon');
      await detectedDaysAgo(high, 31);
      expect((await view(high)).slaState).to.equal('breached');
    });

    it('pauses while Risk accepted or Suppressed, adding the paused time; reopening counts from the first detection', async () => {
      const p = code();
      await policy({ codes: [p], days: days(7, 30) });
      const [id] = await ingest(p, [], [1]);
      await detectedDaysAgo(id, 25);
      await setStatus(id, STATUS.riskAccepted);
      expect(await view(id)).to.include({ slaDueAt: null, slaState: null });
      await setStatus(id, STATUS.suppressed);
      // Ten days paused, injected by moving the pause's start back.
      await t.db.raw(`update issue_records set sla_paused_at = sla_paused_at - interval '10 days' where id = ?`, [id]);
      await setStatus(id, STATUS.reopen);
      expect(await dueIn(id)).to.be.closeTo(15, 0.01);
      expect((await view(id)).slaState).to.equal('on_track');
      // Fixed stops the clock; the time fixed is not paused time, so reopened 40 days later it is breached.
      await setStatus(id, STATUS.fixed);
      expect((await view(id)).slaDueAt).to.equal(null);
      await detectedDaysAgo(id, 65);
      await setStatus(id, STATUS.reopen);
      expect(await dueIn(id)).to.be.closeTo(-25, 0.01);
      expect((await view(id)).slaState).to.equal('breached');
    });

    it('gives a KEV issue the shorter of known_exploited_days and the catalog due date', async () => {
      const p = code();
      await policy({ codes: [p], days: days(7, 30), kev: 14 });
      const [id] = await ingest(p, [], [1]);
      await t.db.raw(
        `update issue_records set intel_known_exploited = true, kev_due_date = (now() at time zone 'UTC')::date + 100 where id = ?`,
        [id],
      );
      expect(await dueIn(id)).to.be.closeTo(14, 0.01);
      await t.db.raw(`update issue_records set kev_due_date = (now() at time zone 'UTC')::date + 2 where id = ?`, [id]);
      const due = (await view(id)).slaDueAt;
      const catalogDay = await t.db.raw<{ rows: { d: Date }[] }>(
        `select ((now() at time zone 'UTC')::date + 3)::timestamp at time zone 'UTC' as d`,
      );
      expect(due).to.equal(catalogDay.rows[0].d.toISOString());
    });

    it('applies the most specific policy (code, then tag, then every project), each severity the shortest of its kind', async () => {
      const [byCode, byTag, other] = [code(), code(), code()];
      const tag = `t-${randomUUID().slice(0, 8)}`;
      const [codeIssue] = await ingest(byCode, [tag], [1]);
      const [tagIssue] = await ingest(byTag, [tag], [1]);
      const [otherIssue] = await ingest(other, [], [1]);
      await policy({ days: days(1, 3) });
      await policy({ tags: [tag], days: days(5, 10) });
      await policy({ codes: [byCode], days: days(9, 40) });
      await policy({ codes: [byCode], days: days(null, 20) });
      expect(await dueIn(codeIssue)).to.be.closeTo(20, 0.01);
      expect(await dueIn(tagIssue)).to.be.closeTo(10, 0.01);
      expect(await dueIn(otherIssue)).to.be.closeTo(3, 0.01);
      // The catalog announces the tag removed: the project falls back to the policy for every project.
      await data.transaction((trx) => projects.tagsChanged(trx, byTag, []));
      expect(await dueIn(tagIssue)).to.be.closeTo(3, 0.01);
    });

    it('claims each breach once, and a breach after a reopening again', async () => {
      const p = code();
      await policy({ codes: [p], days: days(7, 30) });
      const [id] = await ingest(p, [], [1]);
      await detectedDaysAgo(id, 31);
      const claimed = async () =>
        (await data.transaction((trx) => slaClockStore.claimBreaches(trx, 10000))).filter((b) => b.id === id);
      expect(await claimed()).to.have.length(1);
      expect(await claimed()).to.have.length(0);
      await setStatus(id, STATUS.riskAccepted);
      await setStatus(id, STATUS.reopen);
      expect(await claimed(), 'a pause is not a new breach').to.have.length(0);
      await setStatus(id, STATUS.fixed);
      await setStatus(id, STATUS.reopen);
      const again = await claimed();
      expect(again).to.have.length(1);
      expect(again[0]).to.include({ projectCode: p, severity: 'high' });
    });

    it('re-dates exactly the open issues whose days changed: a severity, or the KEV days for known-exploited issues', async () => {
      const p = code();
      const write = (d: SlaDays, kev: number) => ({
        name: `sla ${p}`,
        projectCodes: [p],
        projectTags: [],
        days: d,
        knownExploitedDays: kev,
      });
      const reapply = (trx: Trx) => slaClockStore.resolve(trx, null).then((c) => slaClockStore.applyToIssues(trx, c));
      const change = (d: SlaDays, kev: number) =>
        data.transaction(async (trx) => {
          await slaPolicyStore.update(trx, policyId, write(d, kev));
          return reapply(trx);
        });
      const policyId = await data.transaction(async (trx) => {
        const row = await slaPolicyStore.insert(trx, { ...write(every(10, 20, 30, 40, 50), 5), author: 'test' });
        await reapply(trx);
        return row.id;
      });
      const bySeverity = SEVERITIES.map(([severity, severityRank]) => ({ severity, severityRank }));
      const ids = await ingest(p, [], [0, 1, 2, 3, 4], (k) => bySeverity[k]);
      const [kevHigh, fixedHigh] = await ingest(p, [], [5, 6], (k) => ({
        ...bySeverity[1],
        knownExploited: k === 5,
      }));
      await setStatus(fixedHigh, STATUS.fixed);
      const dated = [...ids, kevHigh];
      const mark = (marked = dated) =>
        t.db.raw('update issue_records set sla_due_at = ? where id = any(?::uuid[])', [UNTOUCHED, pgArray(marked)]);
      const dueDays = async (id: string) => {
        const i = await view(id);
        if (i.slaDueAt === null || i.slaDueAt === UNTOUCHED) return i.slaDueAt;
        return Math.round((new Date(i.slaDueAt).getTime() - new Date(i.firstDetectedAt).getTime()) / DAY);
      };
      const dates = async () => Promise.all([...dated, fixedHigh].map(dueDays));

      expect(await dates()).to.deep.equal([10, 20, 30, 40, 50, 5, null]);
      // High 20 → 15: the high issue only; the KEV high issue (read, its date the same) keeps its KEV days, the fixed one no date.
      await mark(ids.filter((id) => id !== ids[1]));
      expect(await change(every(10, 15, 30, 40, 50), 5)).to.equal(1);
      expect(await dates()).to.deep.equal([UNTOUCHED, 15, UNTOUCHED, UNTOUCHED, UNTOUCHED, 5, null]);
      // The KEV days 5 → 3: the known-exploited issue only.
      await mark();
      expect(await change(every(10, 15, 30, 40, 50), 3)).to.equal(1);
      expect(await dates()).to.deep.equal([UNTOUCHED, UNTOUCHED, UNTOUCHED, UNTOUCHED, UNTOUCHED, 3, null]);
      // Critical and info at once, info to no SLA.
      await mark();
      expect(await change(every(8, 15, 30, 40, null), 3)).to.equal(2);
      expect(await dates()).to.deep.equal([8, UNTOUCHED, UNTOUCHED, UNTOUCHED, null, UNTOUCHED, null]);
      // Saved unchanged: nothing.
      expect(await change(every(8, 15, 30, 40, null), 3)).to.equal(0);
    });

    it('dates again whatever else changes a factor: an insert, a severity, a status, the KEV values; other writes leave the date', async () => {
      const p = code();
      await policy({ codes: [p], days: every(10, 20, 30, 40, 50), kev: 5 });
      const [id] = await ingest(p, [], [1]);
      const dueDays = async () => {
        const i = await view(id);
        return i.slaDueAt && Math.round((new Date(i.slaDueAt).getTime() - new Date(i.firstDetectedAt).getTime()) / DAY);
      };
      const update = (set: string, bindings: string[] = []) =>
        t.db.raw(`update issue_records set ${set} where id = ?`, [...bindings, id]);
      expect(await dueDays()).to.equal(20);
      // A factor written with a date of the writer's own: the trigger's date stands.
      await update(`severity = 'critical', severity_rank = 5, sla_due_at = ?`, [UNTOUCHED]);
      expect(await dueDays()).to.equal(10);
      await update('intel_known_exploited = true');
      expect(await dueDays()).to.equal(5);
      await update('intel_known_exploited = null');
      await setStatus(id, STATUS.fixed);
      expect(await dueDays()).to.equal(null);
      await setStatus(id, STATUS.reopen);
      expect(await dueDays()).to.equal(10);
      // Writes that leave every factor as it was (the same values, other columns) keep the date.
      await update('status_id = status_id, severity_rank = severity_rank, title = ?', ['renamed']);
      expect(await dueDays()).to.equal(10);
    });
  });
}
