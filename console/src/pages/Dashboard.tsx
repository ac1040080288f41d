import { api } from '../api';
import { CountBar, ErrorNote, Loading } from '../components';
import { useLoad } from '../hooks';
import { formatDate, useI18n } from '../i18n';
import { Link } from '../router';
import { statusName, useSession } from '../session';
import type { Page, ScanResult, Severity } from '../types';
import { LockedLayers, WeeklyTrend } from './DashboardPolicy';

export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const satisfies readonly Severity[];
/** The built-in closing statuses (ids documented in the README: Fixed, False positive, Risk accepted, Suppressed); "open" is every other one. */
const CLOSED_IDS = new Set([4, 5, 6, 7]);

const count = (query: Record<string, string | string[]>) => api<{ count: number }>('GET', '/issues/count', undefined, query).then((r) => r.count);

export function Dashboard() {
  const { t, lang } = useI18n();
  const { statuses } = useSession();
  const open = statuses.filter((s) => !CLOSED_IDS.has(s.id)).map((s) => String(s.id));
  const bySeverity = useLoad(
    () => Promise.all(SEVERITIES.map(async (s) => [s, await count({ 'filter[severity]': s, 'filter[status]': open })] as const)),
    [open.join(',')],
  );
  const byStatus = useLoad(() => Promise.all(statuses.map(async (s) => [s.id, await count({ 'filter[status]': String(s.id) })] as const)), [statuses]);
  const scans = useLoad(() => api<Page<ScanResult>>('GET', '/scan-results', undefined, { limit: 10 }), []);
  const max = (rows: readonly (readonly [unknown, number])[]) => Math.max(0, ...rows.map(([, n]) => n));

  return (
    <section aria-labelledby="dash-title">
      <h1 id="dash-title" tabIndex={-1}>{t('dashboard')}</h1>
      <div className="cards">
        <section className="card" aria-labelledby="sev-title">
          <h2 id="sev-title">{t('openBySeverity')}</h2>
          {bySeverity.error && <ErrorNote error={bySeverity.error} />}
          {!bySeverity.data ? <Loading /> : bySeverity.data.map(([s, n]) => (
            <Link key={s} to={`/issues?${new URLSearchParams([['filter[severity]', s], ...open.map((o) => ['filter[status]', o])]).toString()}`} className="plain">
              <CountBar label={t(`sev_${s}`)} value={n} max={max(bySeverity.data!)} />
            </Link>
          ))}
        </section>
        <section className="card" aria-labelledby="status-title">
          <h2 id="status-title">{t('openByStatus')}</h2>
          {byStatus.error && <ErrorNote error={byStatus.error} />}
          {!byStatus.data ? <Loading /> : byStatus.data.map(([id, n]) => (
            <CountBar key={id} label={statusName(statuses, id, lang)} value={n} max={max(byStatus.data!)} />
          ))}
        </section>
        <WeeklyTrend />
      </div>
      <LockedLayers />
      <section aria-labelledby="scans-title">
        <h2 id="scans-title">{t('latestScans')}</h2>
        {scans.error && <ErrorNote error={scans.error} />}
        {scans.data && (scans.data.items.length === 0 ? <p>{t('none')}</p> : (
          <table className="grid">
            <thead><tr><th scope="col">{t('project')}</th><th scope="col">{t('scanState')}</th><th scope="col">{t('findings')}</th><th scope="col">{t('gate')}</th><th scope="col">{t('created')}</th></tr></thead>
            <tbody>
              {scans.data.items.map((s) => (
                <tr key={s.id}>
                  <td><Link to={`/projects/${encodeURIComponent(s.project_code)}`}>{s.project_code}</Link></td>
                  <td>{s.state}{s.state === 'running' ? ` ${s.progress}%` : ''}</td>
                  <td><Link to={`/issues?filter[scan]=${s.id}`}>{s.findings_count ?? '—'}</Link></td>
                  <td><GateVerdict scan={s} /></td>
                  <td>{formatDate(lang, s.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ))}
      </section>
    </section>
  );
}

export function GateVerdict({ scan }: { scan: ScanResult }) {
  const { t } = useI18n();
  const v = scan.quality_gate;
  if (!v) return <span className="muted">{t('noVerdict')}</span>;
  return <span className={`badge gate-${v.status}`}>{t(v.status)}{v.locked ? ` · ${t('locked')}` : ''}</span>;
}
