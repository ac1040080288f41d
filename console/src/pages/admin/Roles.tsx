import { useState } from 'react';
import { api } from '../../api';
import { Field, Loading } from '../../components';
import { useLoad } from '../../hooks';
import { useI18n } from '../../i18n';
import { can, useSession } from '../../session';
import type { BulkResult, Page, PermissionCatalogue, Role, RoleCreate, RoleUpdate } from '../../types';
import { LoadError, splitList, usePagedList, useSave } from '../../editing';
import { AdminPage, DescribedByFields, RowActions, SaveOutcome, useDescribedBy, usePermissionName } from './shared';

const LETTERS = ['r', 'w', 'x', 'd'] as const;
type Letter = (typeof LETTERS)[number];
type Grants = Record<string, Letter[]>;
const PROJECT_SCOPE = 'project:';

export function RolesPage() {
  const { t } = useI18n();
  const { me } = useSession();
  const permissionName = usePermissionName();
  const [editing, setEditing] = useState<string>();
  const [error, setError] = useState<Error>();
  const [detach, setDetach] = useState(false);
  const roles = usePagedList((paging) => api<Page<Role>>('GET', '/roles', undefined, paging), []);
  const catalogue = useLoad(() => api<PermissionCatalogue>('GET', '/permissions'), []);
  const mayWrite = can(me, 'administration.roles', 'w');
  const mayDelete = can(me, 'administration.roles', 'd');
  const loadError = roles.error ?? catalogue.error;

  const remove = async (role: Role) => {
    if (!window.confirm(t('confirmRemove', role.role_name))) return;
    setError(undefined);
    try {
      const res = await api<BulkResult>('DELETE', '/roles', { ids: [role.role_code], detach });
      const failed = res.results.find((r) => r.status !== 'deleted');
      if (failed) setError(new Error(failed.message ?? failed.status));
      roles.reload();
    } catch (err) {
      setError(err as Error);
    }
  };

  const keys = catalogue.data?.keys ?? [];
  const summary = (grants: Grants) =>
    Object.entries(grants)
      .filter(([, letters]) => letters.length > 0)
      .map(
        ([key, letters]) =>
          `${permissionName(key, keys.find((k) => k.key === key)?.description)}: ${letters.map((l) => t(`letter_${l}`)).join(', ')}`,
      );

  return (
    <AdminPage id="roles-title" title={t('adminRoles')}>
      {mayWrite && catalogue.data && <RoleForm catalogue={catalogue.data} onSaved={roles.reload} />}
      {error && <LoadError error={error} />}
      {loadError && <LoadError error={loadError} />}
      {mayDelete && (
        <label className="check">
          <input type="checkbox" checked={detach} onChange={(e) => setDetach(e.target.checked)} />
          {t('roleDetach')}
        </label>
      )}
      {!roles.data ? (
        !roles.error && <Loading />
      ) : (
        <>
          <table className="grid">
            <thead>
              <tr>
                <th scope="col">{t('roleName')}</th>
                <th scope="col">{t('permissions')}</th>
                <th scope="col">{t('usersCount')}</th>
                <th scope="col">{t('actions')}</th>
              </tr>
            </thead>
            <tbody>
              {roles.data.items.map((r) => (
                <tr key={r.id}>
                  <td>
                    {r.role_name} <span className="muted mono">{r.role_code}</span>
                    {r.builtin && <span className="muted"> · {t('builtin')}</span>}
                    {r.description && <div className="muted">{r.description}</div>}
                  </td>
                  <td>
                    <ul className="plain">
                      {summary(r.roles).map((line) => (
                        <li key={line}>{line}</li>
                      ))}
                    </ul>
                    {r.system_scopes.length > 0 && (
                      <div className="muted">
                        {t('projects')}: {r.system_scopes.map((s) => s.slice(PROJECT_SCOPE.length)).join(', ')}
                      </div>
                    )}
                  </td>
                  <td>{r.users_count}</td>
                  <td>
                    {!r.builtin && (
                      <RowActions
                        name={r.role_name}
                        mayEdit={mayWrite}
                        onEdit={() => setEditing(editing === r.id ? undefined : r.id)}
                        mayRemove={mayDelete}
                        onRemove={() => void remove(r)}
                      />
                    )}
                    {editing === r.id && catalogue.data && (
                      <RoleForm
                        role={r}
                        catalogue={catalogue.data}
                        onSaved={() => {
                          setEditing(undefined);
                          roles.reload();
                        }}
                      />
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {roles.pager}
        </>
      )}
    </AdminPage>
  );
}

/** Creates a role, or with `role` changes one: a grid of permission keys by letters, and the projects it is limited to. */
function RoleForm({ role, catalogue, onSaved }: { role?: Role; catalogue: PermissionCatalogue; onSaved: () => void }) {
  const { t } = useI18n();
  const permissionName = usePermissionName();
  const prefix = role ? `role-${role.id}` : 'new-role';
  const [code, setCode] = useState('');
  const [name, setName] = useState(role?.role_name ?? '');
  const described = useDescribedBy(role);
  const [scopes, setScopes] = useState(
    (role?.system_scopes ?? []).map((s) => s.slice(PROJECT_SCOPE.length)).join(', '),
  );
  const [grants, setGrants] = useState<Grants>(role?.roles ?? {});
  const save = useSave();
  const { problems } = save;

  const toggle = (key: string, letter: Letter, on: boolean) => {
    const letters = grants[key] ?? [];
    setGrants({
      ...grants,
      [key]: on ? LETTERS.filter((l) => l === letter || letters.includes(l)) : letters.filter((l) => l !== letter),
    });
  };

  const submit = save.submit(async () => {
    const roles = Object.fromEntries(Object.entries(grants).filter(([, letters]) => letters.length > 0));
    const fields = {
      role_name: name,
      ...described.body,
      roles,
      system_scopes: splitList(scopes).map((c) => `${PROJECT_SCOPE}${c}`),
    };
    if (role) await api<Role>('PUT', `/role/${encodeURIComponent(role.role_code)}`, fields satisfies RoleUpdate);
    else {
      await api<Role>('POST', '/role', { role_code: code, ...fields } satisfies RoleCreate);
      setCode('');
      setName('');
      described.clear();
      setScopes('');
      setGrants({});
    }
    onSaved();
    return t('saved');
  });

  const label = role ? t('editOf', role.role_name) : t('newRole');
  return (
    <form className="card" onSubmit={submit} aria-label={label}>
      <h2>{label}</h2>
      <div className="inline">
        {!role && (
          <Field id={`${prefix}-code`} label={t('roleCode')} problem={problems.role_code}>
            <input
              id={`${prefix}-code`}
              required
              maxLength={64}
              pattern="[A-Za-z0-9_.\-]+"
              value={code}
              onChange={(e) => setCode(e.target.value)}
            />
          </Field>
        )}
        <Field id={`${prefix}-name`} label={t('roleName')} problem={problems.role_name}>
          <input
            id={`${prefix}-name`}
            required
            maxLength={255}
            value={name}
            onChange={(e) => setName(e.target.value)}
          />
        </Field>
        <DescribedByFields prefix={prefix} problems={problems} domainLabel={t('roleDomainGroups')} fields={described}>
          <Field id={`${prefix}-scopes`} label={t('projectScopes')} problem={problems.system_scopes}>
            <input id={`${prefix}-scopes`} value={scopes} onChange={(e) => setScopes(e.target.value)} />
          </Field>
        </DescribedByFields>
      </div>
      <table className="grid matrix">
        <caption>{t('permissions')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('permission')}</th>
            {LETTERS.map((l) => (
              <th scope="col" key={l}>
                {t(`letter_${l}`)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {catalogue.keys.map((k) => {
            const keyName = permissionName(k.key, k.description);
            return (
              <tr key={k.key}>
                <th scope="row">
                  {keyName} <span className="muted mono">{k.key}</span>
                </th>
                {LETTERS.map((l) => (
                  <td key={l}>
                    <input
                      type="checkbox"
                      aria-label={t('grant', keyName, t(`letter_${l}`))}
                      checked={grants[k.key]?.includes(l) ?? false}
                      onChange={(e) => toggle(k.key, l, e.target.checked)}
                    />
                  </td>
                ))}
              </tr>
            );
          })}
        </tbody>
      </table>
      {problems.roles && (
        <p className="problem" role="alert">
          {problems.roles}
        </p>
      )}
      <SaveOutcome save={save} creating={!role} />
    </form>
  );
}
