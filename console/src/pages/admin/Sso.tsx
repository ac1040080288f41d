import { api } from '../../api';
import { Field } from '../../components';
import { useI18n } from '../../i18n';
import { can, useSession } from '../../session';
import type { SsoSettings, SsoSettingsUpdate } from '../../types';
import { splitList } from '../../editing';
import { SettingsForm, useSettingsForm } from './settings-form';
import { LINES, SettingsPage } from './shared';

/** "group = role, role" a line, to and from role_mapping. */
const mappingText = (mapping: Record<string, string[]>) =>
  Object.entries(mapping)
    .map(([group, roles]) => `${group} = ${roles.join(', ')}`)
    .join('\n');
const mappingOf = (text: string): Record<string, string[]> =>
  Object.fromEntries(
    splitList(text, LINES).map((line) => {
      const at = line.lastIndexOf('=');
      return at < 0 ? [line, []] : [line.slice(0, at).trim(), splitList(line.slice(at + 1))];
    }),
  );

/** Single sign-on (OIDC) settings: read and change. The client secret is write-only: the page only says whether one is set. */
export function SsoPage() {
  const { t } = useI18n();
  const { me } = useSession();
  return (
    <SettingsPage<SsoSettings>
      id="sso-title"
      title={t('adminSso')}
      path="/sso/settings"
      complete={t('ssoComplete')}
      incomplete={t('ssoIncomplete')}
    >
      {(settings, reload) => (
        // Keyed by the saved version, so a save starts the form again from what the API stored.
        <SsoForm
          key={settings.updated_at ?? 'never'}
          settings={settings}
          mayWrite={can(me, 'settings.authentication', 'w')}
          onSaved={reload}
        />
      )}
    </SettingsPage>
  );
}

function SsoForm({ settings, mayWrite, onSaved }: { settings: SsoSettings; mayWrite: boolean; onSaved: () => void }) {
  const { t } = useI18n();
  const { s, set, save, problems, textField, check, caCertificate, secret, setSecret, secretField } = useSettingsForm(
    'sso',
    {
      enabled: settings.enabled,
      allow_insecure_http: settings.allow_insecure_http,
      issuer: settings.issuer ?? '',
      client_id: settings.client_id ?? '',
      redirect_uri: settings.redirect_uri ?? '',
      scopes: settings.scopes.join(' '),
      groups_claim: settings.groups_claim,
      role_mapping: mappingText(settings.role_mapping),
      allowed_email_domains: settings.allowed_email_domains.join(', '),
      ca_certificate: settings.ca_certificate ?? '',
    },
  );

  const submit = save.submit(async () => {
    const text = (v: string) => v.trim() || undefined;
    const body: SsoSettingsUpdate = {
      enabled: s.enabled,
      allow_insecure_http: s.allow_insecure_http,
      issuer: text(s.issuer),
      client_id: text(s.client_id),
      redirect_uri: text(s.redirect_uri),
      scopes: splitList(s.scopes, /\s+/),
      groups_claim: s.groups_claim,
      role_mapping: mappingOf(s.role_mapping),
      allowed_email_domains: splitList(s.allowed_email_domains),
      ca_certificate: s.ca_certificate.trim() || null,
      // Left out, the stored secret stays: the page never has it to send back.
      ...(secret ? { client_secret: secret } : {}),
    };
    await api<SsoSettings>('PUT', '/sso/settings', body);
    setSecret('');
    onSaved();
    return t('saved');
  });

  return (
    <SettingsForm labelledBy="sso-title" mayWrite={mayWrite} save={save} onSubmit={submit}>
      {check('enabled', t('ssoEnabled'))}
      {textField('issuer', t('ssoIssuer'))}
      {check('allow_insecure_http', t('ssoInsecure'))}
      {textField('client_id', t('ssoClientId'))}
      {secretField(
        'client_secret',
        t('ssoClientSecret'),
        settings.client_secret_set ? t('ssoSecretSet') : t('ssoSecretUnset'),
      )}
      {textField('redirect_uri', t('ssoRedirectUri'))}
      {textField('scopes', t('ssoScopes'))}
      {textField('groups_claim', t('ssoGroupsClaim'))}
      <Field id="sso-role-mapping" label={t('ssoRoleMapping')} problem={problems.role_mapping}>
        <textarea
          id="sso-role-mapping"
          rows={3}
          value={s.role_mapping}
          onChange={(e) => set('role_mapping', e.target.value)}
        />
      </Field>
      {textField('allowed_email_domains', t('ssoEmailDomains'))}
      {caCertificate(t('caCertificate'))}
    </SettingsForm>
  );
}
