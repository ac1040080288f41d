import type { issueFilterQuery } from '@bulwark/contracts';
import type { Query } from '../../api';

type FilterKey = keyof typeof issueFilterQuery;

export const PAGE_SIZES = [25, 50, 100, 200] as const;
export const DEFAULT_PAGE_SIZE = 50;

/** The page size of the view: one of PAGE_SIZES from `limit` in the address, else the default. */
export function pageSize(search: URLSearchParams): number {
  const n = Number(search.get('limit'));
  return (PAGE_SIZES as readonly number[]).includes(n) ? n : DEFAULT_PAGE_SIZE;
}

/** Where the page starts in the whole list (`from`, kept by the console beside the API's cursor). */
export function pageStart(search: URLSearchParams): number {
  const n = Number(search.get('from'));
  return search.has('cursor') && Number.isInteger(n) && n > 0 ? n : 0;
}

/**
 * The one rule for duplicates in every count and list: an issue linked as a duplicate of another is
 * not a separate issue, so only originals are counted (as reports and quality gates count), unless the
 * view asks for duplicates: `duplicates=include`, the duplicates of one issue, or inverted filters
 * (whose negation would keep only the duplicates).
 */
export function countsDuplicates(search: URLSearchParams): boolean {
  return (
    search.get('duplicates') === 'include' ||
    search.has('filter[duplicate_of]') ||
    search.get('filter_inversion') === 'true'
  );
}

/** The filter of counts that follow the rule without a view to ask for duplicates (the dashboard's). */
export const ORIGINALS_ONLY = { 'filter[exclude_duplicates]': 'true' } as const satisfies Partial<
  Record<FilterKey, string>
>;

/** The filters of a view as the API takes them, the duplicate rule applied. */
export function filterQuery(search: URLSearchParams, keys: ReadonlySet<string>): Record<string, string[]> {
  const q: Record<string, string[]> = {};
  for (const [key, value] of search) if (keys.has(key)) q[key] = [...(q[key] ?? []), value];
  if (!countsDuplicates(search)) for (const [k, v] of Object.entries(ORIGINALS_ONLY)) q[k] = [v];
  return q;
}

/** The API query of the view in the address bar: the same parameter names, so a saved link is a saved view. */
export function apiQuery(search: URLSearchParams, keys: ReadonlySet<string>): Query {
  const q: Query = { ...filterQuery(search, keys), limit: String(pageSize(search)) };
  for (const key of ['search[title]', 'sort', 'cursor'] as const) {
    const value = search.get(key);
    if (value) q[key] = value;
  }
  return q;
}

/** The address of a file of the view's issues, with its filters and search (the export takes no inversion: see `exportable`). */
export function exportHref(search: URLSearchParams, keys: ReadonlySet<string>, format: string): string {
  const params = new URLSearchParams();
  for (const [key, values] of Object.entries(filterQuery(search, keys))) for (const v of values) params.append(key, v);
  const title = search.get('search[title]');
  if (title) params.set('search[title]', title);
  params.set('format', format);
  return `/api/v1/issues/export?${params.toString()}`;
}

/** Whether the export can take the view's filters: not inverted ones. */
export const exportable = (search: URLSearchParams) => search.get('filter_inversion') !== 'true';

/** The lists of issues: every issue, and Fix first (open issues, the riskiest first), with the same filters. */
export const FIX_FIRST_PATH = '/fix-first';
const listPath = () => (window.location.pathname === FIX_FIRST_PATH ? FIX_FIRST_PATH : '/issues');

/** The sort of a list whose address names none: the newest first, or the riskiest first on Fix first. */
export const defaultSort = (fixFirst: boolean) => (fixFirst ? '-risk_score' : '-first_detected_at');

/**
 * The view's address after a change, on the list it is on; a changed filter or sort starts from the
 * first page, as the cursor belongs to the old ordering.
 */
export function withParams(search: URLSearchParams, change: (p: URLSearchParams) => void): string {
  const next = new URLSearchParams(search);
  next.delete('cursor');
  next.delete('from');
  change(next);
  const s = next.toString();
  return `${listPath()}${s ? `?${s}` : ''}`;
}

const LAST_VIEW = 'bulwark.issues.view';

/** Remembers the list's view (which list, filters, sort, page) for "Back to issues" from an issue. */
export function rememberView(search: URLSearchParams): void {
  const s = search.toString();
  window.sessionStorage.setItem(LAST_VIEW, `${listPath()}${s ? `?${s}` : ''}`);
}

/** The list's last view in this tab, or the list itself. */
export function lastView(): string {
  const v = window.sessionStorage.getItem(LAST_VIEW);
  return v && /^\/(issues|fix-first)([?]|$)/.test(v) ? v : '/issues';
}

/** The view as a saved view keeps it: filters, searches, sort, page size and the duplicate choice; not the place in the list. */
export function savedQuery(search: URLSearchParams, filterKeys: ReadonlySet<string>): string {
  const kept = new Set([...filterKeys, 'search[title]', 'sort', 'limit', 'duplicates']);
  return new URLSearchParams([...search].filter(([k]) => kept.has(k))).toString();
}
