import { useEffect, useState } from 'react';
import { api } from '../api';
import { Field } from '../components';
import { useSave } from '../editing';
import { useLoad } from '../hooks';
import { useI18n } from '../i18n';
import { navigate, useLocation } from '../router';
import type { LoginRequest, PasswordChange, Session } from '../types';

/** Sign-in for local and directory (LDAP) users alike: the gateway's session login sets the cookies. */
export function SignIn({
  onSignedIn,
  passwordChanged,
}: {
  onSignedIn: (needsPasswordChange: boolean) => void;
  passwordChanged?: boolean;
}) {
  const { t } = useI18n();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const save = useSave();
  // The gateway sends a failed single sign-on back here with its reason: shown, and taken out of the
  // address at once, so neither a reload nor the signed-in console shows an old failure again.
  const { path, search } = useLocation();
  const [ssoError] = useState(() => search.get('sso_error'));
  useEffect(() => {
    if (!search.has('sso_error')) return;
    const rest = new URLSearchParams(search);
    rest.delete('sso_error');
    navigate(rest.size ? `${path}?${rest}` : path, true);
  }, [path, search]);
  const sso = useLoad(
    () =>
      api<{ allowed: boolean }>('GET', '/sso/allowed').then(
        (r) => r.allowed,
        () => false,
      ),
    [],
  );

  const submit = save.submit(async () => {
    const body: LoginRequest = { username, password };
    const session = await api<Session>('POST', '/auth/session', body);
    onSignedIn(session.need_password_change);
  });

  return (
    <form className="card narrow" onSubmit={submit} aria-labelledby="signin-title">
      <h1 id="signin-title" tabIndex={-1}>
        {t('signIn')}
      </h1>
      {passwordChanged && <p role="status">{t('passwordChanged')}</p>}
      <Field id="username" label={t('username')}>
        <input
          id="username"
          name="username"
          autoComplete="username"
          required
          value={username}
          onChange={(e) => setUsername(e.target.value)}
        />
      </Field>
      <Field id="password" label={t('password')}>
        <input
          id="password"
          name="password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
      </Field>
      {save.error && (
        <p role="alert" className="error">
          {save.error.message}
        </p>
      )}
      <p className="hint">{t('directoryHint')}</p>
      <button type="submit" className="primary" disabled={save.busy}>
        {save.busy ? t('signingIn') : t('signIn')}
      </button>
      {ssoError && (
        <p role="alert" className="error">
          {t('ssoFailed', ssoError)}
        </p>
      )}
      {/* A full navigation, not a fetch: the provider's pages take over the window. */}
      {sso.data && (
        <p>
          <a className="button" href="/api/v1/auth/session/sso">
            {t('signInSso')}
          </a>
        </p>
      )}
    </form>
  );
}

export function PasswordChangeForm({ onChanged }: { onChanged: () => void }) {
  const { t } = useI18n();
  const [form, setForm] = useState<PasswordChange>({ current_password: '', password: '', password_confirmation: '' });
  const save = useSave();
  const { problems } = save;

  const submit = save.submit(async () => {
    await api('PUT', '/auth/password', form);
    onChanged();
  });
  const input = (key: keyof PasswordChange, label: string, autoComplete: string) => (
    <Field id={key} label={label} problem={problems[key]}>
      <input
        id={key}
        type="password"
        required
        autoComplete={autoComplete}
        value={form[key]}
        aria-invalid={problems[key] ? true : undefined}
        aria-describedby={problems[key] ? `${key}-problem` : undefined}
        onChange={(e) => setForm({ ...form, [key]: e.target.value })}
      />
    </Field>
  );
  return (
    <form className="card narrow" onSubmit={submit} aria-labelledby="pw-title">
      <h1 id="pw-title" tabIndex={-1}>
        {t('changePassword')}
      </h1>
      <p>{t('changePasswordWhy')}</p>
      {input('current_password', t('currentPassword'), 'current-password')}
      {input('password', t('newPassword'), 'new-password')}
      {input('password_confirmation', t('confirmPassword'), 'new-password')}
      {save.error && (
        <p role="alert" className="error">
          {save.error.message}
        </p>
      )}
      <button type="submit" className="primary" disabled={save.busy}>
        {t('save')}
      </button>
    </form>
  );
}
