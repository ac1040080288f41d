import { api } from '../../api';
import { Field } from '../../components';
import { useLoad } from '../../hooks';
import { formatDate, useI18n } from '../../i18n';
import type { ErrorLogEntry, ErrorLogFilters } from '../../types';
import { LogTable } from './log-table';
import { NotificationsTabs } from './tabs';

/** The operational error log of every service (administrators): filter by level, service and code as the API offers them, search the message. */
export function ErrorsLogPage() {
  const { t, lang } = useI18n();
  const filters = useLoad(() => api<ErrorLogFilters>('GET', '/errors-log/filters'), []);
  return (
    <section aria-labelledby="errors-title">
      <h1 id="errors-title" tabIndex={-1}>
        {t('errorsLog')}
      </h1>
      <NotificationsTabs />
      <LogTable<ErrorLogEntry, { level: string; service: string; code: string; search: string }>
        id="errors"
        path="/errors-log"
        initial={{ level: '', service: '', code: '', search: '' }}
        filters={(draft, setDraft) => {
          const select = (key: 'level' | 'service' | 'code', label: string, values: readonly string[] | undefined) => (
            <Field id={`errors-${key}`} label={label}>
              <select
                id={`errors-${key}`}
                value={draft[key]}
                onChange={(e) => setDraft({ ...draft, [key]: e.target.value })}
              >
                <option value="">{t('any')}</option>
                {values?.map((v) => (
                  <option key={v} value={v}>
                    {v}
                  </option>
                ))}
              </select>
            </Field>
          );
          return (
            <>
              {select('level', t('level'), filters.data?.levels)}
              {select('service', t('service'), filters.data?.services)}
              {select('code', t('errorCode'), filters.data?.codes)}
            </>
          );
        }}
        toQuery={(draft) => ({
          'filter[level]': draft.level,
          'filter[service]': draft.service,
          'filter[code]': draft.code,
        })}
        total={(n) => t('errorsTotal', n)}
        columns={[t('when'), t('level'), t('service'), t('errorCode'), t('message'), t('errorWhere')]}
        cells={(e) => (
          <>
            <td>{formatDate(lang, e.occurred_at)}</td>
            <td>{e.level}</td>
            <td>{e.service}</td>
            <td className="mono">{e.code}</td>
            <td>{lang === 'ru' ? e.message_ru : e.message}</td>
            <td className="mono">{[e.route, e.subject, e.request_id].filter(Boolean).join(' · ') || '—'}</td>
          </>
        )}
      />
    </section>
  );
}
