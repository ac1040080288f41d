// What the directory and single sign-on settings forms share: the fields' state and their builders,
// the write-only secret's field, and the form around them with its save.
import { ReactNode, useState } from 'react';
import { Field } from '../../components';
import { LoadError, Save, useSave } from '../../editing';

type KeysOf<S, V> = { [K in keyof S]: S[K] extends V ? K : never }[keyof S] & string;

/**
 * A settings form's fields (`initial`, text kept as the inputs show it), a setter, its save, and
 * builders of a text input, a checkbox and the CA certificate's text area, with ids `prefix-key`.
 */
export function useSettingsForm<S extends { ca_certificate: string }>(prefix: string, initial: S) {
  const [s, setS] = useState(initial);
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
  return { s, set, save, problems, textField, check, caCertificate };
}

/** A write-only secret: empty unless typed anew, with a hint whether one is stored. */
export function SecretField({
  id,
  label,
  problem,
  value,
  onChange,
  hint,
}: {
  id: string;
  label: string;
  problem: string | undefined;
  value: string;
  onChange: (value: string) => void;
  hint: string;
}) {
  return (
    <Field id={id} label={label} problem={problem}>
      <input
        id={id}
        type="password"
        autoComplete="new-password"
        aria-describedby={`${id}-hint`}
        value={value}
        onChange={(e) => onChange(e.target.value)}
      />
      <span id={`${id}-hint`} className="hint">
        {hint}
      </span>
    </Field>
  );
}

/** The form of a settings page: read-only without the right to write, its save's outcome under it. */
export function SettingsForm({
  labelledBy,
  mayWrite,
  save,
  onSubmit,
  saveLabel,
  children,
}: {
  labelledBy: string;
  mayWrite: boolean;
  save: Save;
  onSubmit: ReturnType<Save['submit']>;
  saveLabel: string;
  children: ReactNode;
}) {
  return (
    <form className="card" onSubmit={onSubmit} aria-labelledby={labelledBy}>
      <fieldset disabled={!mayWrite} className="plain">
        {children}
        {mayWrite && (
          <button type="submit" className="primary" disabled={save.busy}>
            {saveLabel}
          </button>
        )}
      </fieldset>
      {save.note && <p role="status">{save.note}</p>}
      {save.error && <LoadError error={save.error} />}
    </form>
  );
}
