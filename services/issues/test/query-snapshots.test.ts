import path from 'node:path';
import { expect } from 'chai';
import { committedSnapshot, DATABASE_BACKENDS, QueryCase, querySnapshot, TestDatabase } from '@bulwark/testkit';
import { encodeCursor } from '../src/domain/cursor';
import { OPEN_STATUSES, STATUS } from '../src/domain/statuses';
import { migrations } from '../src/migrations';
import { IssueFilter, issueStore, runStatement } from '../src/store/issues/issue-store';
import { at, issue } from './fixtures';

const QUERIES = path.resolve(__dirname, '../queries');
const ISSUE = '00000000-0000-4000-8000-000000000001';
const SCAN = 'S2';
const admin: IssueFilter = { projects: null };
const twoProjects: IssueFilter = { projects: ['P1', 'P2'] };
const page = { page: 1, limit: 50, sort: 'last_detected_at', desc: true } as const;

/** GET /issues and /issues/count: the filters people combine, keyset and offset pages, a caller limited to projects. */
const listCases: QueryCase[] = [
  { name: 'list: every project, no filter, newest first', run: (db) => issueStore.list(db, admin, page) },
  {
    name: 'list: two projects, by tool, severity and status, page 3 by severity',
    run: (db) =>
      issueStore.list(
        db,
        { ...twoProjects, tools: ['Semgrep'], severities: ['critical', 'high'], statuses: OPEN_STATUSES },
        { page: 3, limit: 20, sort: 'severity', desc: true },
      ),
  },
  {
    name: 'list: two projects, after a keyset cursor by cvss, ascending',
    run: (db) =>
      issueStore.list(db, twoProjects, {
        ...page,
        sort: 'cvss',
        desc: false,
        cursor: encodeCursor({ sort: 'cvss', desc: false, value: 7.5, id: ISSUE }),
      }),
  },
  {
    name: 'list: search, CVEs, CWEs, exploitability, detection dates, a comment, no duplicates',
    run: (db) =>
      issueStore.list(
        db,
        {
          ...twoProjects,
          search: { title: 'sql', file_path: 'src/' },
          cves: ['CVE-2024-1'],
          cwes: [89],
          exploitability: ['known_exploited', 'epss'],
          detectedFrom: at,
          lastDetectedTo: at,
          cvss: [{ column: 'cvss_v3', min: 7 }],
          commentMessage: 'triaged',
          excludeDuplicates: true,
        },
        page,
      ),
  },
  {
    name: 'list: inverted filter',
    run: (db) => issueStore.list(db, { ...admin, layers: ['L1'], statuses: [STATUS.fixed], invert: true }, page),
  },
  { name: 'count: every project, no filter (issue_counts)', run: (db) => issueStore.count(db, admin) },
  {
    name: 'count: two projects, by severity and status (issue_counts)',
    run: (db) => issueStore.count(db, { ...twoProjects, severities: ['high'], statuses: OPEN_STATUSES }),
  },
  {
    name: 'count: two projects, open originals (issue_counts)',
    run: (db) => issueStore.count(db, { ...twoProjects, statuses: OPEN_STATUSES, excludeDuplicates: true }),
  },
  {
    name: 'count: as a signed-in user lists them, by severity (issue_counts)',
    run: (db) => issueStore.count(db, { ...admin, caller: ISSUE, severities: ['high'] }),
  },
  {
    name: 'count: two projects, by layer and title (the issues)',
    run: (db) => issueStore.count(db, { ...twoProjects, layers: ['L1'], search: { title: 'sql' } }),
  },
];

const detection = {
  id: ISSUE,
  scanId: SCAN,
  checkId: 'C1',
  layerId: 'L1',
  newScan: true,
  occurrences: 1,
  findings: 1,
  statusId: STATUS.new,
  severity: 'high',
  severityRank: 4,
  startLine: 3,
  suppression: null,
  securityRuleId: null,
};

/** Ingestion: the chunk lookup, its writes, and the set-wise re-detection and fixing of a scan. */
const ingestionCases: QueryCase[] = [
  {
    name: 'byKeys: two identities of one project',
    run: (db) =>
      issueStore.byKeys(db, 'P1', [
        { scope: '', key: 'k1' },
        { scope: 'repo', key: 'k2' },
      ]),
  },
  {
    name: 'insertStatement: two new issues',
    run: (db) => runStatement(db, issueStore.insertStatement([issue('P1', 1, { id: ISSUE }), issue('P1', 2)])),
  },
  {
    name: 'detectStatement: one issue detected again',
    run: (db) => runStatement(db, issueStore.detectStatement(at, [detection])),
  },
  {
    name: 'redetectionCandidates: a re-import of the same report',
    run: (db) => issueStore.redetectionCandidates(db, 'P1', 'S1', STATUS.fixed),
  },
  {
    name: 'redetect: one status changed, one issue left to the diff',
    run: (db) => issueStore.redetect(db, 'S1', SCAN, at, [{ id: ISSUE, statusId: STATUS.reopen }], [ISSUE]),
  },
  {
    name: 'markFixed: open issues the complete scan did not detect',
    run: (db) => issueStore.markFixed(db, 'C1', SCAN, OPEN_STATUSES, STATUS.fixed, at),
  },
];

describe('the SQL of the issues service hot queries matches the committed snapshots (UPDATE_QUERY_SNAPSHOTS=1 rewrites them)', function () {
  let t: TestDatabase;
  // One backend is enough: the statements are knex's, the same on both.
  before(async function () {
    t = await DATABASE_BACKENDS[0].open(this, 'issues', migrations);
  });
  after(async () => t?.close());

  for (const [file, cases] of [
    ['issue-list.sql', listCases],
    ['ingestion.sql', ingestionCases],
  ] as const)
    it(`queries/${file}`, async () => {
      const actual = await querySnapshot(t.db, 'services/issues/test/query-snapshots.test.ts', cases);
      expect(actual).to.equal(committedSnapshot(path.join(QUERIES, file), actual));
    });
});
