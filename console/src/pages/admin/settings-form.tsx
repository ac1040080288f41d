// What the directory and single sign-on settings forms share: the fields' state and their builders,
// the write-only secret's field, and the form around them with its save.
import { ReactNode, useState } from 'react';
import { Field } from '../../components';
import { LoadError, Save, useSave } from '../../editing';
import { useI18n } from '../../i18n';

type KeysOf<S, V> = { [K in keyof S]: S[K] extends V ? K : never }[keyof S] & string;

/**
 * A settings form's fields (`initial`, text kept as the inputs show it), a setter, its save, its
 * write-only secret (empty unless typed anew), and builders of a text input, a checkbox, the CA
 * certificate's text area and the secret's input, with ids `prefix-key`.
 */
export function useSettingsForm<S extends { ca_certificate: string }>(prefix: string, initial: S) {
  const [s, setS] = useState(initial);
  const [secret, setSecret] = useState('');
  const save = useSave();
  const { problems } = save;
  const set = <K extends keyof S>(key: K, value: S[K]) => setS({ ...s, [key]: value });
  const textField = (key: KeysOf<S, string>, label: string) => (
    <Field id={`${prefix}-${key}`} label={label} problem={problems[key]}>
      <input
        id={`${prefix}-${key}`}
        value={s[key] as string}
        onChange={(e) => set(key, e.target.value as S[typeof key])}
      />
    </Field>
  );
  const check = (key: KeysOf<S, boolean>, label: string) => (
    <label className="check">
      <input
        type="checkbox"
        checked={s[key] as boolean}
        onChange={(e) => set(key, e.target.checked as S[typeof key])}
      />
      {label}
    </label>
  );
  const caCertificate = (label: string) => (
    <Field id={`${prefix}-ca`} label={label} problem={problems.ca_certificate}>
      <textarea
        id={`${prefix}-ca`}
        rows={3}
        className="mono"
        value={s.ca_certificate}
        onChange={(e) => set('ca_certificate', e.target.value as S['ca_certificate'])}
      />
    </Field>
  );
  /** The secret's input (`key` as the API names it), with a hint whether one is stored. */
  const secretField = (key: string, label: string, hint: string) => {
    const id = `${prefix}-${key.replaceAll('_', '-')}`;
    return (
      <Field id={id} label={label} problem={problems[key]}>
        <input
          id={id}
          type="password"
          autoComplete="new-password"
          aria-describedby={`${id}-hint`}
          value={secret}
          onChange={(e) => setSecret(e.target.value)}
        />
        <span id={`${id}-hint`} className="hint">
          {hint}
        </span>
      </Field>
    );
  };
  return { s, set, save, problems, textField, check, caCertificate, secret, setSecret, secretField };
}

/** The form of a settings page: read-only without the right to write, its save's outcome under it. */
export function SettingsForm({
  labelledBy,
  mayWrite,
  save,
  onSubmit,
  children,
}: {
  labelledBy: string;
  mayWrite: boolean;
  save: Save;
  onSubmit: ReturnType<Save['submit']>;
  children: ReactNode;
}) {
  const { t } = useI18n();
  return (
    <form className="card" onSubmit={onSubmit} aria-labelledby={labelledBy}>
      <fieldset disabled={!mayWrite} className="plain">
        {children}
        {mayWrite && (
          <button type="submit" className="primary" disabled={save.busy}>
            {t('save')}
          </button>
        )}
      </fieldset>
      {save.note && <p role="status">{save.note}</p>}
      {save.error && <LoadError error={save.error} />}
    </form>
  );
}
