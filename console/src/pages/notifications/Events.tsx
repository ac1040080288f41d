import { FormEvent, useState } from 'react';
import { api, downloadUrl, Query } from '../../api';
import { Field, Loading } from '../../components';
import { LoadError, Pager } from '../../editing';
import { useLoad } from '../../hooks';
import { formatDate, useI18n } from '../../i18n';
import type { Page, SecurityEvent } from '../../types';
import { useEventTypes } from './Notifiers';
import { NotificationsTabs } from './tabs';

const LIMIT = 50;

/** The security events log, newest first, within the reader's projects: filter by type and project, search the message in the reader's language. */
export function EventsPage() {
  const { t, lang } = useI18n();
  const types = useEventTypes();
  const [draft, setDraft] = useState({ type: '', project: '', search: '' });
  const [query, setQuery] = useState<Query>({});
  const [page, setPage] = useState(1);
  const events = useLoad(
    () => api<Page<SecurityEvent>>('GET', '/events', undefined, { ...query, page, limit: LIMIT }),
    [query, page],
  );
  const apply = (e: FormEvent) => {
    e.preventDefault();
    setPage(1);
    setQuery({
      'filter[type]': draft.type,
      'filter[project_code]': draft.project.trim(),
      [lang === 'ru' ? 'search[message_ru]' : 'search[message]']: draft.search.trim(),
    });
  };
  return (
    <section aria-labelledby="events-title">
      <h1 id="events-title" tabIndex={-1}>
        {t('events')}
      </h1>
      <NotificationsTabs />
      <form className="card inline" onSubmit={apply} aria-label={t('filters')}>
        <Field id="events-type" label={t('eventType')}>
          <select id="events-type" value={draft.type} onChange={(e) => setDraft({ ...draft, type: e.target.value })}>
            <option value="">{t('allEvents')}</option>
            {types.data?.map((ev) => (
              <option key={ev.type} value={ev.type}>
                {ev.type}
              </option>
            ))}
          </select>
        </Field>
        <Field id="events-project" label={t('project')}>
          <input
            id="events-project"
            maxLength={64}
            value={draft.project}
            onChange={(e) => setDraft({ ...draft, project: e.target.value })}
          />
        </Field>
        <Field id="events-search" label={t('messageContains')}>
          <input
            id="events-search"
            type="search"
            maxLength={255}
            value={draft.search}
            onChange={(e) => setDraft({ ...draft, search: e.target.value })}
          />
        </Field>
        <button type="submit" className="primary">
          {t('apply')}
        </button>
        <a href={downloadUrl('/events/csv', query)} download>
          {t('downloadCsv')}
        </a>
      </form>
      {events.error && <LoadError error={events.error} />}
      {!events.data ? (
        !events.error && <Loading />
      ) : (
        <>
          <p role="status">{t('eventsTotal', events.data.total)}</p>
          {events.data.items.length > 0 && (
            <table className="grid">
              <thead>
                <tr>
                  <th scope="col">{t('when')}</th>
                  <th scope="col">{t('eventType')}</th>
                  <th scope="col">{t('project')}</th>
                  <th scope="col">{t('message')}</th>
                </tr>
              </thead>
              <tbody>
                {events.data.items.map((ev) => (
                  <tr key={ev.id}>
                    <td>{formatDate(lang, ev.occurred_at)}</td>
                    <td className="mono">{ev.type}</td>
                    <td>{ev.project_code ?? '—'}</td>
                    <td>{lang === 'ru' ? ev.message_ru : ev.message}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <Pager page={page} total={events.data.total} limit={LIMIT} onPage={setPage} />
        </>
      )}
    </section>
  );
}
