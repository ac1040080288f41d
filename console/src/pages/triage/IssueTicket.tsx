import { FormEvent, useState } from 'react';
import { api } from '../../api';
import { ErrorNote, Field } from '../../components';
import { formatDate, useI18n } from '../../i18n';
import type { Issue } from '../../types';
import { TrackerSelect, useTrackers } from './TrackerSelect';

/** The issue's ticket in a task tracker with the status last read from it; or create one, or link an existing one. */
export function IssueTicket({ issue, onChange }: { issue: Issue; onChange: () => void }) {
  const { t, lang } = useI18n();
  const trackers = useTrackers();
  const [tracker, setTracker] = useState('');
  const [key, setKey] = useState('');
  const [error, setError] = useState<Error>();
  const chosen = tracker || trackers.data?.[0]?.id || '';
  const call = async (method: 'POST' | 'PUT' | 'DELETE', body?: object) => {
    setError(undefined);
    try {
      await api(method, `/issue/${issue.id}/ticket`, body);
      setKey('');
      onChange();
    } catch (err) {
      setError(err as Error);
    }
  };
  const link = (e: FormEvent) => {
    e.preventDefault();
    void call('PUT', { tracker_id: chosen, key: key.trim() });
  };
  const ticket = issue.ticket;
  return (
    <section aria-labelledby="ticket-title">
      <h3 id="ticket-title">{t('ticket')}</h3>
      {ticket ? (
        <p>
          <a href={ticket.url} rel="noreferrer noopener" target="_blank">
            {ticket.key}
          </a>{' '}
          —{' '}
          {ticket.status
            ? t('ticketState', ticket.status, t(ticket.closed ? 'ticketClosed' : 'ticketOpen'))
            : t('ticketUnknown')}
          {ticket.synced_at && `, ${t('ticketSynced', formatDate(lang, ticket.synced_at))}`}{' '}
          <button type="button" onClick={() => void call('DELETE')}>
            {t('unlinkTicket')}
          </button>
        </p>
      ) : (
        <>
          <p>{t('noTicket')}</p>
          {trackers.error && <ErrorNote error={trackers.error} />}
          {trackers.data && trackers.data.length === 0 && <p>{t('noTrackers')}</p>}
          {trackers.data && trackers.data.length > 0 && (
            <form className="card inline" aria-labelledby="ticket-title" onSubmit={link}>
              <TrackerSelect id="ticket-tracker" trackers={trackers.data} value={chosen} onChange={setTracker} />
              <button type="button" className="primary" onClick={() => void call('POST', { tracker_id: chosen })}>
                {t('createTicket')}
              </button>
              <Field id="ticket-key" label={t('existingKey')}>
                <input id="ticket-key" required maxLength={255} value={key} onChange={(e) => setKey(e.target.value)} />
              </Field>
              <button type="submit">{t('linkTicket')}</button>
            </form>
          )}
        </>
      )}
      {error && <ErrorNote error={error} />}
    </section>
  );
}
