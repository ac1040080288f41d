import { Field } from '../../components';
import { formatDate, useI18n } from '../../i18n';
import type { SecurityEvent } from '../../types';
import { LogTable } from './log-table';
import { useEventTypes } from './Notifiers';
import { NotificationsTabs } from './tabs';

/** The security events log, newest first, within the reader's projects: filter by type and project, search the message in the reader's language. */
export function EventsPage() {
  const { t, lang } = useI18n();
  const types = useEventTypes();
  return (
    <section aria-labelledby="events-title">
      <h1 id="events-title" tabIndex={-1}>
        {t('events')}
      </h1>
      <NotificationsTabs />
      <LogTable<SecurityEvent, { type: string; project: string; search: string }>
        id="events"
        path="/events"
        initial={{ type: '', project: '', search: '' }}
        filters={(draft, setDraft) => (
          <>
            <Field id="events-type" label={t('eventType')}>
              <select
                id="events-type"
                value={draft.type}
                onChange={(e) => setDraft({ ...draft, type: e.target.value })}
              >
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
          </>
        )}
        toQuery={(draft) => ({ 'filter[type]': draft.type, 'filter[project_code]': draft.project.trim() })}
        total={(n) => t('eventsTotal', n)}
        columns={[t('when'), t('eventType'), t('project'), t('message')]}
        cells={(ev) => (
          <>
            <td>{formatDate(lang, ev.occurred_at)}</td>
            <td className="mono">{ev.type}</td>
            <td>{ev.project_code ?? '—'}</td>
            <td>{lang === 'ru' ? ev.message_ru : ev.message}</td>
          </>
        )}
      />
    </section>
  );
}
