import './admin-messages';
import { useEffect } from 'react';
import { useI18n } from '../../i18n';
import { navigate } from '../../router';
import { can, useSession } from '../../session';
import { DirectoryPage } from './Directory';
import { GroupsPage } from './Groups';
import { RolesPage } from './Roles';
import { AdminPage, SECTIONS } from './shared';
import { SsoPage } from './Sso';
import { TokensPage } from './Tokens';
import { UsersPage } from './Users';

/** The pages under /admin; /admin itself opens the first section the user may read. */
export function AdminRoutes({ path }: { path: string }) {
  switch (path) {
    case '/admin/users':
      return <UsersPage />;
    case '/admin/roles':
      return <RolesPage />;
    case '/admin/groups':
      return <GroupsPage />;
    case '/admin/tokens':
      return <TokensPage />;
    case '/admin/directory':
      return <DirectoryPage />;
    case '/admin/sso':
      return <SsoPage />;
    default:
      return <FirstSection />;
  }
}

function FirstSection() {
  const { t } = useI18n();
  const { me } = useSession();
  // Tokens need no right, so a section always matches and the fallback is never taken.
  const first = SECTIONS.find((s) => !s.needs || can(me, s.needs, 'r')) ?? SECTIONS[0];
  useEffect(() => navigate(first.path, true), [first.path]);
  return (
    <AdminPage id="admin-title" title={t('navAdmin')}>
      {null}
    </AdminPage>
  );
}
