import { FormEvent, useState } from 'react';
import { api } from '../../api';
import { Field } from '../../components';
import { useI18n } from '../../i18n';
import { can, useSession } from '../../session';
import type { LdapSettings, LdapSettingsUpdate, LdapTestResult } from '../../types';
import { LoadError, splitList } from '../../editing';
import { SettingsForm, useSettingsForm } from './settings-form';
import { LINES, SettingsPage } from './shared';

const NESTED = ['none', 'walk', 'in_chain'] as const satisfies readonly LdapSettings['nested_groups'][];

/** Directory (LDAP) sign-in settings: read, change and test. The bind password is write-only: the page only says whether one is set. */
export function DirectoryPage() {
  const { t } = useI18n();
  const { me } = useSession();
  return (
    <SettingsPage<LdapSettings>
      id="directory-title"
      title={t('adminDirectory')}
      path="/ldap/settings"
      complete={t('complete')}
      incomplete={t('incomplete')}
    >
      {(settings, reload) => (
        <>
          {/* Keyed by the saved version, so a save starts the form again from what the API stored. */}
          <DirectoryForm
            key={settings.updated_at ?? 'never'}
            settings={settings}
            mayWrite={can(me, 'settings.authentication', 'w')}
            onSaved={reload}
          />
          {can(me, 'settings.authentication', 'x') && <DirectoryTest />}
        </>
      )}
    </SettingsPage>
  );
}

function DirectoryForm({
  settings,
  mayWrite,
  onSaved,
}: {
  settings: LdapSettings;
  mayWrite: boolean;
  onSaved: () => void;
}) {
  const { t } = useI18n();
  const { s, set, save, problems, textField, check, caCertificate, secret, setSecret, secretField } = useSettingsForm(
    'ldap',
    {
      ...settings,
      urls: settings.urls.join('\n'),
      bind_dn: settings.bind_dn ?? '',
      user_search_base: settings.user_search_base ?? '',
      ca_certificate: settings.ca_certificate ?? '',
      disabled_filter: settings.disabled_filter ?? '',
      group_search_base: settings.group_search_base ?? '',
    },
  );

  const submit = save.submit(async () => {
    const text = (v: string) => v.trim() || undefined;
    const body: LdapSettingsUpdate = {
      enabled: s.enabled,
      urls: splitList(s.urls, LINES),
      start_tls: s.start_tls,
      verify_certificate: s.verify_certificate,
      ca_certificate: s.ca_certificate.trim() || null,
      bind_dn: text(s.bind_dn),
      user_search_base: text(s.user_search_base),
      user_filter: s.user_filter,
      disabled_filter: s.disabled_filter.trim() || null,
      group_search_base: s.group_search_base.trim() || null,
      group_filter: s.group_filter,
      group_member_attribute: s.group_member_attribute,
      nested_groups: s.nested_groups,
      display_name_attribute: s.display_name_attribute,
      email_attribute: s.email_attribute,
      timeout_seconds: s.timeout_seconds,
      page_size: s.page_size,
      // Left out, the stored password stays: the page never has it to send back.
      ...(secret ? { bind_password: secret } : {}),
    };
    await api<LdapSettings>('PUT', '/ldap/settings', body);
    setSecret('');
    onSaved();
    return t('saved');
  });

  const count = (key: 'timeout_seconds' | 'page_size', id: string, label: string, max: number) => (
    <Field id={id} label={label} problem={problems[key]}>
      <input
        id={id}
        type="number"
        min={1}
        max={max}
        value={s[key]}
        onChange={(e) => set(key, Number(e.target.value))}
      />
    </Field>
  );
  return (
    <SettingsForm labelledBy="directory-title" mayWrite={mayWrite} save={save} onSubmit={submit}>
      {check('enabled', t('ldapEnabled'))}
      <Field id="ldap-urls" label={t('ldapUrls')} problem={problems.urls ?? problems['urls.0']}>
        <textarea id="ldap-urls" rows={2} value={s.urls} onChange={(e) => set('urls', e.target.value)} />
      </Field>
      {check('start_tls', t('startTls'))}
      {check('verify_certificate', t('verifyCertificate'))}
      {caCertificate(t('caCertificate'))}
      {textField('bind_dn', t('bindDn'))}
      {secretField(
        'bind_password',
        t('bindPassword'),
        settings.bind_password_set ? t('bindPasswordSet') : t('bindPasswordUnset'),
      )}
      {textField('user_search_base', t('userSearchBase'))}
      {textField('user_filter', t('userFilter'))}
      {textField('disabled_filter', t('disabledFilter'))}
      {textField('group_search_base', t('groupSearchBase'))}
      {textField('group_filter', t('groupFilter'))}
      {textField('group_member_attribute', t('groupMemberAttribute'))}
      <Field id="ldap-nested" label={t('nestedGroups')} problem={problems.nested_groups}>
        <select
          id="ldap-nested"
          value={s.nested_groups}
          onChange={(e) => set('nested_groups', e.target.value as LdapSettings['nested_groups'])}
        >
          {NESTED.map((n) => (
            <option key={n} value={n}>
              {t(`nested_${n}`)}
            </option>
          ))}
        </select>
      </Field>
      {textField('display_name_attribute', t('displayNameAttribute'))}
      {textField('email_attribute', t('emailAttribute'))}
      {count('timeout_seconds', 'ldap-timeout', t('timeoutSeconds'), 120)}
      {count('page_size', 'ldap-page-size', t('pageSize'), 5000)}
    </SettingsForm>
  );
}

function DirectoryTest() {
  const { t } = useI18n();
  const [username, setUsername] = useState('');
  const [result, setResult] = useState<LdapTestResult>();
  const [error, setError] = useState<Error>();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    setResult(undefined);
    try {
      setResult(await api<LdapTestResult>('POST', '/ldap/test', username.trim() ? { username: username.trim() } : {}));
    } catch (err) {
      setError(err as Error);
    }
  };
  return (
    <form className="card inline" onSubmit={(e) => void submit(e)} aria-labelledby="ldap-test-title">
      <h2 id="ldap-test-title">{t('testConnection')}</h2>
      <Field id="ldap-test-username" label={t('testUsername')}>
        <input id="ldap-test-username" value={username} onChange={(e) => setUsername(e.target.value)} />
      </Field>
      <button type="submit">{t('test')}</button>
      {result && (
        <p role="status" className={result.ok ? undefined : 'error'}>
          {result.ok ? t('testOk', result.message) : t('ldapTestFailed', t(`stage_${result.stage}`), result.message)}
        </p>
      )}
      {error && <LoadError error={error} />}
    </form>
  );
}
