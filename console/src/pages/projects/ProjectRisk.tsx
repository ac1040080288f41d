import { LoadError } from '../../editing';
import { Loading, SeverityBadge } from '../../components';
import { useLoad } from '../../hooks';
import { useI18n } from '../../i18n';
import { Link } from '../../router';
import { useSession } from '../../session';
import type { Layer, ScanResult } from '../../types';
import { GateVerdict, SEVERITIES } from '../Dashboard';
import { newestVerdicts, openBySeverity, openStatusIds, openTrend, SeverityCounts, TREND_WEEKS } from './risk';
import { Sparkline } from './Sparkline';

/** A project's open issues by severity, each a link to that part of the issue list; "none" when it has none. */
export function SeverityCountsRow({ code, counts }: { code: string; counts: SeverityCounts | undefined }) {
  const { t } = useI18n();
  const { statuses } = useSession();
  const shown = SEVERITIES.filter((s) => counts?.[s]);
  if (shown.length === 0) return <span className="muted">{t('noOpenIssues')}</span>;
  const link = (s: string) =>
    `/issues?${new URLSearchParams([
      ['filter[project_code]', code],
      ['filter[severity]', s],
      ...openStatusIds(statuses).map((id) => ['filter[status]', String(id)]),
    ]).toString()}`;
  return (
    <ul className="plain sev-row" aria-label={t('openIssuesOf', code)}>
      {shown.map((s) => (
        <li key={s}>
          <Link to={link(s)} className="plain-inline">
            <SeverityBadge severity={s} /> {counts?.[s]}
          </Link>
        </li>
      ))}
    </ul>
  );
}

/** The project's open issues at each of the last eight weeks' end, as a small chart named by its numbers. */
export function OpenTrend({ code }: { code: string }) {
  const { t } = useI18n();
  const trend = useLoad(() => openTrend(code), [code]);
  if (trend.error) return <LoadError error={trend.error} />;
  if (!trend.data) return <span className="muted">…</span>;
  const open = trend.data.map((w) => w.open ?? 0);
  return <Sparkline values={open} label={t('trendLabel', TREND_WEEKS, open.join(', '))} />;
}

/** How the newest verdicts of a project's layers came out: so many passed, so many failed. */
export function VerdictTally({ scans }: { scans: ScanResult[] }) {
  const { t } = useI18n();
  if (scans.length === 0) return <span className="muted">{t('noVerdict')}</span>;
  const failed = scans.filter((s) => s.quality_gate?.status === 'failed').length;
  return (
    <span className="tally">
      {failed > 0 && <span className="badge gate-failed">{t('layersFailed', failed)}</span>}
      {scans.length - failed > 0 && (
        <span className="badge gate-passed">{t('layersPassed', scans.length - failed)}</span>
      )}
    </span>
  );
}

/** The project page's risk at a glance: open issues by severity, their trend, and each layer's newest gate verdict; read again when `version` changes. */
export function ProjectRisk({ code, layers, version }: { code: string; layers: Layer[]; version: number }) {
  const { t, lang } = useI18n();
  const { statuses } = useSession();
  const counts = useLoad(() => openBySeverity(statuses, code), [code, statuses, version]);
  const verdicts = useLoad(() => newestVerdicts(code), [code, version]);
  const trend = useLoad(() => openTrend(code), [code, version]);
  const day = new Intl.DateTimeFormat(lang === 'ru' ? 'ru-RU' : 'en-GB', { dateStyle: 'short' });
  return (
    <section className="card risk" aria-labelledby="risk-title">
      <h2 id="risk-title">{t('riskAtGlance')}</h2>
      <div className="risk-parts">
        <div>
          <h3>{t('openBySeverity')}</h3>
          {counts.error ? (
            <LoadError error={counts.error} />
          ) : !counts.data ? (
            <Loading />
          ) : (
            <SeverityCountsRow code={code} counts={counts.data.get(code)} />
          )}
        </div>
        <div>
          <h3>{t('openTrend', TREND_WEEKS)}</h3>
          {trend.error ? (
            <LoadError error={trend.error} />
          ) : !trend.data ? (
            <Loading />
          ) : (
            <>
              <Sparkline
                values={trend.data.map((w) => w.open ?? 0)}
                label={t('trendLabel', TREND_WEEKS, trend.data.map((w) => w.open ?? 0).join(', '))}
              />
              <p className="muted">
                {t(
                  'trendWeeks',
                  trend.data.reduce((n, w) => n + (w.new ?? 0), 0),
                  trend.data.reduce((n, w) => n + (w.fixed ?? 0), 0),
                  trend.data[0]?.week_start ? day.format(new Date(trend.data[0].week_start)) : '—',
                )}
              </p>
            </>
          )}
        </div>
        <div>
          <h3>{t('gatePerLayer')}</h3>
          {verdicts.error ? (
            <LoadError error={verdicts.error} />
          ) : !verdicts.data ? (
            <Loading />
          ) : layers.length === 0 ? (
            <p className="muted">{t('none')}</p>
          ) : (
            <ul className="plain">
              {layers.map((l) => {
                const scan = verdicts.data?.get(l.id);
                return (
                  <li key={l.id}>
                    {l.name}: {scan ? <GateVerdict scan={scan} /> : <span className="muted">{t('noVerdict')}</span>}
                  </li>
                );
              })}
            </ul>
          )}
        </div>
      </div>
      <p className="hint">{t('duplicatesRule')}</p>
    </section>
  );
}
