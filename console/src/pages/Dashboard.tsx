import { api } from '../api';
import { CountBar, ErrorNote, Loading } from '../components';
import { useLoad } from '../hooks';
import { formatDate, useI18n } from '../i18n';
import { Link } from '../router';
import { statusName, useSession } from '../session';
import type { IssueCountGroups, Page, ScanResult, Severity } from '../types';
import { LockedLayers, WeeklyTrend } from './DashboardPolicy';
import { ORIGINALS_ONLY } from './issue-list/view';

export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const satisfies readonly Severity[];
/** The built-in closing statuses (ids documented in the README: Fixed, False positive, Risk accepted, Suppressed); "open" is every other one. */
export const CLOSED_STATUS_IDS = new Set([4, 5, 6, 7]);

export function Dashboard() {
  const { t, lang } = useI18n();
  const { statuses } = useSession();
  const open = statuses.filter((s) => !CLOSED_STATUS_IDS.has(s.id)).map((s) => String(s.id));
  // One request for both tiles: every issue counted by severity and status together, originals only (the rule of ORIGINALS_ONLY).
  const counts = useLoad(
    () =>
      api<IssueCountGroups>('GET', '/issues/count/grouped', undefined, {
        group_by: ['severity', 'status'],
        ...ORIGINALS_ONLY,
      }),
    [],
  );
  const sum = (keep: (g: IssueCountGroups['groups'][number]) => boolean) =>
    (counts.data?.groups ?? []).filter(keep).reduce((n, g) => n + (g.count ?? 0), 0);
  const bySeverity =
    counts.data &&
    SEVERITIES.map((s) => [s, sum((g) => g.severity === s && open.includes(String(g.status_id)))] as const);
  const byStatus = counts.data && statuses.map((s) => [s.id, sum((g) => g.status_id === s.id)] as const);
  const scans = useLoad(() => api<Page<ScanResult>>('GET', '/scan-results', undefined, { limit: 10 }), []);
  const max = (rows: readonly (readonly [unknown, number])[]) => Math.max(0, ...rows.map(([, n]) => n));

  return (
    <section aria-labelledby="dash-title">
      <h1 id="dash-title" tabIndex={-1}>
        {t('dashboard')}
      </h1>
      <div className="cards">
        <section className="card" aria-labelledby="sev-title">
          <h2 id="sev-title">{t('openBySeverity')}</h2>
          {counts.error && <ErrorNote error={counts.error} />}
          {!bySeverity ? (
            <Loading />
          ) : (
            bySeverity.map(([s, n]) => (
              <Link
                key={s}
                to={`/issues?${new URLSearchParams([['filter[severity]', s], ...open.map((o) => ['filter[status]', o])]).toString()}`}
                className="plain"
              >
                <CountBar label={t(`sev_${s}`)} value={n} max={max(bySeverity)} />
              </Link>
            ))
          )}
        </section>
        <section className="card" aria-labelledby="status-title">
          <h2 id="status-title">{t('openByStatus')}</h2>
          {counts.error && <ErrorNote error={counts.error} />}
          {!byStatus ? (
            <Loading />
          ) : (
            byStatus.map(([id, n]) => (
              <CountBar key={id} label={statusName(statuses, id, lang)} value={n} max={max(byStatus)} />
            ))
          )}
        </section>
        <WeeklyTrend />
      </div>
      <p className="hint">{t('duplicatesRule')}</p>
      <LockedLayers />
      <section aria-labelledby="scans-title">
        <h2 id="scans-title">{t('latestScans')}</h2>
        {scans.error && <ErrorNote error={scans.error} />}
        {scans.data &&
          (scans.data.items.length === 0 ? (
            <p>{t('none')}</p>
          ) : (
            <table className="grid">
              <thead>
                <tr>
                  <th scope="col">{t('project')}</th>
                  <th scope="col">{t('scanState')}</th>
                  <th scope="col">{t('findings')}</th>
                  <th scope="col">{t('gate')}</th>
                  <th scope="col">{t('created')}</th>
                </tr>
              </thead>
              <tbody>
                {scans.data.items.map((s) => (
                  <tr key={s.id}>
                    <td>
                      <Link to={`/projects/${encodeURIComponent(s.project_code)}`}>{s.project_code}</Link>
                    </td>
                    <td>
                      {t(`state_${s.state}`)}
                      {s.state === 'running' ? ` ${s.progress}%` : ''}
                    </td>
                    <td>
                      <Link to={`/issues?filter[scan]=${s.id}`}>{s.findings_count ?? '—'}</Link>
                    </td>
                    <td>
                      <GateVerdict scan={s} />
                    </td>
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

/** A scan's gate verdict (or a dry run's, which has only the verdict). */
export function GateVerdict({ scan }: { scan: Pick<ScanResult, 'quality_gate'> }) {
  const { t } = useI18n();
  const v = scan.quality_gate;
  if (!v) return <span className="muted">{t('noVerdict')}</span>;
  return (
    <span className={`badge gate-${v.status}`}>
      {t(v.status)}
      {v.locked ? ` · ${t('locked')}` : ''}
    </span>
  );
}
