import { useEffect, useState } from 'react';
import { api, downloadUrl } from '../api';
import { splitList, useSave } from '../editing';
import { ErrorNote, Field, Loading } from '../components';
import { useLoad } from '../hooks';
import { formatDate, useI18n } from '../i18n';
import type { Page, Report, ReportPeriod, ReportType } from '../types';

const PERIODS = ['all', 'day', 'week', 'month', 'quarter', 'year', 'custom'] as const satisfies readonly ReportPeriod[];
const TYPES = ['summary', 'detailed', 'compliance', 'trend'] as const satisfies readonly ReportType[];

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
      <h1 id="reports-title" tabIndex={-1}>
        {t('reports')}
      </h1>
      <NewReport onCreated={() => reports.reload()} />
      {reports.error && <ErrorNote error={reports.error} />}
      {!reports.data ? (
        <Loading />
      ) : reports.data.items.length === 0 ? (
        <p>{t('none')}</p>
      ) : (
        <table className="grid">
          <thead>
            <tr>
              <th scope="col">{t('name')}</th>
              <th scope="col">{t('period')}</th>
              <th scope="col">{t('state')}</th>
              <th scope="col">{t('created')}</th>
              <th scope="col">{t('download')}</th>
            </tr>
          </thead>
          <tbody>
            {reports.data.items.map((r) => (
              <tr key={r.id}>
                <td>
                  {r.name} <span className="muted">· {t(`rt_${r.type}`)}</span>
                </td>
                <td>
                  {t(`p_${r.filter.period}`)}
                  {r.filter.project_code.length > 0 ? ` · ${r.filter.project_code.join(', ')}` : ''}
                </td>
                <td>
                  {r.state === 'running' ? (
                    <progress max={100} value={r.progress} aria-label={`${r.name}: ${t('progress')}`}>
                      {r.progress}%
                    </progress>
                  ) : (
                    r.state
                  )}
                  {r.error && <span className="error"> {r.error}</span>}
                </td>
                <td>{formatDate(lang, r.created_at)}</td>
                <td className="downloads">
                  {r.state === 'ready' &&
                    r.formats.map((f) => (
                      <a
                        key={f}
                        href={downloadUrl(`/report/${r.id}/download`, { format: f })}
                        download
                        aria-label={t('downloadAs', r.name, f.toUpperCase())}
                      >
                        {f.toUpperCase()}
                      </a>
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
  const [type, setType] = useState<ReportType>('summary');
  const [period, setPeriod] = useState<ReportPeriod>('all');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [projects, setProjects] = useState('');
  const save = useSave();
  const { problems } = save;
  const submit = save.submit(async () => {
    const range = period === 'custom' ? { from, to } : {};
    await api<Report>('POST', '/report', {
      name,
      type,
      filter: { period, project_code: splitList(projects), ...range },
    });
    setName('');
    onCreated();
  });
  return (
    <form className="card inline" onSubmit={submit} aria-labelledby="new-report-title">
      <h2 id="new-report-title">{t('newReport')}</h2>
      <Field id="report-name" label={t('name')} problem={problems.name}>
        <input id="report-name" required maxLength={255} value={name} onChange={(e) => setName(e.target.value)} />
      </Field>
      <Field id="report-type" label={t('reportType')}>
        <select id="report-type" value={type} onChange={(e) => setType(e.target.value as ReportType)}>
          {TYPES.map((x) => (
            <option key={x} value={x}>
              {t(`rt_${x}`)}
            </option>
          ))}
        </select>
      </Field>
      <Field id="report-period" label={t('period')} problem={problems['filter.period']}>
        <select id="report-period" value={period} onChange={(e) => setPeriod(e.target.value as ReportPeriod)}>
          {PERIODS.map((p) => (
            <option key={p} value={p}>
              {t(`p_${p}`)}
            </option>
          ))}
        </select>
      </Field>
      {period === 'custom' && (
        <>
          <Field id="report-from" label={t('rangeFrom')} problem={problems['filter.from']}>
            <input id="report-from" type="date" required value={from} onChange={(e) => setFrom(e.target.value)} />
          </Field>
          <Field id="report-to" label={t('rangeTo')} problem={problems['filter.to']}>
            <input id="report-to" type="date" required value={to} onChange={(e) => setTo(e.target.value)} />
          </Field>
        </>
      )}
      <Field id="report-projects" label={t('projectsOptional')}>
        <input id="report-projects" value={projects} onChange={(e) => setProjects(e.target.value)} />
      </Field>
      <button type="submit" className="primary" disabled={save.busy}>
        {t('create')}
      </button>
      {save.error && <ErrorNote error={save.error} />}
    </form>
  );
}
