import { useEffect, useState } from 'react';
import { api } from '../../api';
import { Field } from '../../components';
import { useI18n } from '../../i18n';
import type { Assignee } from '../../types';

/** A user's or group's name in the reader's language: "alice (user)". */
export function useAssigneeName() {
  const { t } = useI18n();
  return (a: Pick<Assignee, 'type' | 'name'>) => t(a.type === 'group' ? 'assigneeGroup' : 'assigneeUser', a.name);
}

/**
 * Finds a user or user group by part of its name (GET /issues/assignees) and offers the matches in a
 * select; `users` leaves groups out (a second approver is a person).
 */
export function AssigneePicker({
  idPrefix,
  label,
  hint,
  users,
  onChange,
}: {
  idPrefix: string;
  label: string;
  hint?: string;
  users?: boolean;
  onChange: (a: Assignee | undefined) => void;
}) {
  const { t } = useI18n();
  const nameOf = useAssigneeName();
  const [text, setText] = useState('');
  const [matches, setMatches] = useState<Assignee[]>([]);
  const [chosen, setChosen] = useState('');
  useEffect(() => {
    const search = text.trim();
    if (!search) {
      setMatches([]);
      return;
    }
    let current = true;
    api<{ items: Assignee[] }>('GET', '/issues/assignees', undefined, { search, limit: 20 }).then(
      (res) => {
        if (!current) return;
        const found = users ? res.items.filter((a) => a.type === 'user') : res.items;
        setMatches(found);
        const first = found[0];
        setChosen(first ? `${first.type}:${first.id}` : '');
        onChange(first);
      },
      () => current && setMatches([]),
    );
    return () => {
      current = false;
    };
    // onChange is the parent's setter: the search runs again only when the text changes.
  }, [text, users]);
  return (
    <>
      <Field id={`${idPrefix}-find`} label={label}>
        <input
          id={`${idPrefix}-find`}
          type="search"
          value={text}
          maxLength={255}
          autoComplete="off"
          aria-describedby={hint ? `${idPrefix}-find-hint` : undefined}
          onChange={(e) => setText(e.target.value)}
        />
        {hint && (
          <span className="hint" id={`${idPrefix}-find-hint`}>
            {hint}
          </span>
        )}
      </Field>
      {text.trim() && (
        <Field id={`${idPrefix}-match`} label={t('assigneeMatches')}>
          {matches.length ? (
            <select
              id={`${idPrefix}-match`}
              value={chosen}
              onChange={(e) => {
                setChosen(e.target.value);
                onChange(matches.find((a) => `${a.type}:${a.id}` === e.target.value));
              }}
            >
              {matches.map((a) => (
                <option key={`${a.type}:${a.id}`} value={`${a.type}:${a.id}`}>
                  {nameOf(a)}
                  {a.display_name ? ` — ${a.display_name}` : ''}
                </option>
              ))}
            </select>
          ) : (
            <output id={`${idPrefix}-match`}>{t('noMatches')}</output>
          )}
        </Field>
      )}
    </>
  );
}
