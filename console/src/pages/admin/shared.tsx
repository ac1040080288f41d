import { ReactNode } from 'react';
import { MessageKey, useI18n } from '../../i18n';
import { Link, useLocation } from '../../router';
import { useSession } from '../../session';
import { en as adminMessages } from '../../messages/admin';
import type { Me } from '../../types';

type Letter = 'r' | 'w' | 'x' | 'd';

/** Whether the signed-in user holds a permission key with a letter (the pages hide what the API would refuse). */
export const can = (me: Me, key: string, letter: Letter) => me.permissions[key]?.includes(letter) ?? false;

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
          <Link key={s.path} to={s.path} ariaCurrent={path === s.path}>{t(s.label)}</Link>
        ))}
      </nav>
      <h1 id={id} tabIndex={-1}>{title}</h1>
      {children}
    </section>
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
export function CheckboxSet({ legend, options, value, onChange }: {
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
          <input type="checkbox" checked={value.includes(o.value)} onChange={(e) => onChange(e.target.checked ? [...value, o.value] : value.filter((v) => v !== o.value))} />
          {o.label}
        </label>
      ))}
    </fieldset>
  );
}
