// Pieces the console's editing pages share: rights-aware errors, a two-step delete, an area's tabs, list fields, a pager.
import { useState } from 'react';
import { api, ApiError } from './api';
import { ErrorNote } from './components';
import { useI18n } from './i18n';
import { Link, useLocation } from './router';

/** A refusal for lack of rights says so in words; anything else is the usual error note. */
export function LoadError({ error }: { error: Error }) {
  const { t } = useI18n();
  if (error instanceof ApiError && error.status === 403) return <p role="alert" className="error">{t('forbidden')}</p>;
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
  if (!asking) return <button type="button" onClick={() => setAsking(true)}>{t('deleteX', what)}</button>;
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
      <button type="button" className="danger" autoFocus onClick={() => void confirm()}>{t('confirmDelete', what)}</button>
      <button type="button" onClick={() => setAsking(false)}>{t('cancel')}</button>
      {error && <LoadError error={error} />}
    </span>
  );
}

/** The tabs of an area (policy, notifications): links, the current one marked for assistive technology. */
export function AreaTabs({ label, tabs }: { label: string; tabs: [string, string][] }) {
  const { path } = useLocation();
  return (
    <nav aria-label={label} className="tabs">
      {tabs.map(([to, name]) => <Link key={to} to={to} ariaCurrent={path === to}>{name}</Link>)}
    </nav>
  );
}

/** Comma-separated text to a list, empties dropped. */
export const splitList = (text: string, by: RegExp = /,/) => text.split(by).map((x) => x.trim()).filter(Boolean);

/** The API's per-field problems of a failed save, with the error itself. */
export function failure(err: unknown): { problems: Record<string, string>; error: Error } {
  return { problems: err instanceof ApiError ? err.problems() : {}, error: err as Error };
}

/** Previous / next over a paged list, with where the reader is. */
export function Pager({ page, total, limit, onPage }: { page: number; total: number; limit: number; onPage: (page: number) => void }) {
  const { t } = useI18n();
  const last = Math.max(1, Math.ceil(total / limit));
  return (
    <nav className="pager" aria-label={t('pages')}>
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>{t('previousPage')}</button>
      <span>{t('pageOf', page, last)}</span>
      <button type="button" disabled={page >= last} onClick={() => onPage(page + 1)}>{t('nextPage')}</button>
    </nav>
  );
}
