import { FormEvent, useEffect, useState } from 'react';
import { api, ApiError, downloadUrl } from '../api';
import { ErrorNote, Field, Loading } from '../components';
import { useLoad } from '../hooks';
import { formatDate, useI18n } from '../i18n';
import type { Page, Report, ReportPeriod } from '../types';

const PERIODS = ['all', 'day', 'week', 'month', 'quarter', 'year'] as const satisfies readonly ReportPeriod[];

export function ReportsPage() {
  const { t, lang } = useI18n();
  const reports = useLoad(() => api<Page<Report>>('GET', '/reports', undefined, { limit: 50 }), []);
  const pending = reports.data?.items.some((r) => r.state === 'queued' || r.state === 'running') ?? false;
  // Progress of reports being generated: polled while any is, stopped once all are done.
  const { reload } = reports;
  useEffect(() => {
    if (!pending) return undefined;
    const timer = window.setInterval(reload, 1500);
    return () => window.clearInterval(timer);
  }, [pending, reload]);

  return (
    <section aria-labelledby="reports-title">
      <h1 id="reports-title" tabIndex={-1}>{t('reports')}</h1>
      <NewReport onCreated={() => reports.reload()} />
      {reports.error && <ErrorNote error={reports.error} />}
      {!reports.data ? <Loading /> : reports.data.items.length === 0 ? <p>{t('none')}</p> : (
        <table className="grid">
          <thead><tr><th scope="col">{t('name')}</th><th scope="col">{t('period')}</th><th scope="col">{t('state')}</th><th scope="col">{t('created')}</th><th scope="col">{t('download')}</th></tr></thead>
          <tbody>
            {reports.data.items.map((r) => (
              <tr key={r.id}>
                <td>{r.name}</td>
                <td>{t(`p_${r.filter.period}`)}{r.filter.project_code.length > 0 ? ` · ${r.filter.project_code.join(', ')}` : ''}</td>
                <td>
                  {r.state === 'running' ? <progress max={100} value={r.progress} aria-label={`${r.name}: ${t('progress')}`}>{r.progress}%</progress> : r.state}
                  {r.error && <span className="error"> {r.error}</span>}
                </td>
                <td>{formatDate(lang, r.created_at)}</td>
                <td className="downloads">
                  {r.state === 'ready' && r.formats.map((f) => (
                    <a key={f} href={downloadUrl(`/report/${r.id}/download`, { format: f })} download aria-label={t('downloadAs', r.name, f.toUpperCase())}>{f.toUpperCase()}</a>
                  ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function NewReport({ onCreated }: { onCreated: () => void }) {
  const { t } = useI18n();
  const [name, setName] = useState('');
  const [period, setPeriod] = useState<ReportPeriod>('all');
  const [projects, setProjects] = useState('');
  const [problems, setProblems] = useState<Record<string, string>>({});
  const [error, setError] = useState<Error>();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    setProblems({});
    try {
      const project_code = projects.split(',').map((p) => p.trim()).filter(Boolean);
      await api<Report>('POST', '/report', { name, type: 'summary', filter: { period, project_code } });
      setName('');
      onCreated();
    } catch (err) {
      if (err instanceof ApiError) setProblems(err.problems());
      setError(err as Error);
    }
  };
  return (
    <form className="card inline" onSubmit={submit} aria-labelledby="new-report-title">
      <h2 id="new-report-title">{t('newReport')}</h2>
      <Field id="report-name" label={t('name')} problem={problems.name}>
        <input id="report-name" required maxLength={255} value={name} onChange={(e) => setName(e.target.value)} />
      </Field>
      <Field id="report-period" label={t('period')}>
        <select id="report-period" value={period} onChange={(e) => setPeriod(e.target.value as ReportPeriod)}>
          {PERIODS.map((p) => <option key={p} value={p}>{t(`p_${p}`)}</option>)}
        </select>
      </Field>
      <Field id="report-projects" label={t('projectsOptional')}>
        <input id="report-projects" value={projects} onChange={(e) => setProjects(e.target.value)} />
      </Field>
      <button type="submit" className="primary">{t('create')}</button>
      {error && <ErrorNote error={error} />}
    </form>
  );
}
