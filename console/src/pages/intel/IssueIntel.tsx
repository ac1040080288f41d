import { ReactNode } from 'react';
import { formatDate, useI18n } from '../../i18n';
import type { Issue } from '../../types';
import { Facts } from '../facts';
import { formatDay, formatPercent, KevBadge, SlaBadge } from './IntelBadges';

/** The issue page's exploitation and SLA facts: the risk score with its factors, EPSS, KEV and the SLA. */
export function IssueIntel({ issue: i }: { issue: Issue }) {
  const { t, lang } = useI18n();
  const f = i.risk_factors;
  const number = (x: number) => x.toLocaleString(lang, { maximumFractionDigits: 2 });
  const rows: [string, ReactNode][] = [
    [
      t('riskScore'),
      <>
        <span className="risk-score">{i.risk_score}</span>{' '}
        <span className="muted">
          {t(
            'riskFactors',
            number(f.impact),
            t(`rf_${f.impact_from}`),
            number(f.likelihood),
            t(`rf_${f.likelihood_from}`),
            number(f.criticality_weight),
            t(`crit_${f.criticality}`),
          )}
        </span>
      </>,
    ],
    [
      t('epss'),
      i.epss === null
        ? '—'
        : `${formatPercent(lang, i.epss)}${i.epss_percentile === null ? '' : ` · ${t('epssPercentile', formatPercent(lang, i.epss_percentile))}`}`,
    ],
    [t('knownExploited'), i.known_exploited ? <KevBadge /> : t('no')],
    [t('kevDueDate'), i.kev_due_date ? formatDay(lang, i.kev_due_date) : '—'],
    [t('slaState'), i.sla_state ? <SlaBadge state={i.sla_state} /> : t('noSla')],
    [t('slaDueAt'), formatDate(lang, i.sla_due_at)],
  ];
  return (
    <section aria-labelledby="intel-title">
      <h2 id="intel-title">{t('intelTitle')}</h2>
      <Facts rows={rows} />
    </section>
  );
}
