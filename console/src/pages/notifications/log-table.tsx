// The page shape the events log and the error log share: a filter form with a message search and a
// CSV download of what it selects, then a page of the matching records with their count.
import { FormEvent, ReactNode, useState } from 'react';
import { api, downloadUrl, Query } from '../../api';
import { Field, Loading } from '../../components';
import { LoadError, Pager } from '../../editing';
import { useLoad } from '../../hooks';
import { useI18n } from '../../i18n';
import type { Page } from '../../types';
import { HeadRow } from '../editable-list';

const LIMIT = 50;

export function LogTable<T extends { id: string }, Draft extends { search: string }>({
  id,
  path,
  initial,
  filters,
  toQuery,
  total,
  columns,
  cells,
}: {
  /** Prefix of the form's field ids. */
  id: string;
  /** The API's list; its CSV export is `${path}/csv`. */
  path: string;
  initial: Draft;
  /** The form's fields before the message search, editing the draft. */
  filters: (draft: Draft, setDraft: (next: Draft) => void) => ReactNode;
  /** The query the draft's filters (all but the search) make. */
  toQuery: (draft: Draft) => Query;
  total: (n: number) => string;
  columns: string[];
  cells: (item: T) => ReactNode;
}) {
  const { t, lang } = useI18n();
  const [draft, setDraft] = useState(initial);
  const [query, setQuery] = useState<Query>({});
  const [page, setPage] = useState(1);
  const records = useLoad(
    () => api<Page<T>>('GET', path, undefined, { ...query, page, limit: LIMIT }),
    [path, query, page],
  );
  const apply = (e: FormEvent) => {
    e.preventDefault();
    setPage(1);
    setQuery({
      ...toQuery(draft),
      [lang === 'ru' ? 'search[message_ru]' : 'search[message]']: draft.search.trim(),
    });
  };
  return (
    <>
      <form className="card inline" onSubmit={apply} aria-label={t('filters')}>
        {filters(draft, setDraft)}
        <Field id={`${id}-search`} label={t('messageContains')}>
          <input
            id={`${id}-search`}
            type="search"
            maxLength={255}
            value={draft.search}
            onChange={(e) => setDraft({ ...draft, search: e.target.value })}
          />
        </Field>
        <button type="submit" className="primary">
          {t('apply')}
        </button>
        <a href={downloadUrl(`${path}/csv`, query)} download>
          {t('downloadCsv')}
        </a>
      </form>
      {records.error && <LoadError error={records.error} />}
      {!records.data ? (
        !records.error && <Loading />
      ) : (
        <>
          <p role="status">{total(records.data.total)}</p>
          {records.data.items.length > 0 && (
            <table className="grid">
              <thead>
                <HeadRow columns={columns} />
              </thead>
              <tbody>
                {records.data.items.map((r) => (
                  <tr key={r.id}>{cells(r)}</tr>
                ))}
              </tbody>
            </table>
          )}
          <Pager page={page} total={records.data.total} limit={LIMIT} onPage={setPage} />
        </>
      )}
    </>
  );
}
