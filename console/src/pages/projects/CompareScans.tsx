import { FormEvent, useState } from 'react';
import { api } from '../../api';
import { Field, SeverityBadge } from '../../components';
import { LoadError } from '../../editing';
import { formatDate, useI18n } from '../../i18n';
import type { CheckHistory, Page, ScanComparison } from '../../types';
import { SEVERITIES } from '../Dashboard';
import { DiffFinding, diffScans, findingPlace, ScanDiff, SHOWN } from './scan-diff';

/**
 * Two completed scans of a check side by side: the counts the API compares (GET
 * /scan-results/stats/compare: only in the earlier is fixed, only in the later is new, in both is
 * unchanged), and the new and fixed findings themselves (GET /scan-result/{id}/findings?filter[not_in]=).
 */
export function CompareScans({ checkId, scans }: { checkId: string; scans: CheckHistory['items'] }) {
  const { t, lang } = useI18n();
  // The history is newest first: the default compares the latest with the one before it.
  const [first, setFirst] = useState(scans[1].scan_result_id);
  const [second, setSecond] = useState(scans[0].scan_result_id);
  const [result, setResult] = useState<{ counts: ScanComparison; diff: ScanDiff }>();
  const [error, setError] = useState<Error>();
  const id = (f: string) => `compare-${checkId}-${f}`;
  const compare = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    try {
      const [counts, diff] = await Promise.all([
        api<ScanComparison>('GET', '/scan-results/stats/compare', undefined, { first, second }),
        diffScans(first, second),
      ]);
      setResult({ counts, diff });
    } catch (err) {
      setError(err as Error);
    }
  };
  const select = (f: string, label: string, value: string, set: (v: string) => void) => (
    <Field id={id(f)} label={label}>
      <select id={id(f)} value={value} onChange={(e) => set(e.target.value)}>
        {scans.map((s) => (
          <option key={s.scan_result_id} value={s.scan_result_id}>
            {formatDate(lang, s.created_at)} · {t('findingsN', s.findings_count ?? 0)}
          </option>
        ))}
      </select>
    </Field>
  );
  const rows: [string, ScanComparison['in_both']][] = result
    ? [
        [t('onlyInSecond'), result.counts.only_in_second],
        [t('onlyInFirst'), result.counts.only_in_first],
        [t('inBoth'), result.counts.in_both],
      ]
    : [];
  return (
    <>
      <form className="inline" onSubmit={(e) => void compare(e)} aria-label={t('compareScans')}>
        {select('first', t('firstScan'), first, setFirst)}
        {select('second', t('secondScan'), second, setSecond)}
        <button type="submit">{t('compare')}</button>
      </form>
      {error && <LoadError error={error} />}
      {result && (
        <div className="comparison">
          <div className="scroll-box" role="region" aria-label={t('comparison')} tabIndex={0}>
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
          </div>
          <FindingList title={t('newFindings', result.diff.added.total)} findings={result.diff.added} />
          <FindingList title={t('fixedFindings', result.diff.removed.total)} findings={result.diff.removed} />
        </div>
      )}
    </>
  );
}

function FindingList({ title, findings }: { title: string; findings: Page<DiffFinding> }) {
  const { t } = useI18n();
  return (
    <section className="diff-list" aria-label={title}>
      <h4>{title}</h4>
      {findings.total === 0 ? (
        <p className="muted">{t('none')}</p>
      ) : (
        <ul className="plain">
          {findings.items.map((f, i) => (
            <li key={`${f.fingerprint}#${i}`}>
              <SeverityBadge severity={f.severity} /> {f.title} <span className="mono muted">{findingPlace(f)}</span>
            </li>
          ))}
          {findings.total > SHOWN && <li className="muted">{t('andMore', findings.total - SHOWN)}</li>}
        </ul>
      )}
    </section>
  );
}
