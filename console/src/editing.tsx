// Pieces the console's editing pages share: rights-aware errors, a two-step delete, an area's tabs, list fields, a form's save, paged lists.
import { DependencyList, FormEvent, ReactNode, useEffect, useState } from 'react';
import { api, ApiError } from './api';
import { ErrorNote } from './components';
import { Loaded, useLoad } from './hooks';
import { useI18n } from './i18n';
import { Link, useLocation } from './router';
import type { Page } from './types';

/** A refusal for lack of rights says so in words; anything else is the usual error note. */
export function LoadError({ error }: { error: Error }) {
  const { t } = useI18n();
  if (error instanceof ApiError && error.status === 403)
    return (
      <p role="alert" className="error">
        {t('forbidden')}
      </p>
    );
  return <ErrorNote error={error} />;
}

/** Bulk delete (the API's DELETE /<plural> with ids); an id the API did not delete is an error naming why. */
export async function deleteIds(path: string, ids: string[]): Promise<void> {
  const res = await api<{ results: { id: string; status: string; message?: string }[] }>('DELETE', path, { ids });
  const refused = res.results.find((r) => r.status !== 'deleted');
  if (refused) throw new Error(refused.message ?? refused.status);
}

/**
 * Delete in two steps without a modal dialog: the first press asks, the second (same place, so the
 * keyboard focus stays on it) deletes. Escape or Cancel steps back.
 */
export function DeleteButton({ what, onDelete }: { what: string; onDelete: () => Promise<void> }) {
  const { t } = useI18n();
  const [asking, setAsking] = useState(false);
  const [error, setError] = useState<Error>();
  if (!asking)
    return (
      <button type="button" onClick={() => setAsking(true)}>
        {t('deleteX', what)}
      </button>
    );
  const confirm = async () => {
    setError(undefined);
    try {
      await onDelete();
    } catch (err) {
      setError(err as Error);
    }
  };
  return (
    <span className="actions" onKeyDown={(e) => e.key === 'Escape' && setAsking(false)}>
      <button type="button" className="danger" autoFocus onClick={() => void confirm()}>
        {t('confirmDelete', what)}
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        {t('cancel')}
      </button>
      {error && <LoadError error={error} />}
    </span>
  );
}

/** The tabs of an area (policy, notifications): links, the current one marked for assistive technology. */
export function AreaTabs({ label, tabs }: { label: string; tabs: [string, string][] }) {
  const { path } = useLocation();
  return (
    <nav aria-label={label} className="tabs">
      {tabs.map(([to, name]) => (
        <Link key={to} to={to} ariaCurrent={path === to}>
          {name}
        </Link>
      ))}
    </nav>
  );
}

/** Comma-separated text to a list, empties dropped. */
export const splitList = (text: string, by: RegExp = /,/) =>
  text
    .split(by)
    .map((x) => x.trim())
    .filter(Boolean);

/** The API's per-field problems of a failed save, with the error itself. */
function failure(err: unknown): { problems: Record<string, string>; error: Error } {
  return { problems: err instanceof ApiError ? err.problems() : {}, error: err as Error };
}

export interface Save {
  /** The last failed save's problems by field (empty when none) and its error. */
  problems: Record<string, string>;
  error: Error | undefined;
  /** What the last successful save said, if anything. */
  note: string | undefined;
  /** A save is in flight: the form's submit button waits. */
  busy: boolean;
  /** The form's submit handler: clears the last outcome and runs `save`; what it returns becomes the note, what it throws the problems and error. */
  submit: (save: () => Promise<string | void>) => (e: FormEvent) => void;
}

/** The state every editing form keeps around its save. */
export function useSave(): Save {
  const [state, setState] = useState<Omit<Save, 'submit'>>({
    problems: {},
    error: undefined,
    note: undefined,
    busy: false,
  });
  const submit = (save: () => Promise<string | void>) => (e: FormEvent) => {
    e.preventDefault();
    setState({ problems: {}, error: undefined, note: undefined, busy: true });
    save().then(
      (note) => setState({ problems: {}, error: undefined, note: note || undefined, busy: false }),
      (err: unknown) => setState({ ...failure(err), note: undefined, busy: false }),
    );
  };
  return { ...state, submit };
}

/** Previous / next over a paged list, with where the reader is. */
export function Pager({
  page,
  total,
  limit,
  onPage,
}: {
  page: number;
  total: number;
  limit: number;
  onPage: (page: number) => void;
}) {
  const { t } = useI18n();
  const last = Math.max(1, Math.ceil(total / limit));
  return (
    <nav className="pager" aria-label={t('pages')}>
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        {t('previousPage')}
      </button>
      <span>{t('pageOf', page, last)}</span>
      <button type="button" disabled={page >= last} onClick={() => onPage(page + 1)}>
        {t('nextPage')}
      </button>
    </nav>
  );
}

/** Rows a page of an editing list shows. */
const LIST_LIMIT = 50;

/**
 * A list the API pages (page and limit): the page on screen, its load, and the pager under it. A
 * change of `deps` (a search, a filter) starts again from the first page; a page emptied by a delete
 * steps back to the new last one.
 */
export function usePagedList<T>(
  load: (paging: { page: number; limit: number }) => Promise<Page<T>>,
  deps: DependencyList,
): Loaded<Page<T>> & { pager: ReactNode } {
  const key = JSON.stringify(deps);
  const [at, setAt] = useState({ key, page: 1 });
  const page = at.key === key ? at.page : 1;
  const list = useLoad(() => load({ page, limit: LIST_LIMIT }), [key, page]);
  const total = list.data?.total;
  const last = Math.max(1, Math.ceil((total ?? 0) / LIST_LIMIT));
  useEffect(() => {
    if (total !== undefined && page > last) setAt({ key, page: last });
  }, [total, page, last, key]);
  const pager = total !== undefined && (
    <Pager page={page} total={total} limit={LIST_LIMIT} onPage={(p) => setAt({ key, page: p })} />
  );
  return { ...list, pager };
}
