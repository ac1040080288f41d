import { FormEvent, useState } from 'react';
import { api } from '../api';
import { Field } from '../components';
import { LoadError } from '../editing';
import { formatDate, useI18n } from '../i18n';
import type { CheckHistory, ScanComparison } from '../types';
import { SEVERITIES } from './Dashboard';

/**
 * Two completed scans of a check side by side (GET /scan-results/stats/compare): what only the
 * earlier found is fixed, what only the later found is new, what both found is unchanged.
 */
export function CompareScans({ checkId, scans }: { checkId: string; scans: CheckHistory['items'] }) {
  const { t, lang } = useI18n();
  // The history is newest first: the default compares the latest with the one before it.
  const [first, setFirst] = useState(scans[1].scan_result_id);
  const [second, setSecond] = useState(scans[0].scan_result_id);
  const [result, setResult] = useState<ScanComparison>();
  const [error, setError] = useState<Error>();
  const id = (f: string) => `compare-${checkId}-${f}`;
  const compare = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    try {
      setResult(await api<ScanComparison>('GET', '/scan-results/stats/compare', undefined, { first, second }));
    } catch (err) {
      setError(err as Error);
    }
  };
  const select = (f: string, label: string, value: string, set: (v: string) => void) => (
    <Field id={id(f)} label={label}>
      <select id={id(f)} value={value} onChange={(e) => set(e.target.value)}>
        {scans.map((s) => (
          <option key={s.scan_result_id} value={s.scan_result_id}>
            {formatDate(lang, s.created_at)} · {s.scan_result_id.slice(0, 8)}
          </option>
        ))}
      </select>
    </Field>
  );
  const rows: [string, ScanComparison['in_both']][] = result
    ? [
        [t('onlyInSecond'), result.only_in_second],
        [t('onlyInFirst'), result.only_in_first],
        [t('inBoth'), result.in_both],
      ]
    : [];
  return (
    <form className="inline" onSubmit={(e) => void compare(e)} aria-label={t('compareScans')}>
      {select('first', t('firstScan'), first, setFirst)}
      {select('second', t('secondScan'), second, setSecond)}
      <button type="submit">{t('compare')}</button>
      {error && <LoadError error={error} />}
      {result && (
        <table className="grid nested">
          <caption>{t('comparison')}</caption>
          <thead>
            <tr>
              <th scope="col" />
              <th scope="col">{t('findings')}</th>
              {SEVERITIES.map((s) => (
                <th key={s} scope="col">
                  {t(`sev_${s}`)}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map(([label, b]) => (
              <tr key={label}>
                <th scope="row">{label}</th>
                <td>{b.count}</td>
                {SEVERITIES.map((s) => (
                  <td key={s}>{b.by_severity[s] ?? 0}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </form>
  );
}
