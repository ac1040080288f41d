import { useState } from 'react';
import { api } from '../../api';
import { Field, Loading } from '../../components';
import { deleteIds, DeleteButton, LoadError, useSave } from '../../editing';
import { useLoad } from '../../hooks';
import { useI18n } from '../../i18n';
import { Link } from '../../router';
import type { SavedIssueView } from '../../types';
import { savedQuery } from './view';

/** The reader's own saved views of the list (kept by the API per user): open one, save the current view, delete one. */
export function SavedViews({ search, filterKeys }: { search: URLSearchParams; filterKeys: ReadonlySet<string> }) {
  const { t } = useI18n();
  const views = useLoad(() => api<{ items: SavedIssueView[] }>('GET', '/issue-views'), []);
  const [name, setName] = useState('');
  const save = useSave();
  return (
    <section className="card saved-views" aria-labelledby="saved-views-title">
      <h2 id="saved-views-title">{t('savedViews')}</h2>
      {views.error ? (
        <LoadError error={views.error} />
      ) : !views.data ? (
        <Loading />
      ) : views.data.items.length === 0 ? (
        <p className="hint">{t('noSavedViews')}</p>
      ) : (
        <ul className="saved-view-list">
          {views.data.items.map((v) => (
            <li key={v.id}>
              <Link to={`/issues${v.query ? `?${v.query}` : ''}`}>{v.name}</Link>{' '}
              <DeleteButton
                what={v.name}
                onDelete={async () => {
                  await deleteIds('/issue-views', [v.id]);
                  views.reload();
                }}
              />
            </li>
          ))}
        </ul>
      )}
      <form
        className="inline"
        aria-label={t('saveView')}
        onSubmit={save.submit(async () => {
          const saved = await api<SavedIssueView>('POST', '/issue-views', {
            name: name.trim(),
            query: savedQuery(search, filterKeys),
          });
          setName('');
          views.reload();
          return t('viewSaved', saved.name);
        })}
      >
        <Field id="saved-view-name" label={t('savedViewName')} problem={save.problems.name}>
          <input
            id="saved-view-name"
            required
            maxLength={100}
            value={name}
            onChange={(e) => setName(e.target.value)}
            aria-describedby={save.problems.name ? 'saved-view-name-problem' : undefined}
          />
        </Field>
        <button type="submit" disabled={save.busy}>
          {t('saveView')}
        </button>
        {save.note && <p role="status">{save.note}</p>}
        {save.error && !save.problems.name && <LoadError error={save.error} />}
      </form>
    </section>
  );
}
