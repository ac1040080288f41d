import type { Queryable } from '@bulwark/platform';
import { errorsCsvHeader, errorsCsvLines } from './http/views';
import { ErrorCursor, ErrorQuery, errorStore } from './store/errors';

const CSV_PAGE = 1000;

/** The error log of every service, for administrators (the route table's permission). */
export class ErrorLog {
  constructor(private readonly db: Queryable) {}

  list(q: ErrorQuery & { page: number; limit: number }) {
    return errorStore.list(this.db, q);
  }

  /** The values the log's filters can take within a time range. */
  filterValues(q: Pick<ErrorQuery, 'from' | 'to'>) {
    return errorStore.filterValues(this.db, q);
  }

  csv(q: ErrorQuery): AsyncGenerator<string> {
    return errorsCsv(this.db, q);
  }
}

/** The errors a query selects as CSV, newest first, read page by page by keyset: the whole log never sits in memory. */
async function* errorsCsv(db: Queryable, q: ErrorQuery): AsyncGenerator<string> {
  yield errorsCsvHeader();
  for (let after: ErrorCursor | undefined; ;) {
    const page = await errorStore.pageAfter(db, q, after, CSV_PAGE);
    if (page.length > 0) yield errorsCsvLines(page);
    if (page.length < CSV_PAGE) return;
    const last = page[page.length - 1];
    after = { occurredAt: last.occurredAt, id: last.id };
  }
}
