import { useState } from 'react';
import { api } from '../api';
import { Loading, SeverityBadge } from '../components';
import { LoadError } from '../editing';
import { useLoad } from '../hooks';
import { useI18n } from '../i18n';
import { Link } from '../router';
import { statusName, useSession } from '../session';
import { DuplicateLinkForm } from './duplicate-link';
import type { ChangeResult, Issue, IssueList } from '../types';

/**
 * An issue's relatives: the issue it duplicates, its duplicates (filter[duplicate_of]) and the similar
 * issues the API finds (same CVE and package, or same CWE, file and line), which can be linked as duplicates.
 */
export function IssueRelations({ issue, onChange }: { issue: Issue; onChange: () => void }) {
  const { t } = useI18n();
  const similar = useLoad(() => api<{ items: Issue[] }>('GET', `/issue/${issue.id}/similar`), [issue.id]);
  const duplicates = useLoad(
    () => api<IssueList>('GET', '/issues', undefined, { 'filter[duplicate_of]': issue.id, limit: 100 }),
    [issue.id],
  );
  const original = useLoad(
    () => (issue.duplicate_of ? api<Issue>('GET', `/issue/${issue.duplicate_of}`) : Promise.resolve(undefined)),
    [issue.duplicate_of],
  );
  const [error, setError] = useState<Error>();
  const [pairing, setPairing] = useState<Issue>();
  const [note, setNote] = useState<string>();
  /** Makes `duplicateId` a duplicate of `mainId`, or no longer one (`unlink`). */
  const link = async (mainId: string, duplicateId: string, unlink: boolean) => {
    setError(undefined);
    setNote(undefined);
    try {
      const res = await api<ChangeResult>('POST', `/issue/${mainId}/duplicates`, {
        ids: [duplicateId],
        ...(unlink ? { unlink } : {}),
      });
      const r = res.results[0];
      if (r && r.status !== 'changed') throw new Error(r.message ?? r.status);
      similar.reload();
      duplicates.reload();
      onChange();
      return true;
    } catch (err) {
      setError(err as Error);
      return false;
    }
  };
  return (
    <>
      {issue.duplicate_of && (
        <p>
          {t('duplicateOf')}{' '}
          <Link to={`/issues/${issue.duplicate_of}`}>{original.data?.title ?? issue.duplicate_of}</Link>
        </p>
      )}
      {error && <LoadError error={error} />}
      {note && <p role="status">{note}</p>}
      <section aria-labelledby="duplicates-title">
        <h2 id="duplicates-title">{t('duplicates')}</h2>
        {duplicates.error ? (
          <LoadError error={duplicates.error} />
        ) : !duplicates.data ? (
          <Loading />
        ) : (
          <IssueRows
            label={t('duplicates')}
            items={duplicates.data.items}
            action={(i) => (
              <button type="button" onClick={() => void link(issue.id, i.id, true)}>
                {t('unlinkDuplicate', i.title)}
              </button>
            )}
          />
        )}
      </section>
      <section aria-labelledby="similar-title">
        <h2 id="similar-title">{t('similarIssues')}</h2>
        {similar.error ? (
          <LoadError error={similar.error} />
        ) : !similar.data ? (
          <Loading />
        ) : (
          <IssueRows
            label={t('similarIssues')}
            items={similar.data.items}
            action={(i) =>
              i.duplicate_of === issue.id ? null : (
                <button type="button" aria-expanded={pairing?.id === i.id} onClick={() => setPairing(i)}>
                  {t('linkDuplicateOf', i.title)}
                </button>
              )
            }
          />
        )}
        {pairing && (
          <DuplicateLinkForm
            key={pairing.id}
            issue={issue}
            other={pairing}
            onLink={(main, duplicate) =>
              void link(main.id, duplicate.id, false).then((ok) => {
                if (!ok) return;
                setPairing(undefined);
                setNote(t('duplicateLinked', duplicate.title, main.title));
              })
            }
          />
        )}
      </section>
    </>
  );
}

function IssueRows({ label, items, action }: { label: string; items: Issue[]; action: (i: Issue) => React.ReactNode }) {
  const { t, lang } = useI18n();
  const { statuses } = useSession();
  if (items.length === 0) return <p>{t('none')}</p>;
  return (
    <div className="scroll-box" role="region" aria-label={label} tabIndex={0}>
      <table className="grid">
        <thead>
          <tr>
            <th scope="col">{t('title')}</th>
            <th scope="col">{t('severity')}</th>
            <th scope="col">{t('status')}</th>
            <th scope="col">{t('location')}</th>
            <th scope="col" />
          </tr>
        </thead>
        <tbody>
          {items.map((i) => (
            <tr key={i.id}>
              <td>
                <Link to={`/issues/${i.id}`}>{i.title}</Link>
              </td>
              <td>
                <SeverityBadge severity={i.severity} />
              </td>
              <td>{statusName(statuses, i.status_id, lang)}</td>
              <td className="mono">
                {i.file_path ? `${i.file_path}${i.start_line ? `:${i.start_line}` : ''}` : (i.lib_name ?? '—')}
              </td>
              <td>{action(i)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
