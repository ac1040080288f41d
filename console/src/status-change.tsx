import { FormEvent, ReactNode, useState } from 'react';
import { api } from './api';
import { ErrorNote, Field } from './components';
import { useI18n } from './i18n';
import { useSession } from './session';
import type { ChangeResult } from './types';

/**
 * Changes the status of issues, with an optional comment: the issue page's form for one issue and
 * the issues list's for a selection. `outcome` says what the answer means to the reader.
 */
export function StatusChangeForm({
  ids,
  idPrefix,
  className,
  heading,
  outcome,
  onDone,
}: {
  ids: string[];
  idPrefix: string;
  className: string;
  heading: ReactNode;
  outcome: (res: ChangeResult) => string | undefined;
  onDone: () => void;
}) {
  const { t, lang } = useI18n();
  const { statuses } = useSession();
  const [status, setStatus] = useState('');
  const [comment, setComment] = useState('');
  const [note, setNote] = useState<string>();
  const [error, setError] = useState<Error>();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    try {
      const res = await api<ChangeResult>('PUT', '/issues/status', {
        ids,
        status_id: Number(status),
        ...(comment.trim() ? { comment: comment.trim() } : {}),
      });
      setNote(outcome(res));
      setComment('');
      onDone();
    } catch (err) {
      setError(err as Error);
    }
  };
  return (
    <form className={className} onSubmit={(e) => void submit(e)} aria-label={t('changeStatus')}>
      {heading}
      <Field id={`${idPrefix}-status`} label={t('newStatus')}>
        <select id={`${idPrefix}-status`} required value={status} onChange={(e) => setStatus(e.target.value)}>
          <option value="" />
          {statuses.map((s) => (
            <option key={s.id} value={s.id}>
              {lang === 'ru' ? s.name_ru : s.name_en}
            </option>
          ))}
        </select>
      </Field>
      <Field id={`${idPrefix}-comment`} label={t('comment')}>
        <input
          id={`${idPrefix}-comment`}
          value={comment}
          maxLength={4000}
          onChange={(e) => setComment(e.target.value)}
        />
      </Field>
      <button type="submit" className="primary">
        {t('apply')}
      </button>
      {note && <p role="status">{note}</p>}
      {error && <ErrorNote error={error} />}
    </form>
  );
}
