import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { DATABASE_BACKENDS, TestDatabase } from '@bulwark/testkit';
import { pgArray } from '@bulwark/platform';
import type { Knex } from 'knex';
import { NOT_COUNTED_STATUSES, STATUS } from '../src/domain/statuses';
import { migrations } from '../src/migrations';
import { HistoryEntry, historyStore } from '../src/store/history';
import { COUNT_GROUP_COLUMNS } from '../src/store/issues/counts';
import { applyFilter, IssueFilter, issueStore } from '../src/store/issues/issue-store';
import { reportQueries } from '../src/store/report-queries';
import { ingestedStore } from '../src/store/settings';
import { at, issue } from './fixtures';

/** A node of PostgreSQL's plan as `explain (format json)` gives it. */
interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

/** The trend by one pass over every matching issue and its whole status history: what the walk back from the open count must equal. */
async function trendByFullPass(db: Knex, f: IssueFilter, starts: string[], end: string) {
  const scope = applyFilter(db('issues').select('issues.*'), f).toSQL();
  const closed = pgArray(NOT_COUNTED_STATUSES);
  const { rows } = await db.raw(
    `with i as (${scope.sql}),
     ev as (
       select i.first_detected_at as at, 1 as opened, 0 as fixed,
         case when coalesce(first.old_value, first.new_value, i.status_id::text)::int = any(?::int[]) then 0 else 1 end as delta
       from i left join lateral (
         select h.old_value, h.new_value from issue_history h where h.issue_id = i.id and h.field = 'status' order by h.at, h.id limit 1
       ) first on true
       where i.first_detected_at < ?
       union all
       select h.at, 0, (h.new_value = ?)::int,
         case when h.old_value is null or (h.old_value::int = any(?::int[])) = (h.new_value::int = any(?::int[])) then 0 when h.new_value::int = any(?::int[]) then -1 else 1 end
       from issue_history h join i on i.id = h.issue_id
       where h.field = 'status' and h.at < ?
     )
     select width_bucket(ev.at, ?::timestamptz[]) as k, sum(ev.opened) as opened, sum(ev.fixed) as fixed, sum(ev.delta) as delta from ev group by 1`,
    [
      ...(scope.bindings as Knex.RawBinding[]),
      closed,
      end,
      String(STATUS.fixed),
      closed,
      closed,
      closed,
      end,
      pgArray(starts),
    ],
  );
  const byBucket = new Map(
    (rows as { k: number; opened: string; fixed: string; delta: string }[]).map((r) => [Number(r.k), r]),
  );
  let open = Number(byBucket.get(0)?.delta ?? 0);
  return starts.map((start, index) => {
    const r = byBucket.get(index + 1);
    open += Number(r?.delta ?? 0);
    return { start, opened: Number(r?.opened ?? 0), fixed: Number(r?.fixed ?? 0), open };
  });
}

for (const backend of DATABASE_BACKENDS) {
  describe(`issues stores on ${backend.name}`, function () {
    let t: TestDatabase;
    before(async function () {
      t = await backend.open(this, 'issues', migrations);
    });
    after(async () => t?.close());

    it('inserts in bulk, finds by identity, records detections and marks the undetected fixed', async () => {
      const p = `p-${randomUUID().slice(0, 8)}`;
      const rows = [1, 2, 3].map((n) => issue(p, n));
      await t.db.transaction(async (trx) => {
        await issueStore.insertMany(trx, rows);
        const found = await issueStore.byKeys(trx, p, [
          { scope: '', key: 'k1' },
          { scope: '', key: 'k3' },
          { scope: '', key: 'nope' },
        ]);
        expect([...found.values()].map((r) => r.id).sort()).to.deep.equal([rows[0].id, rows[2].id].sort());
        await issueStore.detectMany(trx, '2026-01-02T00:00:00.000Z', [
          {
            id: rows[0].id,
            scanId: 'S2',
            checkId: 'C1',
            layerId: 'L1',
            newScan: true,
            occurrences: 3,
            findings: 1,
            statusId: STATUS.new,
            severity: 'critical',
            severityRank: 5,
            startLine: 11,
            suppression: null,
            securityRuleId: null,
          },
        ]);
        const fixed = await issueStore.markFixed(trx, 'C1', 'S2', [STATUS.new], STATUS.fixed, at);
        expect(fixed.map((f) => f.id).sort()).to.deep.equal([rows[1].id, rows[2].id].sort());
      });
      const first = (await issueStore.get(t.db, rows[0].id))!;
      expect(first).to.include({
        scanId: 'S2',
        detections: 2,
        occurrences: 3,
        severity: 'critical',
        startLine: 11,
        statusId: STATUS.new,
      });
      expect(first.vulnerabilityIds).to.deep.equal(['CVE-2024-1']);
      expect(first.cwes).to.deep.equal([1]);
      expect((await issueStore.get(t.db, rows[1].id))!.statusId).to.equal(STATUS.fixed);
    });

    it('finds by identity without a lock when asked (the read before an ingestion), and locks otherwise', async () => {
      const p = `p-${randomUUID().slice(0, 8)}`;
      const row = issue(p, 1);
      await issueStore.insertMany(t.db, [row]);
      const keys = [{ scope: '', key: 'k1' }];
      await t.db.transaction(async (holder) => {
        // Another ingestion holds the issue's row lock until this transaction ends.
        await issueStore.byKeys(holder, p, keys);
        const read = await issueStore.byKeys(t.db, p, keys, { lock: false });
        expect(read.get('\u0000k1')?.id).to.equal(row.id);
        const locking = await t.db
          .transaction(async (trx) => {
            await trx.raw("set local lock_timeout = '50ms'");
            await issueStore.byKeys(trx, p, keys);
          })
          .catch((e: unknown) => e);
        expect(String(locking)).to.match(/lock timeout/);
      });
    });

    it('plans "fixed by this scan" without a nested loop over the detections, whatever the statistics say of a scan being ingested', async () => {
      // Two checks' scans analyzed, then one re-detected set-wise to a scan the statistics cannot know:
      // the state in which the anti-join's plan went quadratic (100,000 issues took minutes).
      const p = `p-${randomUUID().slice(0, 8)}`;
      const n = 3000;
      for (const check of ['A', 'B'])
        await t.db.transaction(async (trx) => {
          const rows = Array.from({ length: n }, (_, i) =>
            issue(p, i, { matchKey: `${check}${i}`, checkId: `C${check}-${p}`, scanId: `S${check}-${p}` }),
          );
          for (let i = 0; i < n; i += 1000) await issueStore.insertMany(trx, rows.slice(i, i + 1000));
        });
      await t.db.raw('analyze issue_records, issue_detection_state');
      const plan = await t.db.transaction(async (trx) => {
        await issueStore.redetect(trx, `SB-${p}`, `SB2-${p}`, at, []);
        // Where hashing costs more (wide, large tables at the bench's scale), the planner joins by
        // nested loops: the statement must then probe each issue's row by its key, never rescan a
        // "one row" it estimated from statistics that cannot know this scan.
        await trx.raw('set local enable_hashjoin = off');
        await trx.raw('set local enable_mergejoin = off');
        const statements: { sql: string; bindings: readonly unknown[] }[] = [];
        const capture = (q: { sql: string; bindings?: readonly unknown[] }) =>
          statements.push({ sql: q.sql, bindings: q.bindings ?? [] });
        t.db.on('query', capture);
        try {
          await issueStore.markFixed(trx, `CB-${p}`, `SB2-${p}`, [STATUS.new], STATUS.fixed, at);
        } finally {
          t.db.off('query', capture);
        }
        // Captured in the driver's numbered form; each parameter appears once, in order.
        const [markFixed] = statements;
        const { rows } = await trx.raw(
          `explain (format json) ${markFixed.sql.replace(/\$\d+/g, '?')}`,
          markFixed.bindings as Knex.RawBinding[],
        );
        return rows[0]['QUERY PLAN'][0].Plan as PlanNode;
      });
      const seqScansUnderNestedLoops = (node: PlanNode, underLoop = false): string[] => [
        ...(underLoop && node['Node Type'] === 'Seq Scan' && node['Relation Name'] === 'issue_detection_state'
          ? [node['Node Type']]
          : []),
        ...(node.Plans ?? []).flatMap((c) =>
          seqScansUnderNestedLoops(c, underLoop || node['Node Type'] === 'Nested Loop'),
        ),
      ];
      expect(seqScansUnderNestedLoops(plan)).to.deep.equal([]);
    });

    it('filters, inverts, counts and pages by keyset as by offset', async () => {
      const p = `p-${randomUUID().slice(0, 8)}`;
      await issueStore.insertMany(
        t.db,
        [1, 2, 3, 4, 5].map((n) => issue(p, n, { lastDetectedAt: `2026-01-0${n}T00:00:00.000Z` })),
      );
      const base = { projects: [p] };
      expect(await issueStore.count(t.db, { ...base, severities: ['high'] })).to.equal(3);
      expect(await issueStore.count(t.db, { ...base, severities: ['high'], invert: true })).to.equal(2);
      expect(await issueStore.count(t.db, { ...base, cves: ['CVE-2024-1'], invert: true })).to.equal(4);
      expect(await issueStore.count(t.db, { ...base, cwes: [2, 3] })).to.equal(2);
      expect(await issueStore.count(t.db, { ...base, cvss: [{ column: 'cvss_v3', min: 9 }] })).to.equal(1);
      expect(await issueStore.count(t.db, { ...base, search: { title: 'ISSUE 4' } })).to.equal(1);
      expect(await issueStore.count(t.db, { projects: [] })).to.equal(0);
      const o = { limit: 2, sort: 'last_detected_at' as const, desc: true };
      const p1 = await issueStore.list(t.db, base, { ...o, page: 1 });
      const p2 = await issueStore.list(t.db, base, { ...o, page: 1, cursor: p1.nextCursor! });
      const byOffset = await issueStore.list(t.db, base, { ...o, page: 2 });
      expect(p2.items.map((r) => r.title)).to.deep.equal(byOffset.items.map((r) => r.title));
      expect([...p1.items, ...p2.items].map((r) => r.title)).to.deep.equal([
        'Issue 5',
        'Issue 4',
        'Issue 3',
        'Issue 2',
      ]);
      expect(await issueStore.distinct(t.db, base, 'cwes', true)).to.deep.equal([1, 2, 3, 4, 5]);
    });

    it('counts from issue_counts exactly what counting the rows gives, through inserts, updates, deletes, duplicate links and compaction', async () => {
      const projects = ['a', 'b', 'c'].map((x) => `p-${x}-${randomUUID().slice(0, 8)}`);
      const tools = ['Semgrep', 'Trivy', 'Gitleaks'];
      const severities = ['critical', 'high', 'medium', 'low', 'info'];
      const rows = Array.from({ length: 300 }, (_, n) => {
        const severity = severities[n % 5];
        return issue(projects[n % 3], n, {
          toolName: tools[n % 3 === 0 ? 0 : n % 2 ? 1 : 2],
          scanner: tools[n % 3],
          category: n % 4 ? 'sast' : 'sca',
          severity,
          severityRank: 5 - (n % 5),
          statusId: [STATUS.new, STATUS.confirmed, STATUS.fixed][n % 3],
        });
      });
      await t.db.transaction(async (trx) => {
        await issueStore.insertMany(trx, rows.slice(0, 150));
        await issueStore.insertMany(trx, rows.slice(150));
      });
      await issueStore.setStatusMany(
        t.db,
        rows.filter((_, n) => n % 7 === 0).map((r) => r.id),
        STATUS.falsePositive,
        null,
        at,
      );
      await t.db.transaction((trx) =>
        issueStore.detectMany(
          trx,
          at,
          rows
            .filter((_, n) => n % 5 === 1)
            .map((r) => ({
              id: r.id,
              scanId: 'S2',
              checkId: 'C1',
              layerId: 'L1',
              newScan: true,
              occurrences: 1,
              findings: 1,
              statusId: STATUS.reopen,
              severity: 'critical',
              severityRank: 5,
              startLine: 1,
              suppression: null,
              securityRuleId: null,
            })),
        ),
      );
      await issueStore.deleteMany(
        t.db,
        rows.filter((_, n) => n % 11 === 0).map((r) => r.id),
      );
      // Duplicates linked, some of them unlinked again: originals-only counts follow both.
      const linked = rows.filter((_, n) => n % 11 !== 0 && n % 6 === 5);
      for (const r of linked) await issueStore.update(t.db, r.id, { duplicateOf: rows[1].id }, at);
      for (const r of linked.slice(0, 5)) await issueStore.update(t.db, r.id, { duplicateOf: null }, at);
      const filters = [
        { projects },
        { projects, severities: ['critical'] },
        { projects, severities: ['high', 'low'], statuses: [STATUS.new, STATUS.reopen] },
        { projects, tools: ['Trivy'], categories: ['sca'] },
        { projects: [projects[0], projects[2]], scanners: ['Gitleaks'], invert: true },
        { projects, projectCodes: [projects[1]], statuses: [STATUS.falsePositive], invert: true },
        { projects, toolIds: ['T1'], severities: ['info'] },
        { projects, excludeDuplicates: true },
        { projects, severities: ['critical', 'high'], statuses: [STATUS.new, STATUS.reopen], excludeDuplicates: true },
        { projects, scanners: ['Trivy'], excludeDuplicates: true, invert: true },
      ];
      const check = async () => {
        for (const f of filters) {
          expect(issueStore.countQuery(t.db, f).toSQL().sql).to.contain('issue_counts');
          // A search every issue meets (searches are never inverted) makes the store count rows instead.
          const byRows = await issueStore.count(t.db, { ...f, search: { title: 'issue' } });
          expect(await issueStore.count(t.db, f), JSON.stringify(f)).to.equal(byRows);
        }
      };
      await check();
      expect(await issueStore.count(t.db, { projects })).to.equal(300 - 28);
      expect(await issueStore.count(t.db, { projects, excludeDuplicates: true })).to.equal(
        300 - 28 - linked.length + 5,
      );
      const before = Number((await t.db('issue_counts').whereIn('project_code', projects).count({ n: '*' }))[0].n);
      await issueStore.compactCounts(t.db);
      const after = await t
        .db('issue_counts')
        .whereIn('project_code', projects)
        .select(COUNT_GROUP_COLUMNS)
        .count({ n: '*' })
        .groupBy(COUNT_GROUP_COLUMNS);
      expect(after.every((g: { n?: string | number }) => Number(g.n) === 1)).to.equal(true);
      expect(after.length).to.be.lessThan(before);
      await check();
    });

    it('adds up a layer\u2019s counted issues for its gates and finds the issues a rule covers', async () => {
      const p = `p-${randomUUID().slice(0, 8)}`;
      const layer = randomUUID();
      await issueStore.insertMany(t.db, [
        issue(p, 1, { layerId: layer, firstScanId: 'NEW' }),
        issue(p, 2, { layerId: layer }),
        issue(p, 3, { layerId: layer, statusId: STATUS.falsePositive }),
      ]);
      const counts = await issueStore.layerCounts(t.db, layer, 'NEW', true);
      expect(counts).to.deep.include({
        total: 2,
        bySeverity: { high: 1, low: 1 },
        newBySeverity: { high: 1 },
        byCategory: { sast: 2 },
        byCvss: { '9.8': 1 },
      });
      expect(counts.byCwe).to.deep.equal({ '1': 1, '2': 1 });
      // Without a CWE condition the second pass is left out; the rest is the same.
      expect(await issueStore.layerCounts(t.db, layer, 'NEW', false)).to.deep.equal({ ...counts, byCwe: {} });
      const covered = await t.db.transaction((trx) =>
        issueStore.coveredByRule(trx, { cve: 'cve-2024-1', projectCodes: [p] }, [STATUS.new]),
      );
      expect(covered).to.have.length(1);
    });

    it('walks the trend back from the open count to what one pass over every issue and its history gives', async () => {
      const p = `p-${randomUUID().slice(0, 8)}`;
      const { new: N, confirmed: C, fixed: F, falsePositive: FP, riskAccepted: RA, reopen: R } = STATUS;
      // Each issue: when first detected, its status then, and its status changes (a null old status: set on creation).
      const timelines: { created: string; changes: [string, number | null, number][] }[] = [
        {
          created: '2026-02-01',
          changes: [
            ['2026-03-03', N, F],
            ['2026-03-10', F, R],
            ['2026-03-17', R, FP],
          ],
        },
        { created: '2026-02-10', changes: [['2026-02-20', N, FP]] },
        {
          created: '2026-03-04',
          changes: [
            ['2026-03-11', N, F],
            ['2026-03-26', F, R],
          ],
        },
        { created: '2026-03-05', changes: [['2026-03-05', null, FP]] },
        {
          created: '2026-03-12',
          changes: [
            ['2026-03-12', N, RA],
            ['2026-03-18', RA, C],
          ],
        },
        { created: '2026-03-25', changes: [] },
        { created: '2026-03-06', changes: [] },
        { created: '2026-01-15', changes: [] },
        {
          created: '2026-03-08',
          changes: [
            ['2026-03-20', N, F],
            ['2026-03-30', F, R],
          ],
        },
      ];
      const rows = timelines.map((tl, n) =>
        issue(p, n + 1, { firstDetectedAt: `${tl.created}T10:00:00.000Z`, statusId: tl.changes.at(-1)?.[2] ?? N }),
      );
      await issueStore.insertMany(t.db, rows);
      await issueStore.update(t.db, rows[6].id, { duplicateOf: rows[0].id }, at);
      await historyStore.add(
        t.db,
        timelines.flatMap((tl, n) =>
          tl.changes.map(([day, from, to]): HistoryEntry => ({
            issueId: rows[n].id,
            actorKind: 'user',
            actor: 'alice',
            field: 'status',
            oldValue: from === null ? null : String(from),
            newValue: String(to),
            comment: null,
            at: `${day}T10:00:00.000Z`,
          })),
        ),
      );
      const starts = ['2026-03-02T00:00:00.000Z', '2026-03-09T00:00:00.000Z', '2026-03-16T00:00:00.000Z'];
      const end = '2026-03-23T00:00:00.000Z';
      const trend = await reportQueries.trend(t.db, { projects: [p] }, starts, end);
      expect(trend.map((w) => [w.opened, w.fixed, w.open])).to.deep.equal([
        [4, 1, 4],
        [1, 1, 4],
        [0, 1, 3],
      ]);
      const filters: IssueFilter[] = [
        { projects: [p] },
        { projects: [p], excludeDuplicates: true },
        { projects: [p], severities: ['high'] },
        { projects: [p], statuses: [FP], invert: true },
      ];
      for (const f of filters) {
        for (const [from, to] of [
          [0, 3],
          [1, 3],
          [2, 3],
        ] as const) {
          expect(await reportQueries.trend(t.db, f, starts.slice(from, to), end)).to.deep.equal(
            await trendByFullPass(t.db, f, starts.slice(from, to), end),
          );
        }
        expect(
          await reportQueries.trend(t.db, f, ['2026-01-01T00:00:00.000Z'], '2026-04-01T00:00:00.000Z'),
        ).to.deep.equal(await trendByFullPass(t.db, f, ['2026-01-01T00:00:00.000Z'], '2026-04-01T00:00:00.000Z'));
      }
    });

    it('claims a scan once and keeps history in order', async () => {
      const scan = { scanId: randomUUID(), checkId: 'C', layerId: 'L', projectCode: 'p' };
      expect(await ingestedStore.claim(t.db, scan)).to.equal(true);
      expect(await ingestedStore.claim(t.db, scan)).to.equal(false);
      const p = `p-${randomUUID().slice(0, 8)}`;
      const row = issue(p, 1);
      await issueStore.insertMany(t.db, [row]);
      await historyStore.add(t.db, [
        {
          issueId: row.id,
          actorKind: 'scan',
          actor: 'S1',
          field: 'status',
          oldValue: '1',
          newValue: '4',
          comment: null,
          at: '2026-01-01T00:00:00Z',
        },
        {
          issueId: row.id,
          actorKind: 'user',
          actor: 'alice',
          field: 'status',
          oldValue: '4',
          newValue: '8',
          comment: 'again',
          at: '2026-01-02T00:00:00Z',
        },
      ]);
      const h = await historyStore.list(t.db, row.id, { page: 1, limit: 10 });
      expect(h.items.map((e) => e.actor)).to.deep.equal(['alice', 'S1']);
      expect((await historyStore.list(t.db, row.id, { page: 1, limit: 10, users: ['alice'] })).total).to.equal(1);
    });
  });
}
