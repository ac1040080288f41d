import { api } from '../api';
import { ErrorNote, Loading, SeverityBadge } from '../components';
import { useLoad } from '../hooks';
import { formatDate, useI18n } from '../i18n';
import { Link } from '../router';
import { statusName, useSession } from '../session';
import { StatusChangeForm } from '../status-change';
import { Facts } from './facts';
import { IssueIntel } from './intel/IssueIntel';
import { IssueHistoryTable } from './issue-history';
import { lastView } from './issue-list/view';
import { IssueRelations } from './IssueRelations';
import { IssueTriage } from './triage/IssueTriage';
import type { Issue, IssueHistoryEntry, Page } from '../types';

export function IssueDetail({ id }: { id: string }) {
  const { t, lang } = useI18n();
  const { statuses } = useSession();
  const issue = useLoad(() => api<Issue>('GET', `/issue/${id}`), [id]);
  const history = useLoad(
    () => api<Page<IssueHistoryEntry>>('GET', `/issue/${id}/history`, undefined, { limit: 100 }),
    [id],
  );
  const reload = () => {
    issue.reload();
    history.reload();
  };
  if (issue.error) return <ErrorNote error={issue.error} />;
  if (!issue.data) return <Loading />;
  const i = issue.data;
  const rows: [string, string][] = [
    [t('status'), statusName(statuses, i.status_id, lang)],
    [t('project'), i.project_code],
    [t('tool'), i.scanner],
    [t('category'), i.category],
    [t('location'), i.file_path ? `${i.file_path}${i.start_line ? `:${i.start_line}` : ''}` : '—'],
    [t('library'), i.lib_name ? `${i.lib_name} ${i.lib_version ?? ''}` : '—'],
    [t('cve'), i.vulnerability_ids.join(', ') || i.cve || '—'],
    [t('cwe'), i.cwes.map((c) => `CWE-${c}`).join(', ') || '—'],
    [t('rule'), i.rule_id ?? '—'],
    [t('assignee'), i.assignee ?? '—'],
    [t('occurrences'), String(i.occurrences)],
    [t('detections'), String(i.detections)],
    [t('detected'), formatDate(lang, i.first_detected_at)],
    [t('lastDetected'), formatDate(lang, i.last_detected_at)],
  ];
  return (
    <article aria-labelledby="issue-title">
      <p>
        <Link to={lastView()}>← {t('back')}</Link>
      </p>
      <h1 id="issue-title" tabIndex={-1}>
        <SeverityBadge severity={i.severity} /> {i.title}
      </h1>
      <Facts rows={rows} />
      <IssueIntel issue={i} />
      {i.description && (
        <section aria-labelledby="desc-title">
          <h2 id="desc-title">{t('description')}</h2>
          <p className="prewrap">{i.description}</p>
        </section>
      )}
      <StatusChangeForm
        ids={[i.id]}
        idPrefix="detail"
        className="card inline"
        heading={<h2>{t('changeStatus')}</h2>}
        outcome={(res) => {
          const r = res.results[0];
          return r?.status === 'changed'
            ? t('statusChanged')
            : r?.status === 'unchanged'
              ? t('statusUnchanged')
              : (r?.message ?? r?.status);
        }}
        onDone={reload}
      />
      <IssueTriage issue={i} onChange={reload} />
      <IssueRelations issue={i} onChange={reload} />
      <section aria-labelledby="history-title">
        <h2 id="history-title">{t('history')}</h2>
        {history.error && <ErrorNote error={history.error} />}
        {history.data && <IssueHistoryTable entries={history.data.items} />}
      </section>
    </article>
  );
}
