import { useState } from 'react';
import { Field } from '../../components';
import { useI18n } from '../../i18n';
import { exportable, exportHref } from './view';

/** The formats of GET /issues/export. */
export const EXPORT_FORMATS = ['sarif', 'csv'] as const;

/** Downloads the issues of the current view (its filters and search, every page) in a format of /issues/export. */
export function ExportView({ search, filterKeys }: { search: URLSearchParams; filterKeys: ReadonlySet<string> }) {
  const { t } = useI18n();
  const [format, setFormat] = useState<(typeof EXPORT_FORMATS)[number]>('sarif');
  if (!exportable(search)) return <p className="hint">{t('exportInverted')}</p>;
  return (
    <div className="export" role="group" aria-label={t('exportView')}>
      <Field id="export-format" label={t('exportFormat')}>
        <select
          id="export-format"
          value={format}
          onChange={(e) => setFormat(e.target.value as (typeof EXPORT_FORMATS)[number])}
        >
          {EXPORT_FORMATS.map((f) => (
            <option key={f} value={f}>
              {t(`fmt_${f}`)}
            </option>
          ))}
        </select>
      </Field>
      <a className="button" href={exportHref(search, filterKeys, format)} download>
        {t('exportDownload')}
      </a>
    </div>
  );
}
