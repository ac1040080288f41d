import { FormEvent, useState } from 'react';
import { api, downloadUrl, Query } from '../../api';
import { Field, Loading } from '../../components';
import { LoadError, Pager } from '../../editing';
import { useLoad } from '../../hooks';
import { formatDate, useI18n } from '../../i18n';
import type { ErrorLogEntry, ErrorLogFilters, Page } from '../../types';
import { NotificationsTabs } from './tabs';

const LIMIT = 50;

/** The operational error log of every service (administrators): filter by level, service and code as the API offers them, search the message. */
export function ErrorsLogPage() {
  const { t, lang } = useI18n();
  const filters = useLoad(() => api<ErrorLogFilters>('GET', '/errors-log/filters'), []);
  const [draft, setDraft] = useState({ level: '', service: '', code: '', search: '' });
  const [query, setQuery] = useState<Query>({});
  const [page, setPage] = useState(1);
  const errors = useLoad(
    () => api<Page<ErrorLogEntry>>('GET', '/errors-log', undefined, { ...query, page, limit: LIMIT }),
    [query, page],
  );
  const apply = (e: FormEvent) => {
    e.preventDefault();
    setPage(1);
    setQuery({
      'filter[level]': draft.level,
      'filter[service]': draft.service,
      'filter[code]': draft.code,
      [lang === 'ru' ? 'search[message_ru]' : 'search[message]']: draft.search.trim(),
    });
  };
  const select = (key: 'level' | 'service' | 'code', label: string, values: readonly string[] | undefined) => (
    <Field id={`errors-${key}`} label={label}>
      <select id={`errors-${key}`} value={draft[key]} onChange={(e) => setDraft({ ...draft, [key]: e.target.value })}>
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
    <section aria-labelledby="errors-title">
      <h1 id="errors-title" tabIndex={-1}>
        {t('errorsLog')}
      </h1>
      <NotificationsTabs />
      <form className="card inline" onSubmit={apply} aria-label={t('filters')}>
        {select('level', t('level'), filters.data?.levels)}
        {select('service', t('service'), filters.data?.services)}
        {select('code', t('errorCode'), filters.data?.codes)}
        <Field id="errors-search" label={t('messageContains')}>
          <input
            id="errors-search"
            type="search"
            maxLength={255}
            value={draft.search}
            onChange={(e) => setDraft({ ...draft, search: e.target.value })}
          />
        </Field>
        <button type="submit" className="primary">
          {t('apply')}
        </button>
        <a href={downloadUrl('/errors-log/csv', query)} download>
          {t('downloadCsv')}
        </a>
      </form>
      {errors.error && <LoadError error={errors.error} />}
      {!errors.data ? (
        !errors.error && <Loading />
      ) : (
        <>
          <p role="status">{t('errorsTotal', errors.data.total)}</p>
          {errors.data.items.length > 0 && (
            <table className="grid">
              <thead>
                <tr>
                  <th scope="col">{t('when')}</th>
                  <th scope="col">{t('level')}</th>
                  <th scope="col">{t('service')}</th>
                  <th scope="col">{t('errorCode')}</th>
                  <th scope="col">{t('message')}</th>
                  <th scope="col">{t('errorWhere')}</th>
                </tr>
              </thead>
              <tbody>
                {errors.data.items.map((e) => (
                  <tr key={e.id}>
                    <td>{formatDate(lang, e.occurred_at)}</td>
                    <td>{e.level}</td>
                    <td>{e.service}</td>
                    <td className="mono">{e.code}</td>
                    <td>{lang === 'ru' ? e.message_ru : e.message}</td>
                    <td className="mono">{[e.route, e.subject, e.request_id].filter(Boolean).join(' · ') || '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <Pager page={page} total={errors.data.total} limit={LIMIT} onPage={setPage} />
        </>
      )}
    </section>
  );
}
