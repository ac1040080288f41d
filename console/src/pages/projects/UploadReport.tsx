import { DragEvent, FormEvent, useEffect, useState } from 'react';
import { api, ApiError, uploadFile } from '../../api';
import { ErrorNote, Field, SeverityBadge } from '../../components';
import { useLoad } from '../../hooks';
import { useI18n } from '../../i18n';
import { Link } from '../../router';
import type { DryRunResult, ReportFormats, ScanResult, Severity } from '../../types';
import { GateVerdict, SEVERITIES } from '../Dashboard';
import { DryRunOutcome } from './DryRunOutcome';

type Step =
  | { kind: 'choosing' }
  | { kind: 'sending'; sent: number }
  | { kind: 'compared'; result: DryRunResult }
  | { kind: 'done'; scan: ScanResult }
  | { kind: 'failed'; error: Error };

/** How long the page waits for the gate verdict, which the issues service adds once it has taken the findings. */
const VERDICT_POLL_MS = 1500;
const VERDICT_POLLS = 40;

/**
 * A report uploaded to a check (POST /check/{id}/results): dropped or picked, its format detected by
 * the API or chosen from the formats it takes, with the bytes sent shown as they go; then the scan's
 * findings and, once the issues service has judged them, the quality-gate verdict. A dry run first
 * (`?dry_run=true`) shows what the upload would do and writes nothing.
 */
export function UploadReport({
  checkId,
  label,
  onUploaded,
}: {
  checkId: string;
  label: string;
  onUploaded: () => void;
}) {
  const { t } = useI18n();
  const formats = useLoad(() => api<ReportFormats>('GET', '/scan-report-formats'), []);
  const [file, setFile] = useState<File>();
  const [format, setFormat] = useState('');
  const [over, setOver] = useState(false);
  const [step, setStep] = useState<Step>({ kind: 'choosing' });
  const id = (f: string) => `upload-${checkId}-${f}`;

  const send = async <T,>(chosen: File, dryRun: boolean): Promise<T> => {
    setStep({ kind: 'sending', sent: 0 });
    const query = {
      file_name: chosen.name.slice(0, 255),
      ...(format ? { format } : {}),
      ...(dryRun ? { dry_run: 'true' } : {}),
    };
    return uploadFile<T>(`/check/${checkId}/results`, chosen, query, (sent) => setStep({ kind: 'sending', sent }));
  };
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!file) return;
    try {
      const run = await send<{ scan_result_id: string }>(file, false);
      setStep({ kind: 'done', scan: await api<ScanResult>('GET', `/scan-result/${run.scan_result_id}`) });
      onUploaded();
    } catch (err) {
      setStep({ kind: 'failed', error: err as Error });
    }
  };
  const dryRun = async () => {
    if (!file) return;
    try {
      setStep({ kind: 'compared', result: await send<DryRunResult>(file, true) });
    } catch (err) {
      setStep({ kind: 'failed', error: err as Error });
    }
  };
  const drop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    const dropped = e.dataTransfer.files[0];
    if (dropped) setFile(dropped);
  };

  return (
    <form className="upload" onSubmit={(e) => void submit(e)} aria-label={t('uploadTo', label)}>
      <div
        className={over ? 'dropzone over' : 'dropzone'}
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={drop}
      >
        <label htmlFor={id('file')}>{t('dropOrPick')}</label>
        <input id={id('file')} type="file" onChange={(e) => setFile(e.target.files?.[0])} />
        {file && <span className="muted">{t('chosenFile', file.name, Math.ceil(file.size / 1024))}</span>}
      </div>
      <Field id={id('format')} label={t('reportFormat')}>
        <select id={id('format')} value={format} onChange={(e) => setFormat(e.target.value)}>
          <option value="">{t('detectFormat')}</option>
          {/* The API's own titles of the formats, in English as they came. */}
          {formats.data?.items.map((f) => (
            <option key={f.id} value={f.id} lang="en">
              {f.title}
            </option>
          ))}
        </select>
      </Field>
      <button type="button" onClick={() => void dryRun()} disabled={!file || step.kind === 'sending'}>
        {t('dryRun')}
      </button>{' '}
      <button type="submit" className="primary" disabled={!file || step.kind === 'sending'}>
        {t('upload')}
      </button>
      {step.kind === 'sending' && (
        <progress
          max={100}
          value={Math.round(step.sent * 100)}
          aria-label={t('uploading', Math.round(step.sent * 100))}
        >
          {Math.round(step.sent * 100)}%
        </progress>
      )}
      {step.kind === 'failed' && <UploadError error={step.error} />}
      {step.kind === 'compared' && <DryRunOutcome result={step.result} id={id('dry-run')} />}
      {step.kind === 'done' && <UploadOutcome initial={step.scan} onVerdict={onUploaded} />}
    </form>
  );
}

/** The parser's or the API's reason, as it said it (a report it cannot read answers 400 with the parser's message). */
function UploadError({ error }: { error: Error }) {
  const { t } = useI18n();
  if (error instanceof ApiError && error.status === 0)
    return (
      <p role="alert" className="error">
        {t('uploadNetwork')}
      </p>
    );
  return <ErrorNote error={error} />;
}

/** The uploaded scan: its findings by severity at once, its gate verdict when the issues service has given it. */
function UploadOutcome({ initial, onVerdict }: { initial: ScanResult; onVerdict: () => void }) {
  const { t } = useI18n();
  const [scan, setScan] = useState(initial);
  useEffect(() => {
    if (scan.quality_gate || scan.state !== 'completed') return undefined;
    let polls = 0;
    const timer = window.setInterval(() => {
      polls += 1;
      if (polls > VERDICT_POLLS) window.clearInterval(timer);
      else
        void api<ScanResult>('GET', `/scan-result/${scan.id}`).then(
          (s) => {
            setScan(s);
            // The verdict changes the check's row and the project's risk: they are read again.
            if (s.quality_gate) onVerdict();
          },
          () => undefined,
        );
    }, VERDICT_POLL_MS);
    return () => window.clearInterval(timer);
  }, [scan.id, scan.state, scan.quality_gate, onVerdict]);
  const counts = scan.severity_counts ?? {};
  return (
    <div className="upload-outcome" role="status">
      <p>
        <strong>{t('uploaded', scan.findings_count ?? 0, scan.report_format ?? '—')}</strong>
      </p>
      <ul className="plain sev-row">
        {SEVERITIES.filter((s) => counts[s]).map((s: Severity) => (
          <li key={s}>
            <SeverityBadge severity={s} /> {counts[s]}
          </li>
        ))}
      </ul>
      <p>
        {t('gate')}:{' '}
        {scan.quality_gate ? <GateVerdict scan={scan} /> : <span className="muted">{t('awaitingVerdict')}</span>}
      </p>
      <p>
        <Link to={`/issues?filter[scan]=${scan.id}`}>{t('issuesOfScan')}</Link>
      </p>
    </div>
  );
}
