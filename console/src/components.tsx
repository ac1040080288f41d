import { ReactNode } from 'react';
import { useI18n } from './i18n';
import type { Severity } from './types';

export function Loading() {
  const { t } = useI18n();
  return <p role="status">{t('loading')}</p>;
}

export function ErrorNote({ error }: { error: Error }) {
  const { t } = useI18n();
  return (
    <p role="alert" className="error">
      {t('error', error.message)}
    </p>
  );
}

export function SeverityBadge({ severity }: { severity: Severity }) {
  const { t } = useI18n();
  return <span className={`badge sev-${severity}`}>{t(`sev_${severity}`)}</span>;
}

/** A labelled form row: the label is the field's accessible name, the problem is announced with it. */
export function Field({
  id,
  label,
  problem,
  children,
}: {
  id: string;
  label: string;
  problem?: string;
  children: ReactNode;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children}
      {problem && (
        <span className="problem" id={`${id}-problem`} role="alert">
          {problem}
        </span>
      )}
    </div>
  );
}

/** A horizontal bar of a count against the largest, drawn with a <meter> so it needs no inline style. */
export function CountBar({ label, value, max }: { label: string; value: number; max: number }) {
  return (
    <div className="countbar">
      <span className="countbar-label">{label}</span>
      <meter min={0} max={Math.max(max, 1)} value={value} aria-label={label} />
      <span className="countbar-value">{value}</span>
    </div>
  );
}
