import { useState } from 'react';
import { api } from '../../api';
import { Field, Loading } from '../../components';
import { formatDate, useI18n } from '../../i18n';
import type { BulkResult, Page, Token, TokenCreate, TokenCreated } from '../../types';
import { LoadError, usePagedList, useSave } from '../../editing';
import { AdminPage } from './shared';

/** A date input's value a year from today, the form's default expiry. */
const inAYear = () => {
  const d = new Date();
  d.setFullYear(d.getFullYear() + 1);
  return d.toISOString().slice(0, 10);
};

/** The caller's own API tokens (the API lists no one else's): create one, whose secret is shown once, and revoke. */
export function TokensPage() {
  const { t, lang } = useI18n();
  const [withRevoked, setWithRevoked] = useState(false);
  const [created, setCreated] = useState<TokenCreated>();
  const [error, setError] = useState<Error>();
  const tokens = usePagedList(
    (paging) =>
      api<Page<Token>>('GET', '/tokens', undefined, { ...paging, 'filter[include_revoked]': withRevoked || undefined }),
    [withRevoked],
  );

  const revoke = async (token: Token) => {
    setError(undefined);
    try {
      const res = await api<BulkResult>('DELETE', '/tokens', { ids: [token.id] });
      const failed = res.results.find((r) => r.status !== 'revoked');
      if (failed) setError(new Error(failed.message ?? failed.status));
      tokens.reload();
    } catch (err) {
      setError(err as Error);
    }
  };

  return (
    <AdminPage id="tokens-title" title={t('adminTokens')}>
      <p className="hint">{t('tokensOwn')}</p>
      <TokenForm
        onCreated={(token) => {
          setCreated(token);
          tokens.reload();
        }}
      />
      {created && <NewSecret token={created} onDismiss={() => setCreated(undefined)} />}
      <label className="check">
        <input type="checkbox" checked={withRevoked} onChange={(e) => setWithRevoked(e.target.checked)} />
        {t('showRevoked')}
      </label>
      {error && <LoadError error={error} />}
      {tokens.error && <LoadError error={tokens.error} />}
      {!tokens.data ? (
        !tokens.error && <Loading />
      ) : tokens.data.total === 0 ? (
        <p>{t('none')}</p>
      ) : (
        <>
          <table className="grid">
            <thead>
              <tr>
                <th scope="col">{t('tokenName')}</th>
                <th scope="col">{t('created')}</th>
                <th scope="col">{t('tokenExpires')}</th>
                <th scope="col">{t('lastUsed')}</th>
                <th scope="col">{t('state')}</th>
                <th scope="col">{t('actions')}</th>
              </tr>
            </thead>
            <tbody>
              {tokens.data.items.map((tk) => (
                <tr key={tk.id}>
                  <td>{tk.name}</td>
                  <td>{formatDate(lang, tk.created_at)}</td>
                  <td>{formatDate(lang, tk.expires_at)}</td>
                  <td>{formatDate(lang, tk.last_used_at)}</td>
                  <td>{tk.revoked_at ? `${t('revoked')} ${formatDate(lang, tk.revoked_at)}` : t('tokenActive')}</td>
                  <td>
                    {!tk.revoked_at && (
                      <button type="button" aria-label={t('revokeOf', tk.name)} onClick={() => void revoke(tk)}>
                        {t('revoke')}
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {tokens.pager}
        </>
      )}
    </AdminPage>
  );
}

function TokenForm({ onCreated }: { onCreated: (token: TokenCreated) => void }) {
  const { t } = useI18n();
  const [name, setName] = useState('');
  const [expires, setExpires] = useState(inAYear);
  const save = useSave();
  const { problems } = save;
  const submit = save.submit(async () => {
    // The end of the chosen day in UTC: the token works through the whole of that date.
    const body: TokenCreate = { name, expires_at: `${expires}T23:59:59Z` };
    onCreated(await api<TokenCreated>('POST', '/token', body));
    setName('');
  });
  return (
    <form className="card inline" onSubmit={submit} aria-labelledby="new-token-title">
      <h2 id="new-token-title">{t('newToken')}</h2>
      <Field id="token-name" label={t('tokenName')} problem={problems.name}>
        <input id="token-name" required maxLength={255} value={name} onChange={(e) => setName(e.target.value)} />
      </Field>
      <Field id="token-expires" label={t('tokenExpires')} problem={problems.expires_at}>
        <input
          id="token-expires"
          type="date"
          required
          min={new Date().toISOString().slice(0, 10)}
          value={expires}
          onChange={(e) => setExpires(e.target.value)}
        />
      </Field>
      <button type="submit" className="primary" disabled={save.busy}>
        {t('create')}
      </button>
      {save.error && <LoadError error={save.error} />}
    </form>
  );
}

/** The secret of a token just created: the API stores only its hash, so this is the one time it can be read. */
function NewSecret({ token, onDismiss }: { token: TokenCreated; onDismiss: () => void }) {
  const { t } = useI18n();
  const [copied, setCopied] = useState<boolean>();
  const copy = () =>
    navigator.clipboard.writeText(token.token).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  return (
    <div className="card secret">
      <p role="alert">{t('tokenCreated', token.name)}</p>
      <label htmlFor="token-secret">{t('tokenSecret')}</label>
      <div className="actions">
        <input id="token-secret" className="mono" readOnly value={token.token} onFocus={(e) => e.target.select()} />
        <button type="button" onClick={() => void copy()}>
          {t('copy')}
        </button>
        <button type="button" onClick={onDismiss}>
          {t('dismiss')}
        </button>
      </div>
      {copied !== undefined && <p role="status">{copied ? t('copied') : t('copyFailed')}</p>}
    </div>
  );
}
