import { csvRecord, CsvValue, Queryable } from '@bulwark/platform';
import { IssueFilter, issueStore } from './store/issues/issue-store';
import type { IssueRecord } from './store/issues/rows';

const PAGE = 1000;

/** The export's columns: a header and how each issue fills it. */
const COLUMNS: [string, (i: IssueRecord, status: string) => CsvValue][] = [
  ['id', (i) => i.id],
  ['project_code', (i) => i.projectCode],
  ['severity', (i) => i.severity],
  ['title', (i) => i.title],
  ['status', (_, status) => status],
  ['scanner', (i) => i.scanner],
  ['tool_name', (i) => i.toolName],
  ['category', (i) => i.category],
  ['rule_id', (i) => i.ruleId],
  ['vulnerability_ids', (i) => i.vulnerabilityIds.join(' ') || i.cve],
  ['cwes', (i) => i.cwes.map((c) => `CWE-${c}`).join(' ')],
  ['lib_name', (i) => i.libName],
  ['lib_version', (i) => i.libVersion],
  ['file_path', (i) => i.filePath],
  ['start_line', (i) => i.startLine],
  ['cvss', (i) => i.cvssMax],
  ['epss', (i) => i.epss],
  ['known_exploited', (i) => String(i.knownExploited)],
  ['assignee', (i) => i.assignee],
  ['duplicate_of', (i) => i.duplicateOf],
  ['first_detected_at', (i) => i.firstDetectedAt],
  ['last_detected_at', (i) => i.lastDetectedAt],
];

/** The issues a filter selects as RFC 4180 CSV, oldest first, page by page (an export of a million issues never sits in memory). */
export async function* csvExport(
  db: Queryable,
  filter: IssueFilter,
  statusNames: Map<number, string>,
): AsyncGenerator<string> {
  yield csvRecord(COLUMNS.map(([name]) => name));
  for (let cursor: string | undefined; ;) {
    const page = await issueStore.list(db, filter, {
      page: 1,
      limit: PAGE,
      sort: 'first_detected_at',
      desc: false,
      cursor,
    });
    if (page.items.length)
      yield page.items
        .map((i) => csvRecord(COLUMNS.map(([, cell]) => cell(i, statusNames.get(i.statusId) ?? String(i.statusId)))))
        .join('');
    if (!page.nextCursor) return;
    cursor = page.nextCursor;
  }
}
