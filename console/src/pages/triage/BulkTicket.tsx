import { FormEvent, useState } from 'react';
import { api } from '../../api';
import { ErrorNote, Field } from '../../components';
import { useI18n } from '../../i18n';
import type { TicketGrouping, TicketResult } from '../../types';
import { TrackerSelect, useTrackers } from './TrackerSelect';

const GROUPINGS = ['issue', 'rule', 'cve'] as const satisfies readonly TicketGrouping[];

/** Tickets for the issues selected in the list: one per issue, rule or CVE. Nothing when no tracker is usable. */
export function BulkTicket({ ids, onDone }: { ids: string[]; onDone: () => void }) {
  const { t } = useI18n();
  const trackers = useTrackers();
  const [tracker, setTracker] = useState('');
  const [groupBy, setGroupBy] = useState<TicketGrouping>('issue');
  const [note, setNote] = useState<string>();
  const [error, setError] = useState<Error>();
  if (!trackers.data?.length) return null;
  const chosen = tracker || trackers.data[0].id;
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    try {
      const res = await api<TicketResult>('POST', '/issues/tickets', { tracker_id: chosen, ids, group_by: groupBy });
      const linked = res.results.filter((r) => r.status === 'linked').length;
      setNote(t('ticketsMade', linked, res.results.length - linked));
      onDone();
    } catch (err) {
      setError(err as Error);
    }
  };
  return (
    <form className="bulk card" aria-label={t('ticketsForSelection')} onSubmit={(e) => void submit(e)}>
      <strong>{t('ticketsForSelection')}</strong>
      <TrackerSelect id="bulk-tracker" trackers={trackers.data} value={chosen} onChange={setTracker} />
      <Field id="bulk-group" label={t('groupTicketsBy')}>
        <select id="bulk-group" value={groupBy} onChange={(e) => setGroupBy(e.target.value as TicketGrouping)}>
          {GROUPINGS.map((g) => (
            <option key={g} value={g}>
              {t(`tg_${g}`)}
            </option>
          ))}
        </select>
      </Field>
      <button type="submit" className="primary">
        {t('createTickets')}
      </button>
      {note && <p role="status">{note}</p>}
      {error && <ErrorNote error={error} />}
    </form>
  );
}
