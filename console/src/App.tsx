import { useCallback, useEffect, useRef, useState } from 'react';
import { api, ApiError, setUnauthenticatedHandler } from './api';
import { Lang, useI18n } from './i18n';
import { Link, useLocation } from './router';
import { SessionContext, SessionState } from './session';
import { Loading } from './components';
import { SignIn, PasswordChangeForm } from './pages/SignIn';
import { Dashboard } from './pages/Dashboard';
import { IssuesPage } from './pages/Issues';
import { IssueDetail } from './pages/IssueDetail';
import { ProjectsPage, ProjectPage } from './pages/Projects';
import { ReportsPage } from './pages/Reports';
import { AdminRoutes } from './pages/admin';
import { QualityGatesPage } from './pages/policy/QualityGates';
import { SecurityRulesPage } from './pages/policy/SecurityRules';
import { PoliciesPage } from './pages/policy/Policies';
import { NotifiersPage } from './pages/notifications/Notifiers';
import { EventsPage } from './pages/notifications/Events';
import { ErrorsLogPage } from './pages/notifications/ErrorsLog';
import type { IssueStatus, Me } from './types';

type Phase = { kind: 'checking' } | { kind: 'signed-out'; passwordChanged?: boolean } | { kind: 'password' } | { kind: 'in'; me: Me; statuses: IssueStatus[] };

export function App() {
  const [phase, setPhase] = useState<Phase>({ kind: 'checking' });

  const enter = useCallback(async () => {
    try {
      // Asked at once: every page waits for both. A role without issue-status rights still gets a
      // console; status names then show as ids.
      const [me, statuses] = await Promise.all([
        api<Me>('GET', '/auth/me'),
        api<{ items: IssueStatus[] }>('GET', '/issues/statuses').then((r) => r.items, () => []),
      ]);
      if (me.user.need_password_change) setPhase({ kind: 'password' });
      else setPhase({ kind: 'in', me, statuses });
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) setPhase({ kind: 'signed-out' });
      else throw err;
    }
  }, []);

  useEffect(() => {
    setUnauthenticatedHandler(() => setPhase({ kind: 'signed-out' }));
    void enter();
  }, [enter]);

  const signOut = useCallback(() => {
    void api('DELETE', '/auth/session').finally(() => setPhase({ kind: 'signed-out' }));
  }, []);

  if (phase.kind === 'checking') return <Loading />;
  if (phase.kind === 'signed-out') return <Frame><SignIn passwordChanged={phase.passwordChanged} onSignedIn={(needsChange) => (needsChange ? setPhase({ kind: 'password' }) : void enter())} /></Frame>;
  if (phase.kind === 'password') return (
    // A password change ends every session of the user (identity revokes them): sign in again.
    <Frame><PasswordChangeForm onChanged={() => setPhase({ kind: 'signed-out', passwordChanged: true })} /></Frame>
  );
  const session: SessionState = { me: phase.me, statuses: phase.statuses, signOut };
  return (
    <SessionContext.Provider value={session}>
      <Frame signedIn={session}>
        <Routes />
      </Frame>
    </SessionContext.Provider>
  );
}

function Routes() {
  const { path } = useLocation();
  const issue = /^\/issues\/([0-9a-f-]{36})$/.exec(path);
  if (issue) return <IssueDetail id={issue[1]} />;
  if (path === '/issues') return <IssuesPage />;
  const project = /^\/projects\/([^/]+)$/.exec(path);
  if (project) return <ProjectPage code={decodeURIComponent(project[1])} />;
  if (path === '/projects') return <ProjectsPage />;
  if (path === '/reports') return <ReportsPage />;
  if (path === '/policy') return <QualityGatesPage />;
  if (path === '/policy/rules') return <SecurityRulesPage />;
  if (path === '/policy/policies') return <PoliciesPage />;
  if (path === '/notifications') return <NotifiersPage />;
  if (path === '/notifications/events') return <EventsPage />;
  if (path === '/notifications/errors') return <ErrorsLogPage />;
  if (path === '/admin' || path.startsWith('/admin/')) return <AdminRoutes path={path} />;
  return <Dashboard />;
}

/** Header, navigation and the language switch around every page; focus moves to the page's heading on navigation. */
function Frame({ children, signedIn }: { children: React.ReactNode; signedIn?: SessionState }) {
  const { t, lang, setLang } = useI18n();
  const { path } = useLocation();
  const main = useRef<HTMLElement>(null);
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    main.current?.querySelector('h1')?.focus();
  }, [path]);
  const nav: [string, string][] = [['/', t('navDashboard')], ['/issues', t('navIssues')], ['/projects', t('navProjects')], ['/reports', t('navReports')], ['/policy', t('navPolicy')], ['/notifications', t('navNotifications')], ['/admin', t('navAdmin')]];
  return (
    <>
      <a className="skip" href="#main">{t('skip')}</a>
      <header className="top">
        <span className="brand">{t('appName')}</span>
        {signedIn && (
          <nav aria-label={t('mainNav')}>
            {nav.map(([to, label]) => (
              <Link key={to} to={to} ariaCurrent={to === '/' ? path === '/' : path.startsWith(to)}>{label}</Link>
            ))}
          </nav>
        )}
        <div className="top-end">
          <label htmlFor="lang">{t('language')}</label>
          <select id="lang" value={lang} onChange={(e) => setLang(e.target.value as Lang)}>
            <option value="en">English</option>
            <option value="ru">Русский</option>
          </select>
          {signedIn && (
            <>
              <span className="who">{t('signedInAs', signedIn.me.user.username)}</span>
              <button type="button" onClick={signedIn.signOut}>{t('signOut')}</button>
            </>
          )}
        </div>
      </header>
      <main id="main" ref={main}>{children}</main>
    </>
  );
}
