import path from 'node:path';
import { expect } from 'chai';
import { committedSnapshot, DATABASE_BACKENDS, QueryCase, querySnapshot, TestDatabase } from '@bulwark/testkit';
import { migrations } from '../src/migrations';
import { findingRefStore } from '../src/store/finding-refs';
import { findingStore } from '../src/store/findings';
import { rescanDiffStore } from '../src/store/rescan-diffs';

const SCAN = '00000000-0000-4000-8000-000000000001';
const HOLDER = '00000000-0000-4000-8000-000000000002';

/** The findings hand-over to issues (what ScanFindings reads), and the findings page over the same relation. */
const handoverCases: QueryCase[] = [
  {
    name: 'findingStore.holder: the scan that holds a scan\u2019s findings',
    run: (db) => findingStore.holder(db, SCAN),
  },
  { name: 'findingStore.lastSeq', run: (db) => findingStore.lastSeq(db, HOLDER) },
  { name: 'findingRefStore.groupsOf', run: (db) => findingRefStore.groupsOf(db, SCAN) },
  { name: 'findingStore.chunk: a range of the key', run: (db) => findingStore.chunk(db, HOLDER, 500, 500) },
  {
    name: 'rescanDiffStore.findingsAt: the findings a rescan changed',
    run: (db) => rescanDiffStore.findingsAt(db, HOLDER, [3, 5, 8]),
  },
  {
    name: 'findingRefStore.textsAt: referenced findings, as the referencing scan has them',
    run: (db) => findingRefStore.textsAt(db, SCAN, HOLDER, [3, 5]),
  },
  {
    name: 'findingStore.page over findingRefStore.findingsOf: page 2 of the high ones',
    run: (db) => findingStore.page(db, SCAN, { page: 2, limit: 50, severity: 'high' }),
  },
];

describe('the SQL of the scanning service hot queries matches the committed snapshots (UPDATE_QUERY_SNAPSHOTS=1 rewrites them)', function () {
  let t: TestDatabase;
  // One backend is enough: the statements are knex's, the same on both.
  before(async function () {
    t = await DATABASE_BACKENDS[0].open(this, 'scanning', migrations);
  });
  after(async () => t?.close());

  it('queries/findings-handover.sql', async () => {
    const actual = await querySnapshot(t.db, 'services/scanning/test/query-snapshots.test.ts', handoverCases);
    expect(actual).to.equal(committedSnapshot(path.resolve(__dirname, '../queries/findings-handover.sql'), actual));
  });
});
