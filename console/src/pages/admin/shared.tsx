import { ReactNode, useState } from 'react';
import { api } from '../../api';
import { Field, Loading } from '../../components';
import { LoadError, Save, splitList } from '../../editing';
import { useLoad } from '../../hooks';
import { formatDate, MessageKey, useI18n } from '../../i18n';
import { Link, useLocation } from '../../router';
import { can, useSession } from '../../session';
import { en as adminMessages } from '../../messages/admin';
import type { Role } from '../../types';

/** The administration sections, each with the permission that lets one read it (API tokens: every user has their own). */
export const SECTIONS: { path: string; label: MessageKey; needs?: string }[] = [
  { path: '/admin/users', label: 'adminUsers', needs: 'administration.users' },
  { path: '/admin/roles', label: 'adminRoles', needs: 'administration.roles' },
  { path: '/admin/groups', label: 'adminGroups', needs: 'administration.groups' },
  { path: '/admin/tokens', label: 'adminTokens' },
  { path: '/admin/directory', label: 'adminDirectory', needs: 'settings.authentication' },
  { path: '/admin/sso', label: 'adminSso', needs: 'settings.authentication' },
];

/** An administration page: its heading and the sub-navigation of the sections the user may read. */
export function AdminPage({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  const { t } = useI18n();
  const { me } = useSession();
  const { path } = useLocation();
  return (
    <section aria-labelledby={id}>
      <nav aria-label={t('adminNav')} className="subnav">
        {SECTIONS.filter((s) => !s.needs || can(me, s.needs, 'r')).map((s) => (
          <Link key={s.path} to={s.path} ariaCurrent={path === s.path}>
            {t(s.label)}
          </Link>
        ))}
      </nav>
      <h1 id={id} tabIndex={-1}>
        {title}
      </h1>
      {children}
    </section>
  );
}

/**
 * A settings page (directory, single sign-on): the stored settings, whether they are complete and
 * when they were saved, then the page's form for them, given a reload for after a save.
 */
export function SettingsPage<T extends { complete: boolean; updated_at: string | null }>({
  id,
  title,
  path,
  complete,
  incomplete,
  children,
}: {
  id: string;
  title: string;
  path: string;
  complete: string;
  incomplete: string;
  children: (settings: T, reload: () => void) => ReactNode;
}) {
  const { lang } = useI18n();
  const settings = useLoad(() => api<T>('GET', path), [path]);
  return (
    <AdminPage id={id} title={title}>
      {settings.error && <LoadError error={settings.error} />}
      {!settings.data ? (
        !settings.error && <Loading />
      ) : (
        <>
          <p className="hint">
            {settings.data.complete ? complete : incomplete}
            {settings.data.updated_at && ` · ${formatDate(lang, settings.data.updated_at)}`}
          </p>
          {children(settings.data, settings.reload)}
        </>
      )}
    </AdminPage>
  );
}

/** A permission key's readable name in the reader's language; a key the console does not know yet shows the catalogue's description. */
export function usePermissionName(): (key: string, description?: string) => string {
  const { t } = useI18n();
  return (key, description) => {
    const name = `perm_${key}`;
    return name in adminMessages ? t(name as MessageKey) : (description ?? key);
  };
}

export const LINES = /\r?\n/;

/** A set of checkboxes in a fieldset: the legend names the set, each box its value. */
export function CheckboxSet({
  legend,
  options,
  value,
  onChange,
}: {
  legend: string;
  options: { value: string; label: string }[];
  value: string[];
  onChange: (next: string[]) => void;
}) {
  return (
    <fieldset className="checkset">
      <legend>{legend}</legend>
      {options.map((o) => (
        <label key={o.value}>
          <input
            type="checkbox"
            checked={value.includes(o.value)}
            onChange={(e) => onChange(e.target.checked ? [...value, o.value] : value.filter((v) => v !== o.value))}
          />
          {o.label}
        </label>
      ))}
    </fieldset>
  );
}

/** The roles a form offers: the readable list, plus any already chosen that the list does not show. */
export const roleOptions = (roles: Role[], chosen: string[]) => [
  ...roles.map((r) => ({ value: r.role_code, label: `${r.role_name} (${r.role_code})` })),
  ...chosen.filter((c) => !roles.some((r) => r.role_code === c)).map((c) => ({ value: c, label: c })),
];

/** A role's or a group's description and directory groups as its form edits them (one group a line), and as the API takes them. */
export function useDescribedBy(record?: { description: string; domain_group: string[] }) {
  const [description, setDescription] = useState(record?.description ?? '');
  const [domainGroups, setDomainGroups] = useState((record?.domain_group ?? []).join('\n'));
  return {
    description,
    setDescription,
    domainGroups,
    setDomainGroups,
    body: { description, domain_group: splitList(domainGroups, LINES) },
    clear: () => {
      setDescription('');
      setDomainGroups('');
    },
  };
}

/** What a role's or a group's form says of itself beside its name: a description and the directory groups that confer it. */
export function DescribedByFields({
  prefix,
  problems,
  domainLabel,
  fields,
  children,
}: {
  prefix: string;
  problems: Record<string, string>;
  domainLabel: string;
  fields: ReturnType<typeof useDescribedBy>;
  /** Fields between the description and the directory groups. */
  children: ReactNode;
}) {
  const { t } = useI18n();
  return (
    <>
      <Field id={`${prefix}-description`} label={t('description')} problem={problems.description}>
        <input
          id={`${prefix}-description`}
          maxLength={4000}
          value={fields.description}
          onChange={(e) => fields.setDescription(e.target.value)}
        />
      </Field>
      {children}
      <Field id={`${prefix}-domain`} label={domainLabel} problem={problems.domain_group}>
        <textarea
          id={`${prefix}-domain`}
          rows={2}
          value={fields.domainGroups}
          onChange={(e) => fields.setDomainGroups(e.target.value)}
        />
      </Field>
    </>
  );
}

/** A create-or-change form's submit (`create` while it makes a new record), then what its last save said. */
export function SaveOutcome({ save, creating }: { save: Save; creating: boolean }) {
  const { t } = useI18n();
  return (
    <>
      <button type="submit" className="primary" disabled={save.busy}>
        {creating ? t('create') : t('save')}
      </button>
      {save.note && <p role="status">{save.note}</p>}
      {save.error && <LoadError error={save.error} />}
    </>
  );
}

/** A list row's edit toggle and remove button, each shown only when allowed, then any further buttons. */
export function RowActions({
  name,
  mayEdit,
  onEdit,
  mayRemove,
  onRemove,
  children,
}: {
  name: string;
  mayEdit: boolean;
  onEdit: () => void;
  mayRemove: boolean;
  onRemove: () => void;
  children?: ReactNode;
}) {
  const { t } = useI18n();
  return (
    <div className="actions">
      {mayEdit && (
        <button type="button" aria-label={t('editOf', name)} onClick={onEdit}>
          {t('edit')}
        </button>
      )}
      {mayRemove && (
        <button type="button" aria-label={t('removeOf', name)} onClick={onRemove}>
          {t('remove')}
        </button>
      )}
      {children}
    </div>
  );
}
