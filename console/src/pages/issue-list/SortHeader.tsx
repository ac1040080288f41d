import type { IssueSort } from '../../types';
import { useI18n } from '../../i18n';
import { navigate } from '../../router';
import { defaultSort, withParams } from './view';

/**
 * A column header that sorts the list by its column (the API's `sort`): a first click sorts in the
 * column's usual direction (most severe, newest, by status order), the next reverses it.
 */
export function SortHeader({
  search,
  column,
  label,
  first,
  fixFirst,
}: {
  search: URLSearchParams;
  column: IssueSort;
  label: string;
  first: 'asc' | 'desc';
  fixFirst: boolean;
}) {
  const { t } = useI18n();
  const sort = search.get('sort') ?? defaultSort(fixFirst);
  const current = sort.replace(/^-/, '') === column ? (sort.startsWith('-') ? 'desc' : 'asc') : undefined;
  const next = current ? (current === 'asc' ? 'desc' : 'asc') : first;
  return (
    <th scope="col" aria-sort={current ? (current === 'asc' ? 'ascending' : 'descending') : undefined}>
      <button
        type="button"
        className="sort"
        title={t('sortBy', label)}
        onClick={() => navigate(withParams(search, (p) => p.set('sort', `${next === 'desc' ? '-' : ''}${column}`)))}
      >
        {label}
        {current && <span aria-hidden="true">{current === 'asc' ? ' ▲' : ' ▼'}</span>}
      </button>
    </th>
  );
}
