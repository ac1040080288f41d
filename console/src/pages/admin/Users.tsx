import { useState } from 'react';
import { api } from '../../api';
import { Field, Loading } from '../../components';
import { useLoad } from '../../hooks';
import { useI18n } from '../../i18n';
import { can, useSession } from '../../session';
import type { BulkResult, Page, Role, User, UserCreate, UserUpdate } from '../../types';
import { LoadError, usePagedList, useSave } from '../../editing';
import { AdminPage, CheckboxSet, roleOptions, RowActions } from './shared';

export function UsersPage() {
  const { t } = useI18n();
  const { me } = useSession();
  const [search, setSearch] = useState('');
  const [withDeleted, setWithDeleted] = useState(false);
  const [editing, setEditing] = useState<string>();
  const [error, setError] = useState<Error>();
  const users = usePagedList(
    (paging) =>
      api<Page<User>>('GET', '/users', undefined, {
        ...paging,
        'search[username]': search.trim(),
        'filter[with_deleted]': withDeleted || undefined,
      }),
    [search, withDeleted],
  );
  // Roles to choose from; a user who may manage users but not read roles types nothing and keeps what is there.
  const roles = useLoad(
    () =>
      can(me, 'administration.roles', 'r')
        ? api<Page<Role>>('GET', '/roles', undefined, { limit: 1000 }).then((r) => r.items)
        : Promise.resolve([]),
    [],
  );
  const mayWrite = can(me, 'administration.users', 'w');
  const mayDelete = can(me, 'administration.users', 'd');

  const bulk = async (method: 'DELETE' | 'PUT', path: string, user: User) => {
    setError(undefined);
    try {
      const res = await api<BulkResult>(method, path, { ids: [user.id] });
      const failed = res.results.find(
        (r) => r.status === 'conflict' || r.status === 'forbidden' || r.status === 'not_found',
      );
      if (failed) setError(new Error(failed.message ?? failed.status));
      users.reload();
    } catch (err) {
      setError(err as Error);
    }
  };

  return (
    <AdminPage id="users-title" title={t('adminUsers')}>
      {mayWrite && <UserForm roles={roles.data ?? []} onSaved={users.reload} />}
      <div className="toolbar">
        <div className="field">
          <label htmlFor="user-search">{t('searchUsers')}</label>
          <input id="user-search" type="search" value={search} onChange={(e) => setSearch(e.target.value)} />
        </div>
        <label className="check">
          <input type="checkbox" checked={withDeleted} onChange={(e) => setWithDeleted(e.target.checked)} />
          {t('showDeleted')}
        </label>
      </div>
      {error && <LoadError error={error} />}
      {users.error && <LoadError error={users.error} />}
      {!users.data ? (
        !users.error && <Loading />
      ) : (
        <>
          <p role="status">{t('usersTotal', users.data.total)}</p>
          <table className="grid">
            <thead>
              <tr>
                <th scope="col">{t('username')}</th>
                <th scope="col">{t('displayName')}</th>
                <th scope="col">{t('email')}</th>
                <th scope="col">{t('roles')}</th>
                <th scope="col">{t('actions')}</th>
              </tr>
            </thead>
            <tbody>
              {users.data.items.map((u) => (
                <tr key={u.id}>
                  <td>
                    {u.username}
                    {u.deleted_at && <span className="muted"> · {t('deleted')}</span>}
                    {u.active_directory && <span className="muted"> · {t('directoryShort')}</span>}
                    {u.need_password_change && <span className="muted"> · {t('mustChangeShort')}</span>}
                  </td>
                  <td>{u.display_name}</td>
                  <td>{u.email ?? '—'}</td>
                  <td>{u.roles.join(', ')}</td>
                  <td>
                    <RowActions
                      name={u.username}
                      mayEdit={mayWrite && !u.deleted_at}
                      onEdit={() => setEditing(editing === u.id ? undefined : u.id)}
                      mayRemove={mayDelete && !u.deleted_at && u.id !== me.user.id}
                      onRemove={() =>
                        window.confirm(t('confirmRemove', u.username)) && void bulk('DELETE', '/users', u)
                      }
                    >
                      {mayWrite && u.deleted_at && (
                        <button
                          type="button"
                          aria-label={t('restoreOf', u.username)}
                          onClick={() => void bulk('PUT', '/restore-users', u)}
                        >
                          {t('restore')}
                        </button>
                      )}
                    </RowActions>
                    {editing === u.id && (
                      <UserForm
                        user={u}
                        roles={roles.data ?? []}
                        onSaved={() => {
                          setEditing(undefined);
                          users.reload();
                        }}
                      />
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {users.pager}
        </>
      )}
    </AdminPage>
  );
}

/** Creates a user, or with `user` changes one: details, roles, and a new password (a reset, optionally to be changed at the next sign-in). */
function UserForm({ user, roles, onSaved }: { user?: User; roles: Role[]; onSaved: () => void }) {
  const { t } = useI18n();
  const prefix = user ? `user-${user.id}` : 'new-user';
  const [username, setUsername] = useState('');
  const [displayName, setDisplayName] = useState(user?.display_name ?? '');
  const [email, setEmail] = useState(user?.email ?? '');
  const [password, setPassword] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const [mustChange, setMustChange] = useState(user?.need_password_change ?? true);
  const [directory, setDirectory] = useState(user?.active_directory ?? false);
  const [chosen, setChosen] = useState<string[]>(user?.roles ?? []);
  const save = useSave();
  const { problems } = save;

  const submit = save.submit(async () => {
    const secret = directory || !password ? {} : { password, password_confirmation: confirmation };
    // A directory user's password lives in the directory: there is none here to change.
    const need_password_change = mustChange && !directory;
    if (user) {
      const body: UserUpdate = {
        display_name: displayName,
        email: email.trim() || null,
        need_password_change,
        active_directory: directory,
        roles: chosen,
        ...secret,
      };
      await api<User>('PUT', `/user/${user.id}`, body);
    } else {
      const body: UserCreate = {
        username,
        display_name: displayName,
        need_password_change,
        active_directory: directory,
        roles: chosen,
        ...secret,
        ...(email.trim() ? { email: email.trim() } : {}),
      };
      await api<User>('POST', '/user', body);
      setUsername('');
      setDisplayName('');
      setEmail('');
      setChosen([]);
    }
    setPassword('');
    setConfirmation('');
    onSaved();
    return t('saved');
  });

  const options = roleOptions(roles, chosen);
  const label = user ? t('editOf', user.username) : t('newUser');
  return (
    <form className="card inline" onSubmit={submit} aria-label={label}>
      <h2>{label}</h2>
      {!user && (
        <Field id={`${prefix}-username`} label={t('username')} problem={problems.username}>
          <input
            id={`${prefix}-username`}
            required
            maxLength={128}
            autoComplete="off"
            value={username}
            onChange={(e) => setUsername(e.target.value)}
          />
        </Field>
      )}
      <Field id={`${prefix}-display`} label={t('displayName')} problem={problems.display_name}>
        <input
          id={`${prefix}-display`}
          maxLength={255}
          value={displayName}
          onChange={(e) => setDisplayName(e.target.value)}
        />
      </Field>
      <Field id={`${prefix}-email`} label={t('email')} problem={problems.email}>
        <input
          id={`${prefix}-email`}
          type="email"
          maxLength={320}
          value={email}
          onChange={(e) => setEmail(e.target.value)}
        />
      </Field>
      {!directory && (
        <>
          <Field
            id={`${prefix}-password`}
            label={user ? t('resetPassword') : t('password')}
            problem={problems.password}
          >
            <input
              id={`${prefix}-password`}
              type="password"
              autoComplete="new-password"
              required={!user}
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
          </Field>
          <Field id={`${prefix}-confirm`} label={t('passwordRepeat')} problem={problems.password_confirmation}>
            <input
              id={`${prefix}-confirm`}
              type="password"
              autoComplete="new-password"
              required={!!password}
              value={confirmation}
              onChange={(e) => setConfirmation(e.target.value)}
            />
          </Field>
        </>
      )}
      <label className="check">
        <input
          type="checkbox"
          checked={mustChange}
          onChange={(e) => setMustChange(e.target.checked)}
          disabled={directory}
        />
        {t('mustChangePassword')}
      </label>
      <label className="check">
        <input type="checkbox" checked={directory} onChange={(e) => setDirectory(e.target.checked)} />
        {t('directoryUser')}
      </label>
      {options.length > 0 && <CheckboxSet legend={t('roles')} options={options} value={chosen} onChange={setChosen} />}
      <button type="submit" className="primary" disabled={save.busy}>
        {user ? t('save') : t('create')}
      </button>
      {save.note && <p role="status">{save.note}</p>}
      {save.error && <LoadError error={save.error} />}
    </form>
  );
}
