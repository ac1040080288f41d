import { FormEvent, useState } from 'react';
import { api } from '../../api';
import { ErrorNote } from '../../components';
import { useI18n } from '../../i18n';
import { Link } from '../../router';
import type { Assignee } from '../../types';
import { AssigneePicker } from './AssigneePicker';

/** Assigns the issues selected in the list in one request (all or nothing). */
export function BulkAssign({ ids, onDone }: { ids: string[]; onDone: () => void }) {
  const { t } = useI18n();
  const [chosen, setChosen] = useState<Assignee>();
  const [note, setNote] = useState<string>();
  const [error, setError] = useState<Error>();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!chosen) return;
    setError(undefined);
    try {
      const res = await api<{ results: { status: string }[] }>('PUT', '/issues/assignee', {
        ids,
        assignee: { type: chosen.type, id: chosen.id },
      });
      const changed = res.results.filter((r) => r.status === 'changed').length;
      setNote(t('assignedMany', changed, res.results.length - changed));
      onDone();
    } catch (err) {
      setError(err as Error);
    }
  };
  return (
    <form className="bulk card" aria-label={t('assignSelected')} onSubmit={(e) => void submit(e)}>
      <strong>{t('assignSelected')}</strong>
      <AssigneePicker idPrefix="bulk-assignee" label={t('findAssignee')} onChange={setChosen} />
      <button type="submit" className="primary" disabled={!chosen}>
        {t('assign')}
      </button>
      {note && <p role="status">{note}</p>}
      {error && <ErrorNote error={error} />}
    </form>
  );
}

/** The two triage views of the list, as links that set filter[assignee]: mine and nobody's. */
export function AssigneeViews({ search, to }: { search: URLSearchParams; to: (value: string) => string }) {
  const { t } = useI18n();
  const current = search.getAll('filter[assignee]');
  return (
    <nav className="inline" aria-label={t('triage')}>
      {(
        [
          ['me', 'assignedToMe'],
          ['none', 'unassigned'],
        ] as const
      ).map(([value, label]) => (
        <Link key={value} to={to(value)} ariaCurrent={current.length === 1 && current[0] === value}>
          {t(label)}
        </Link>
      ))}
    </nav>
  );
}
