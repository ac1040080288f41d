import './intel-messages';
import './intel.css';
import { Lang, useI18n } from '../../i18n';
import type { Issue } from '../../types';

// One formatter per language and kind, as i18n.tsx keeps its dates: a list formats every row.
const PERCENT = {
  en: new Intl.NumberFormat('en-GB', { style: 'percent', maximumFractionDigits: 2 }),
  ru: new Intl.NumberFormat('ru-RU', { style: 'percent', maximumFractionDigits: 2 }),
} satisfies Record<Lang, Intl.NumberFormat>;
// Due dates are days: KEV's are dates without a time, and an SLA's day is what a team plans by.
const DAYS = {
  en: new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeZone: 'UTC' }),
  ru: new Intl.DateTimeFormat('ru-RU', { dateStyle: 'medium', timeZone: 'UTC' }),
} satisfies Record<Lang, Intl.DateTimeFormat>;

export const formatPercent = (lang: Lang, x: number) => PERCENT[lang].format(x);
export const formatDay = (lang: Lang, iso: string) => DAYS[lang].format(new Date(iso));

type SlaState = NonNullable<Issue['sla_state']>;

/** The issue's SLA state as a coloured badge with its name (the colour never carries it alone). */
export function SlaBadge({ state }: { state: SlaState }) {
  const { t } = useI18n();
  return <span className={`badge sla-${state}`}>{t(`sla_${state}`)}</span>;
}

/** In CISA's KEV catalog: the short name shown, spelled out on hover and for screen readers. */
export function KevBadge() {
  const { t } = useI18n();
  return (
    <span className="badge kev">
      <abbr title={t('kevLong')} aria-hidden="true">
        KEV
      </abbr>
      <span className="sr-only">{t('kevLong')}</span>
    </span>
  );
}

/** The list's exploitation cell: KEV with its due date, and the EPSS score with its percentile. */
export function ExploitCell({ issue }: { issue: Issue }) {
  const { t, lang } = useI18n();
  if (!issue.known_exploited && issue.epss === null) return <span className="muted">—</span>;
  return (
    <div className="intel-cell">
      {issue.known_exploited && (
        <span>
          <KevBadge /> {issue.kev_due_date && t('kevDue', formatDay(lang, issue.kev_due_date))}
        </span>
      )}
      {issue.epss !== null && (
        <span>
          {t('epssScore', formatPercent(lang, issue.epss))}
          {issue.epss_percentile !== null && (
            <span className="muted"> · {t('epssPercentile', formatPercent(lang, issue.epss_percentile))}</span>
          )}
        </span>
      )}
    </div>
  );
}

/** The list's SLA cell: the state's badge and the due date; a dash where no SLA applies. */
export function SlaCell({ issue }: { issue: Issue }) {
  const { t, lang } = useI18n();
  if (!issue.sla_state || !issue.sla_due_at) return <span className="muted">—</span>;
  return (
    <div className="intel-cell">
      <SlaBadge state={issue.sla_state} />
      <span>{t('slaDue', formatDay(lang, issue.sla_due_at))}</span>
    </div>
  );
}
