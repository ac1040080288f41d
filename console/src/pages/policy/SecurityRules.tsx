import { useState } from 'react';
import { api } from '../../api';
import { Field } from '../../components';
import { splitList, useSave } from '../../editing';
import { EditableList, EditingForm, SaveButtons, SaveError } from '../editable-list';
import { useLoad } from '../../hooks';
import { formatDate, useI18n } from '../../i18n';
import { statusName, useSession } from '../../session';
import type { Page, SecurityRule, SecurityRuleBody } from '../../types';
import { PolicyTabs } from './tabs';

/** The rule_params the form edits, each a text field (cwe as 79 or CWE-79). */
const PARAMS = ['instrument_type', 'tool_type_name', 'category', 'cve', 'cwe'] as const;

export function SecurityRulesPage() {
  const { t, lang } = useI18n();
  const { statuses } = useSession();
  const rules = useLoad(() => api<Page<SecurityRule>>('GET', '/security-rules', undefined, { limit: 200 }), []);
  const params = (r: SecurityRule) =>
    PARAMS.filter((k) => r.rule_params[k] !== undefined && r.rule_params[k] !== '')
      .map((k) => `${t(`rp_${k}`)}: ${String(r.rule_params[k])}`)
      .join('; ');
  return (
    <section aria-labelledby="rules-title">
      <h1 id="rules-title" tabIndex={-1}>
        {t('securityRules')}
      </h1>
      <PolicyTabs />
      <EditableList
        list={rules}
        deletePath="/security-rules"
        form={(f) => <RuleForm {...f} />}
        columns={[t('name'), t('ruleParams'), t('suppressingStatus'), t('expiryStatus'), t('expiresAt'), t('actor')]}
        cells={(r) => (
          <>
            <td>{r.name}</td>
            <td>
              {params(r) || '—'}
              {r.rule_params.active_for_all === false
                ? ` · ${t('onlyProjects', ((r.rule_params.project_codes as string[] | undefined) ?? []).join(', '))}`
                : ''}
            </td>
            <td>{statusName(statuses, r.suppressing_status, lang)}</td>
            <td>{statusName(statuses, r.expiry_status, lang)}</td>
            <td>
              {formatDate(lang, r.expires_at)}
              {r.expired ? ` · ${t('expired')}` : ''}
            </td>
            <td>{r.author}</td>
          </>
        )}
      />
    </section>
  );
}

/** The built-in Suppressed status (README), the default a suppressing rule gives; New (1) when it expires. */
const SUPPRESSED = 7;
const NEW = 1;

/** datetime-local has no zone: the value is the reader's local time, sent as an instant. */
const toLocalInput = (iso: string | null) => {
  if (!iso) return '';
  const d = new Date(iso);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60000).toISOString().slice(0, 16);
};

function RuleForm({ editing, onDone, onCancel }: EditingForm<SecurityRule>) {
  const { t, lang } = useI18n();
  const { statuses } = useSession();
  // The parameters a rule is shown with are those it was saved with.
  const rp = (editing?.rule_params ?? {}) as NonNullable<SecurityRuleBody['rule_params']>;
  const [form, setForm] = useState({
    name: editing?.name ?? '',
    ...(Object.fromEntries(PARAMS.map((k) => [k, rp[k] === undefined ? '' : String(rp[k])])) as Record<
      (typeof PARAMS)[number],
      string
    >),
    active_for_all: rp.active_for_all !== false,
    project_codes: (rp.project_codes ?? []).join(', '),
    suppressing_status: String(editing?.suppressing_status ?? SUPPRESSED),
    expiry_status: String(editing?.expiry_status ?? NEW),
    expires_at: toLocalInput(editing?.expires_at ?? null),
  });
  const save = useSave();
  const submit = save.submit(async () => {
    const body: SecurityRuleBody = {
      name: form.name.trim(),
      rule_params: {
        ...Object.fromEntries(PARAMS.filter((k) => form[k].trim()).map((k) => [k, form[k].trim()])),
        active_for_all: form.active_for_all,
        ...(form.active_for_all ? {} : { project_codes: splitList(form.project_codes) }),
      },
      suppressing_status: Number(form.suppressing_status),
      expiry_status: Number(form.expiry_status),
      expires_at: form.expires_at ? new Date(form.expires_at).toISOString() : null,
    };
    if (editing) await api('PUT', `/security-rule/${editing.id}`, body);
    else await api('POST', '/security-rule', body);
    onDone();
  });
  const p = save.problems;
  const text = (key: 'name' | (typeof PARAMS)[number], label: string, problem?: string) => (
    <Field id={`rule-${key}`} label={label} problem={problem}>
      <input
        id={`rule-${key}`}
        required={key === 'name'}
        maxLength={255}
        value={form[key]}
        aria-invalid={problem ? true : undefined}
        onChange={(e) => setForm({ ...form, [key]: e.target.value })}
      />
    </Field>
  );
  const status = (key: 'suppressing_status' | 'expiry_status', label: string) => (
    <Field id={`rule-${key}`} label={label} problem={p[key]}>
      <select id={`rule-${key}`} value={form[key]} onChange={(e) => setForm({ ...form, [key]: e.target.value })}>
        {statuses.map((s) => (
          <option key={s.id} value={s.id}>
            {statusName(statuses, s.id, lang)}
          </option>
        ))}
      </select>
    </Field>
  );
  return (
    <form className="card inline" onSubmit={submit} aria-labelledby="rule-form-title">
      <h2 id="rule-form-title">{editing ? t('editX', editing.name) : t('newRule')}</h2>
      {text('name', t('name'), p.name)}
      {PARAMS.map((k) => text(k, t(`rp_${k}`), p[`rule_params.${k}`]))}
      <div className="field">
        <label>
          <input
            type="checkbox"
            checked={form.active_for_all}
            onChange={(e) => setForm({ ...form, active_for_all: e.target.checked })}
          />{' '}
          {t('activeForAll')}
        </label>
      </div>
      {!form.active_for_all && (
        <Field id="rule-projects" label={t('projectCodes')} problem={p['rule_params.project_codes']}>
          <input
            id="rule-projects"
            required
            value={form.project_codes}
            onChange={(e) => setForm({ ...form, project_codes: e.target.value })}
          />
        </Field>
      )}
      {status('suppressing_status', t('suppressingStatus'))}
      {status('expiry_status', t('expiryStatus'))}
      <Field id="rule-expires" label={t('expiresAt')} problem={p.expires_at}>
        <input
          id="rule-expires"
          type="datetime-local"
          value={form.expires_at}
          onChange={(e) => setForm({ ...form, expires_at: e.target.value })}
        />
      </Field>
      <SaveButtons save={save} editing={!!editing} onCancel={onCancel} />
      <SaveError save={save} />
    </form>
  );
}
