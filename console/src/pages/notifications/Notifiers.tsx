import { useState } from 'react';
import { api } from '../../api';
import { Field } from '../../components';
import { splitList, useSave } from '../../editing';
import { EditableList, EditingForm, SaveButtons, SaveError } from '../editable-list';
import { useLoad } from '../../hooks';
import { useI18n } from '../../i18n';
import type { Notifier, NotifierBody, NotifierTestResult, Page, PayloadFormat } from '../../types';
import { NotificationsTabs } from './tabs';

const FORMATS = ['json', 'cef'] as const satisfies readonly PayloadFormat[];

/** The event types a notifier can receive, as the API lists them (GET /event-template). */
export const useEventTypes = () =>
  useLoad(
    () =>
      api<{ items: { type: string; description: string }[] }>('GET', '/event-template').then(
        (r) => r.items,
        () => [],
      ),
    [],
  );

/** Webhook notifiers. Their token and signing secret are write-only: the API says only whether one is set. */
export function NotifiersPage() {
  const { t } = useI18n();
  const notifiers = useLoad(() => api<Page<Notifier>>('GET', '/notifiers', undefined, { limit: 200 }), []);
  return (
    <section aria-labelledby="notifiers-title">
      <h1 id="notifiers-title" tabIndex={-1}>
        {t('notifiers')}
      </h1>
      <NotificationsTabs />
      <EditableList
        list={notifiers}
        deletePath="/notifiers"
        form={(f) => <NotifierForm {...f} />}
        columns={[t('name'), t('url'), t('eventTypes'), t('deliveries'), t('secrets')]}
        cells={(n) => (
          <>
            <td>
              {n.name}
              {!n.active && (
                <>
                  {' '}
                  <span className="muted">({t('inactive')})</span>
                </>
              )}
            </td>
            <td className="mono">{n.settings.url}</td>
            <td>{n.events.join(', ') || t('allEvents')}</td>
            <td>
              {t('deliveryCounts', n.deliveries.delivered, n.deliveries.pending, n.deliveries.failed)}
              {n.deliveries.last_error && (
                <>
                  <br />
                  <span className="error">{n.deliveries.last_error}</span>
                </>
              )}
            </td>
            <td>
              {[
                n.settings.auth_header_set && t('tokenSet', n.settings.auth_header_name ?? ''),
                n.settings.signing_secret_set && t('secretSet'),
              ]
                .filter(Boolean)
                .join(', ') || '—'}
            </td>
          </>
        )}
        actions={(n) => <TestButton notifier={n} />}
      />
    </section>
  );
}

function TestButton({ notifier }: { notifier: Notifier }) {
  const { t } = useI18n();
  const [result, setResult] = useState<string>();
  const test = async () => {
    setResult(t('sending'));
    try {
      const r = await api<NotifierTestResult>('POST', `/notifier/${notifier.id}/test`);
      setResult(
        r.delivered
          ? t('testDelivered', r.status ?? '', r.duration_ms)
          : t('testFailed', r.error ?? String(r.status ?? '')),
      );
    } catch (err) {
      setResult((err as Error).message);
    }
  };
  return (
    <>
      <button type="button" onClick={() => void test()}>
        {t('testX', notifier.name)}
      </button>
      {result && <span role="status">{result}</span>}
    </>
  );
}

function NotifierForm({ editing, onDone, onCancel }: EditingForm<Notifier>) {
  const { t } = useI18n();
  const types = useEventTypes();
  const s = editing?.settings;
  const [form, setForm] = useState({
    name: editing?.name ?? '',
    url: s?.url ?? '',
    rate_limit: String(s?.rate_limit ?? 5),
    timeout_seconds: String(s?.timeout_seconds ?? 10),
    payload_format: s?.payload_format ?? 'json',
    auth_header_name: s?.auth_header_name ?? '',
    auth_header_value: '',
    signing_secret: '',
    project_codes: editing?.project_codes.join(', ') ?? '',
    active: editing?.active ?? true,
  });
  const [events, setEvents] = useState<string[]>(editing?.events ?? []);
  const save = useSave();
  const submit = save.submit(async () => {
    const body: NotifierBody = {
      name: form.name.trim(),
      type_id: 1,
      active: form.active,
      project_codes: splitList(form.project_codes),
      events: events as NotifierBody['events'],
      settings: {
        url: form.url.trim(),
        rate_limit: Number(form.rate_limit),
        timeout_seconds: Number(form.timeout_seconds),
        payload_format: form.payload_format,
        // Secrets left empty are not sent, so an edit keeps the stored ones.
        ...(form.auth_header_name.trim() ? { auth_header_name: form.auth_header_name.trim() } : {}),
        ...(form.auth_header_value ? { auth_header_value: form.auth_header_value } : {}),
        ...(form.signing_secret ? { signing_secret: form.signing_secret } : {}),
      },
    };
    if (editing) await api('PUT', `/notifier/${editing.id}`, body);
    else await api('POST', '/notifier', body);
    onDone();
  });
  const p = save.problems;
  const input = (
    key:
      | 'name'
      | 'url'
      | 'rate_limit'
      | 'timeout_seconds'
      | 'auth_header_name'
      | 'auth_header_value'
      | 'signing_secret'
      | 'project_codes',
    label: string,
    extra: { type?: string; required?: boolean; hint?: string } = {},
  ) => {
    const problem = p[key] ?? p[`settings.${key}`];
    const id = `notifier-${key}`;
    return (
      <Field id={id} label={label} problem={problem}>
        <input
          id={id}
          type={extra.type ?? 'text'}
          required={extra.required}
          value={form[key]}
          aria-invalid={problem ? true : undefined}
          autoComplete={extra.type === 'password' ? 'new-password' : undefined}
          aria-describedby={extra.hint ? `${id}-hint` : undefined}
          onChange={(e) => setForm({ ...form, [key]: e.target.value })}
        />
        {extra.hint && (
          <span className="hint" id={`${id}-hint`}>
            {extra.hint}
          </span>
        )}
      </Field>
    );
  };
  const keep = (set: boolean | undefined) => (set ? t('secretKept') : undefined);
  return (
    <form className="card" onSubmit={submit} aria-labelledby="notifier-form-title">
      <h2 id="notifier-form-title">{editing ? t('editX', editing.name) : t('newNotifier')}</h2>
      <div className="inline-fields">
        {input('name', t('name'), { required: true })}
        {input('url', t('url'), { type: 'url', required: true })}
        {input('rate_limit', t('rateLimit'), { type: 'number', required: true })}
        {input('timeout_seconds', t('timeoutSeconds'), { type: 'number', required: true })}
        <Field id="notifier-format" label={t('payloadFormat')} problem={p['settings.payload_format']}>
          <select
            id="notifier-format"
            value={form.payload_format}
            onChange={(e) => setForm({ ...form, payload_format: e.target.value as PayloadFormat })}
          >
            {FORMATS.map((f) => (
              <option key={f} value={f}>
                {f.toUpperCase()}
              </option>
            ))}
          </select>
        </Field>
        {input('auth_header_name', t('authHeaderName'))}
        {input('auth_header_value', t('authHeaderValue'), { type: 'password', hint: keep(s?.auth_header_set) })}
        {input('signing_secret', t('signingSecret'), {
          type: 'password',
          hint: keep(s?.signing_secret_set) ?? t('signingSecretHint'),
        })}
        {input('project_codes', t('projectCodesAll'))}
      </div>
      <fieldset>
        <legend>{t('eventTypesAll')}</legend>
        {types.data?.map((ev) => (
          <label key={ev.type} className="check">
            <input
              type="checkbox"
              checked={events.includes(ev.type)}
              onChange={(e) => setEvents(e.target.checked ? [...events, ev.type] : events.filter((x) => x !== ev.type))}
            />{' '}
            {ev.type}
          </label>
        ))}
      </fieldset>
      <div className="actions">
        <label className="check">
          <input
            type="checkbox"
            checked={form.active}
            onChange={(e) => setForm({ ...form, active: e.target.checked })}
          />{' '}
          {t('active')}
        </label>
        <SaveButtons save={save} editing={!!editing} onCancel={onCancel} />
      </div>
      <SaveError save={save} />
    </form>
  );
}
