import { api } from '../../api';
import { ErrorNote, Loading } from '../../components';
import { useLoad } from '../../hooks';
import { formatDate, useI18n } from '../../i18n';
import { Link } from '../../router';
import type { CheckHistory } from '../../types';
import { CompareScans } from './CompareScans';

/** A check's completed scans, newest first, with what each found, added and fixed; two of them compared below. */
export function ScanHistory({ checkId, label }: { checkId: string; label: string }) {
  const { t, lang } = useI18n();
  const history = useLoad(() => api<CheckHistory>('GET', `/scan-results/stats/${checkId}`), [checkId]);
  if (history.error) return <ErrorNote error={history.error} />;
  if (!history.data) return <Loading />;
  if (history.data.items.length === 0) return <p>{t('noCompletedScans')}</p>;
  return (
    <section aria-label={t('historyOf', label)} className="history">
      <table className="grid nested stack">
        <caption>{t('historyOf', label)}</caption>
        <thead>
          <tr>
            <th scope="col">{t('created')}</th>
            <th scope="col">{t('findings')}</th>
            <th scope="col">{t('newIssues')}</th>
            <th scope="col">{t('fixed')}</th>
          </tr>
        </thead>
        <tbody>
          {history.data.items.map((h) => (
            <tr key={h.scan_result_id}>
              <td data-label={t('created')}>
                <Link to={`/issues?filter[scan]=${h.scan_result_id}`}>{formatDate(lang, h.created_at)}</Link>
              </td>
              <td data-label={t('findings')}>{h.findings_count ?? '—'}</td>
              <td data-label={t('newIssues')}>{h.new}</td>
              <td data-label={t('fixed')}>{h.fixed}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {history.data.items.length > 1 && <CompareScans checkId={checkId} scans={history.data.items} />}
    </section>
  );
}
