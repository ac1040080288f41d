import { api } from '../api';
import { Loading } from '../components';
import { LoadError } from '../editing';
import { useLoad } from '../hooks';
import { formatDate, useI18n } from '../i18n';
import { Link } from '../router';
import type { IssueCountGroups, Layer, Page, ScanResult } from '../types';
import { ORIGINALS_ONLY } from './issue-list/view';

const WEEKS = 8;

/**
 * The last weeks, oldest first, in one request: issues first detected in each week, changed to Fixed
 * in it, and open at its end (the trend report's definitions, answered by the issues service).
 */
export function WeeklyTrend() {
  const { t, lang } = useI18n();
  const trend = useLoad(
    () =>
      api<IssueCountGroups>('GET', '/issues/count/grouped', undefined, {
        group_by: 'week',
        weeks: WEEKS,
        ...ORIGINALS_ONLY,
      }).then((r) => r.groups),
    [],
  );
  const day = new Intl.DateTimeFormat(lang === 'ru' ? 'ru-RU' : 'en-GB', { dateStyle: 'short' });
  return (
    <section className="card" aria-labelledby="trend-title">
      <h2 id="trend-title">{t('trend')}</h2>
      {trend.error ? (
        <LoadError error={trend.error} />
      ) : !trend.data ? (
        <Loading />
      ) : (
        <table className="grid" aria-labelledby="trend-title">
          <thead>
            <tr>
              <th scope="col">{t('weekFrom')}</th>
              <th scope="col">{t('newIssues')}</th>
              <th scope="col">{t('fixed')}</th>
              <th scope="col">{t('openAtWeekEnd')}</th>
            </tr>
          </thead>
          <tbody>
            {trend.data.map((w) => (
              <tr key={w.week_start}>
                <th scope="row">{w.week_start && day.format(new Date(w.week_start))}</th>
                <td className="number">{w.new}</td>
                <td className="number">{w.fixed}</td>
                <td className="number">{w.open}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/**
 * Layers a lock gate locked: the newest quality-gate verdict of each layer among the latest scans
 * (the verdict a layer's lock follows), kept when it locked.
 */
export function LockedLayers() {
  const { t, lang } = useI18n();
  const locked = useLoad(async () => {
    const scans = await api<Page<ScanResult>>('GET', '/scan-results', undefined, { limit: 500 });
    const latest = new Map<string, ScanResult>();
    for (const s of scans.items) if (s.quality_gate && !latest.has(s.layer_id)) latest.set(s.layer_id, s);
    return [...latest.values()].flatMap((s) => (s.quality_gate?.locked ? [{ ...s, verdict: s.quality_gate }] : []));
  }, []);
  // Layer names where the reader may read layers; otherwise the project code says enough.
  const layers = useLoad(
    () =>
      api<Page<Layer>>('GET', '/layers', undefined, { limit: 1000 }).then(
        (r) => r.items,
        () => [],
      ),
    [],
  );
  const name = (id: string) => layers.data?.find((l) => l.id === id)?.name ?? id.slice(0, 8);
  return (
    <section aria-labelledby="locked-title">
      <h2 id="locked-title">{t('lockedLayers')}</h2>
      {locked.error ? (
        <LoadError error={locked.error} />
      ) : !locked.data ? (
        <Loading />
      ) : locked.data.length === 0 ? (
        <p>{t('noLockedLayers')}</p>
      ) : (
        <table className="grid">
          <thead>
            <tr>
              <th scope="col">{t('project')}</th>
              <th scope="col">{t('layer')}</th>
              <th scope="col">{t('failedGates')}</th>
              <th scope="col">{t('when')}</th>
            </tr>
          </thead>
          <tbody>
            {locked.data.map((s) => (
              <tr key={s.layer_id}>
                <td>
                  <Link to={`/projects/${encodeURIComponent(s.project_code)}`}>{s.project_code}</Link>
                </td>
                <td>{name(s.layer_id)}</td>
                <td>
                  {s.verdict.gates
                    .filter((g) => g.status === 'failed')
                    .map((g) => `${g.name} (${t(`action_${g.action}`)})`)
                    .join(', ')}
                </td>
                <td>{formatDate(lang, s.verdict.evaluated_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
