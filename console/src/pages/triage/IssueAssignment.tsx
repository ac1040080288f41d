import { FormEvent, useState } from 'react';
import { api } from '../../api';
import { ErrorNote } from '../../components';
import { useI18n } from '../../i18n';
import type { Assignee, Issue } from '../../types';
import { AssigneePicker, useAssigneeName } from './AssigneePicker';

/** The issue's assignee: a user or a group found by name, or nobody. */
export function IssueAssignment({ issue, onChange }: { issue: Issue; onChange: () => void }) {
  const { t } = useI18n();
  const nameOf = useAssigneeName();
  const [chosen, setChosen] = useState<Assignee>();
  const [error, setError] = useState<Error>();
  const assign = async (assignee: Assignee | null) => {
    setError(undefined);
    try {
      await api('PUT', `/issue/${issue.id}/assignee`, {
        assignee: assignee && { type: assignee.type, id: assignee.id },
      });
      onChange();
    } catch (err) {
      setError(err as Error);
    }
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (chosen) void assign(chosen);
  };
  return (
    <form className="card inline" aria-labelledby="assign-title" onSubmit={submit}>
      <h3 id="assign-title">{t('assignTo')}</h3>
      <p role="status">
        {issue.assignee
          ? t(
              'assignedTo',
              issue.assignee_type ? nameOf({ type: issue.assignee_type, name: issue.assignee }) : issue.assignee,
            )
          : t('notAssigned')}
      </p>
      <AssigneePicker idPrefix="assignee" label={t('findAssignee')} hint={t('findAssigneeHint')} onChange={setChosen} />
      <button type="submit" className="primary" disabled={!chosen}>
        {t('assign')}
      </button>
      {issue.assignee && (
        <button type="button" onClick={() => void assign(null)}>
          {t('unassign')}
        </button>
      )}
      {error && <ErrorNote error={error} />}
    </form>
  );
}
