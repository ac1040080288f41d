import { FormEvent, useState } from 'react';
import { api } from '../../api';
import { ErrorNote, Field } from '../../components';
import { formatDate, useI18n } from '../../i18n';
import { VEX_JUSTIFICATIONS, VEX_RESPONSES, VEX_STATES } from '@bulwark/contracts/vex';
import type { Issue, IssueAnalysis, VexJustification, VexResponse, VexState } from '../../types';

/** The issue's analysis in the CycloneDX VEX vocabulary, which the VEX export states. */
export function AnalysisForm({ issue, onChange }: { issue: Issue; onChange: () => void }) {
  const { t, lang } = useI18n();
  const saved: IssueAnalysis | null = issue.analysis;
  const [state, setState] = useState<VexState>(saved?.state ?? 'in_triage');
  const [justification, setJustification] = useState<VexJustification | ''>(saved?.justification ?? '');
  const [response, setResponse] = useState<VexResponse[]>(saved?.response ?? []);
  const [detail, setDetail] = useState(saved?.detail ?? '');
  const [note, setNote] = useState<string>();
  const [error, setError] = useState<Error>();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    setNote(undefined);
    try {
      await api('PUT', `/issue/${issue.id}/analysis`, {
        state,
        justification: state === 'not_affected' && justification ? justification : null,
        response,
        detail: detail.trim() || null,
      });
      setNote(t('analysisSaved'));
      onChange();
    } catch (err) {
      setError(err as Error);
    }
  };
  return (
    <form className="card inline" aria-labelledby="analysis-title" onSubmit={(e) => void submit(e)}>
      <h3 id="analysis-title">{t('analysis')}</h3>
      <p>{saved ? t('analysisBy', saved.updated_by, formatDate(lang, saved.updated_at)) : t('noAnalysis')}</p>
      <Field id="analysis-state" label={t('analysisState')}>
        <select id="analysis-state" value={state} onChange={(e) => setState(e.target.value as VexState)}>
          {VEX_STATES.map((s) => (
            <option key={s} value={s}>
              {t(`vs_${s}`)}
            </option>
          ))}
        </select>
      </Field>
      <Field id="analysis-justification" label={t('justification')}>
        <select
          id="analysis-justification"
          value={state === 'not_affected' ? justification : ''}
          disabled={state !== 'not_affected'}
          aria-describedby="analysis-justification-hint"
          onChange={(e) => setJustification(e.target.value as VexJustification | '')}
        >
          <option value="" />
          {VEX_JUSTIFICATIONS.map((j) => (
            <option key={j} value={j}>
              {t(`vj_${j}`)}
            </option>
          ))}
        </select>
        <span className="hint" id="analysis-justification-hint">
          {t('justificationHint')}
        </span>
      </Field>
      <fieldset className="checkset">
        <legend>{t('responses')}</legend>
        {VEX_RESPONSES.map((r) => (
          <label key={r}>
            <input
              type="checkbox"
              checked={response.includes(r)}
              onChange={(e) => setResponse(e.target.checked ? [...response, r] : response.filter((x) => x !== r))}
            />
            {t(`vr_${r}`)}
          </label>
        ))}
      </fieldset>
      <Field id="analysis-detail" label={t('analysisDetail')}>
        <textarea id="analysis-detail" value={detail} maxLength={4000} onChange={(e) => setDetail(e.target.value)} />
      </Field>
      <button type="submit" className="primary">
        {t('saveAnalysis')}
      </button>
      {note && <p role="status">{note}</p>}
      {error && <ErrorNote error={error} />}
    </form>
  );
}
