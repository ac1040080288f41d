import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { DATABASE_BACKENDS, TestDatabase } from '@bulwark/testkit';
import type { Knex } from 'knex';
import { migrations } from '../src/migrations';
import { issueStore } from '../src/store/issues/issue-store';
import { ANALYZE_FLOOR, ANALYZE_FRACTION, tableStatistics } from '../src/store/table-statistics';
import { issue } from './fixtures';

interface TableStatistics {
  analyses: number;
  reltuples: number;
  rows: number;
}

async function statisticsOf(db: Knex, table: string): Promise<TableStatistics> {
  const { rows } = await db.raw<{ rows: { analyses: string; reltuples: number }[] }>(
    `select s.analyze_count as analyses, c.reltuples from pg_stat_user_tables s join pg_class c on c.oid = s.relid
       where s.relname = ? and s.schemaname = current_schema()`,
    [table],
  );
  const [{ n }] = await db(table).count<{ n: string }[]>({ n: '*' });
  return { analyses: Number(rows[0].analyses), reltuples: Number(rows[0].reltuples), rows: Number(n) };
}

/** Inserts `count` new issues of a new project in one transaction, as an ingestion does, refreshing the statistics before it commits. */
async function ingest(db: Knex, count: number): Promise<string[]> {
  const project = `p-${randomUUID().slice(0, 8)}`;
  return db.transaction(async (trx) => {
    for (let from = 0; from < count; from += 2000)
      await issueStore.insertMany(
        trx,
        Array.from({ length: Math.min(2000, count - from) }, (_, i) => issue(project, from + i + 1)),
      );
    const analyzed = await tableStatistics.refreshChangedInBulk(trx);
    // The connection's written rows reach the shared statistics at this commit, not up to a second
    // later, so the next test's transaction counts its own rows only.
    await trx.raw('select pg_stat_force_next_flush()');
    return analyzed;
  });
}

for (const backend of DATABASE_BACKENDS) {
  describe(`planner statistics after bulk writes on ${backend.name}`, function () {
    this.timeout(120_000);
    let t: TestDatabase;
    before(async function () {
      t = await backend.open(this, 'issues', migrations);
      await t.db.raw('analyze issue_records, issue_detection_state');
    });
    after(async () => t?.close());

    it('analyzes nothing after a write below the threshold', async () => {
      const before = await statisticsOf(t.db, 'issue_records');
      expect(await ingest(t.db, 20)).to.deep.equal([]);
      const after = await statisticsOf(t.db, 'issue_records');
      expect(after.analyses).to.equal(before.analyses);
      expect(after.reltuples).to.equal(before.reltuples);
    });

    it('analyzes the tables written above the threshold, so their statistics count the new rows at commit', async () => {
      const before = await statisticsOf(t.db, 'issue_records');
      const count = ANALYZE_FLOOR + Math.ceil(ANALYZE_FRACTION * Math.max(before.reltuples, 0)) + 500;
      expect(await ingest(t.db, count)).to.deep.equal(['issue_detection_state', 'issue_records']);
      for (const table of ['issue_records', 'issue_detection_state']) {
        const after = await statisticsOf(t.db, table);
        expect(after.rows, table).to.equal(before.rows + count);
        expect(after.reltuples, table).to.equal(after.rows);
      }
      expect((await statisticsOf(t.db, 'issue_records')).analyses).to.equal(before.analyses + 1);
    });

    it('scales the threshold with the rows the statistics know', async () => {
      const before = await statisticsOf(t.db, 'issue_records');
      const below = Math.floor(ANALYZE_FRACTION * before.reltuples) + ANALYZE_FLOOR - 100;
      expect(await ingest(t.db, below)).to.deep.equal([]);
      const after = await statisticsOf(t.db, 'issue_records');
      expect(after.analyses).to.equal(before.analyses);
      expect(after.reltuples).to.equal(before.reltuples);
    });
  });
}
