import { useState } from 'react';
import { api } from '../../api';
import { Field, Loading } from '../../components';
import { useLoad } from '../../hooks';
import { useI18n } from '../../i18n';
import { can, useSession } from '../../session';
import type { BulkResult, Group, GroupCreate, Page, Role, User } from '../../types';
import { LoadError, splitList, usePagedList, useSave } from '../../editing';
import {
  AdminPage,
  CheckboxSet,
  DescribedByFields,
  roleOptions,
  RowActions,
  SaveOutcome,
  useDescribedBy,
} from './shared';

export function GroupsPage() {
  const { t } = useI18n();
  const { me } = useSession();
  const [editing, setEditing] = useState<string>();
  const [error, setError] = useState<Error>();
  const groups = usePagedList((paging) => api<Page<Group>>('GET', '/groups', undefined, paging), []);
  // Members and roles are chosen from lists the caller may not be allowed to read: then only what the group already has is offered.
  const users = useLoad(
    () =>
      can(me, 'administration.users', 'r')
        ? api<Page<User>>('GET', '/users', undefined, { limit: 1000 }).then((r) => r.items)
        : Promise.resolve([]),
    [],
  );
  const roles = useLoad(
    () =>
      can(me, 'administration.roles', 'r')
        ? api<Page<Role>>('GET', '/roles', undefined, { limit: 1000 }).then((r) => r.items)
        : Promise.resolve([]),
    [],
  );
  const mayWrite = can(me, 'administration.groups', 'w');
  const mayDelete = can(me, 'administration.groups', 'd');

  const remove = async (group: Group) => {
    if (!window.confirm(t('confirmRemove', group.name))) return;
    setError(undefined);
    try {
      const res = await api<BulkResult>('DELETE', '/groups', { ids: [group.id] });
      const failed = res.results.find((r) => r.status !== 'deleted');
      if (failed) setError(new Error(failed.message ?? failed.status));
      groups.reload();
    } catch (err) {
      setError(err as Error);
    }
  };

  const choices = { users: users.data ?? [], roles: roles.data ?? [] };
  return (
    <AdminPage id="groups-title" title={t('adminGroups')}>
      {mayWrite && <GroupForm {...choices} onSaved={groups.reload} />}
      {error && <LoadError error={error} />}
      {groups.error && <LoadError error={groups.error} />}
      {!groups.data ? (
        !groups.error && <Loading />
      ) : groups.data.total === 0 ? (
        <p>{t('none')}</p>
      ) : (
        <>
          <table className="grid">
            <thead>
              <tr>
                <th scope="col">{t('groupName')}</th>
                <th scope="col">{t('members')}</th>
                <th scope="col">{t('groupRoles')}</th>
                <th scope="col">{t('coverage')}</th>
                <th scope="col">{t('actions')}</th>
              </tr>
            </thead>
            <tbody>
              {groups.data.items.map((g) => (
                <tr key={g.id}>
                  <td>
                    {g.name}
                    {g.description && <div className="muted">{g.description}</div>}
                  </td>
                  <td>
                    {g.users.map((u) => u.username).join(', ')}
                    {g.domain_group.length > 0 && (
                      <ul className="plain muted mono">
                        {g.domain_group.map((d) => (
                          <li key={d}>{d}</li>
                        ))}
                      </ul>
                    )}
                  </td>
                  <td>{g.roles.join(', ')}</td>
                  <td>
                    {g.all_projects
                      ? t('allProjects')
                      : [...g.project_tags.map((tag) => `#${tag}`), ...g.project_codes].join(', ')}
                  </td>
                  <td>
                    <RowActions
                      name={g.name}
                      mayEdit={mayWrite}
                      onEdit={() => setEditing(editing === g.id ? undefined : g.id)}
                      mayRemove={mayDelete}
                      onRemove={() => void remove(g)}
                    />
                    {editing === g.id && (
                      <GroupForm
                        group={g}
                        {...choices}
                        onSaved={() => {
                          setEditing(undefined);
                          groups.reload();
                        }}
                      />
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {groups.pager}
        </>
      )}
    </AdminPage>
  );
}

/** Creates a user group, or with `group` changes one: members (users, directory groups), roles, and the projects it covers. */
function GroupForm({
  group,
  users,
  roles,
  onSaved,
}: {
  group?: Group;
  users: User[];
  roles: Role[];
  onSaved: () => void;
}) {
  const { t } = useI18n();
  const prefix = group ? `group-${group.id}` : 'new-group';
  const [name, setName] = useState(group?.name ?? '');
  const [members, setMembers] = useState<string[]>(group?.users.map((u) => u.id) ?? []);
  const [chosenRoles, setChosenRoles] = useState<string[]>(group?.roles ?? []);
  const [tags, setTags] = useState((group?.project_tags ?? []).join(', '));
  const [codes, setCodes] = useState((group?.project_codes ?? []).join(', '));
  const described = useDescribedBy(group);
  const save = useSave();
  const { problems } = save;

  const submit = save.submit(async () => {
    const body: GroupCreate = {
      name,
      ...described.body,
      user_ids: members,
      roles: chosenRoles,
      project_tags: splitList(tags),
      project_codes: splitList(codes),
    };
    if (group) await api<Group>('PUT', `/group/${group.id}`, body);
    else {
      await api<Group>('POST', '/group', body);
      setName('');
      described.clear();
      setMembers([]);
      setChosenRoles([]);
      setTags('');
      setCodes('');
    }
    onSaved();
    return t('saved');
  });

  const userOptions = [
    ...users.filter((u) => !u.deleted_at).map((u) => ({ value: u.id, label: u.username })),
    ...(group?.users ?? [])
      .filter((m) => !users.some((u) => u.id === m.id))
      .map((m) => ({ value: m.id, label: m.username })),
  ];
  const offeredRoles = roleOptions(roles, chosenRoles);
  const label = group ? t('editOf', group.name) : t('newGroup');
  return (
    <form className="card inline" onSubmit={submit} aria-label={label}>
      <h2>{label}</h2>
      <Field id={`${prefix}-name`} label={t('groupName')} problem={problems.name}>
        <input id={`${prefix}-name`} required maxLength={255} value={name} onChange={(e) => setName(e.target.value)} />
      </Field>
      <DescribedByFields prefix={prefix} problems={problems} domainLabel={t('groupDomainGroups')} fields={described}>
        <Field id={`${prefix}-tags`} label={t('projectTags')} problem={problems.project_tags}>
          <input id={`${prefix}-tags`} value={tags} onChange={(e) => setTags(e.target.value)} />
        </Field>
        <Field id={`${prefix}-codes`} label={t('projectCodes')} problem={problems.project_codes}>
          <input id={`${prefix}-codes`} value={codes} onChange={(e) => setCodes(e.target.value)} />
        </Field>
      </DescribedByFields>
      {userOptions.length > 0 ? (
        <CheckboxSet legend={t('members')} options={userOptions} value={members} onChange={setMembers} />
      ) : (
        <p className="hint">{t('noUsersRight')}</p>
      )}
      {offeredRoles.length > 0 && (
        <CheckboxSet legend={t('groupRoles')} options={offeredRoles} value={chosenRoles} onChange={setChosenRoles} />
      )}
      <SaveOutcome save={save} creating={!group} />
    </form>
  );
}
