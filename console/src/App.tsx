import { ComponentType, lazy, ReactNode, Suspense, useCallback, useEffect, useRef, useState } from 'react';
import { api, ApiError, hasSession, setUnauthenticatedHandler } from './api';
import { Lang, useI18n } from './i18n';
import { Link, useLocation } from './router';
import { SessionContext, SessionState } from './session';
import { Loading } from './components';
import type { IssueStatus, Me } from './types';

type Phase =
  | { kind: 'checking' }
  | { kind: 'signed-out'; passwordChanged?: boolean }
  | { kind: 'password' }
  | { kind: 'in'; me: Me; statuses: IssueStatus[] };

export function App() {
  const [phase, setPhase] = useState<Phase>({ kind: 'checking' });

  const enter = useCallback(async () => {
    const signedOut = async () => {
      await loadChunk(pages.signIn).catch(() => undefined);
      setPhase({ kind: 'signed-out' });
    };
    // No session cookie: every request would answer 401, so none is sent before sign-in.
    if (!hasSession()) return signedOut();
    try {
      // Asked at once: every page waits for both. A role without issue-status rights still gets a
      // console; status names then show as ids.
      const [me, statuses] = await Promise.all([
        api<Me>('GET', '/auth/me'),
        api<{ items: IssueStatus[] }>('GET', '/issues/statuses').then(
          (r) => r.items,
          () => [],
        ),
        // The page's own chunk (and what it asks first) meanwhile, so it shows as soon as the answers are in.
        start(route(window.location.pathname)),
      ]);
      if (me.user.need_password_change) setPhase({ kind: 'password' });
      else setPhase({ kind: 'in', me, statuses });
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 401)) throw err;
      await signedOut();
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
  if (phase.kind === 'signed-out')
    return (
      <Frame>
        <Suspense fallback={<Loading />}>
          <SignIn
            passwordChanged={phase.passwordChanged}
            onSignedIn={(needsChange) => (needsChange ? setPhase({ kind: 'password' }) : void enter())}
          />
        </Suspense>
      </Frame>
    );
  if (phase.kind === 'password')
    return (
      // A password change ends every session of the user (identity revokes them): sign in again.
      <Frame>
        <Suspense fallback={<Loading />}>
          <PasswordChangeForm onChanged={() => setPhase({ kind: 'signed-out', passwordChanged: true })} />
        </Suspense>
      </Frame>
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

// Each page is a chunk of its own, fetched when first shown: the issues page loads React, the shared
// pieces and itself, not the other pages' code.
const pages = {
  signIn: () => import('./pages/SignIn'),
  dashboard: () => import('./pages/Dashboard'),
  issues: () => import('./pages/Issues'),
  issueDetail: () => import('./pages/IssueDetail'),
  projects: () => import('./pages/Projects'),
  reports: () => import('./pages/Reports'),
  components: () => import('./pages/components/ComponentsPage'),
  gates: () => import('./pages/policy/QualityGates'),
  rules: () => import('./pages/policy/SecurityRules'),
  policies: () => import('./pages/policy/Policies'),
  notifiers: () => import('./pages/notifications/Notifiers'),
  events: () => import('./pages/notifications/Events'),
  errors: () => import('./pages/notifications/ErrorsLog'),
  admin: () => import('./pages/admin'),
};
/** The chunks loaded so far, by their loader. */
const loaded = new Map<() => Promise<unknown>, unknown>();
const loadChunk = <M,>(load: () => Promise<M>): Promise<M> =>
  load().then((m) => {
    loaded.set(load, m);
    return m;
  });

/**
 * A page component exported by a chunk, loaded when first rendered. A chunk already loaded (the
 * start loads the first page's while it asks who is signed in) is handed over at once, through a
 * thenable that calls back synchronously: React.lazy then renders the page in the same pass instead
 * of suspending, as showing the fallback would hold the page back for at least 300 ms.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- React.lazy's own bound: a page of any props
const lazyPage = <M extends Record<K, ComponentType<any>>, K extends keyof M>(load: () => Promise<M>, name: K) =>
  lazy(() => {
    const chunk = loaded.get(load) as M | undefined;
    if (!chunk) return loadChunk(load).then((m) => ({ default: m[name] }));
    const now = { then: (resolve: (page: { default: M[K] }) => void) => resolve({ default: chunk[name] }) };
    return now as unknown as Promise<{ default: M[K] }>;
  });
const SignIn = lazyPage(pages.signIn, 'SignIn');
const PasswordChangeForm = lazyPage(pages.signIn, 'PasswordChangeForm');
const Dashboard = lazyPage(pages.dashboard, 'Dashboard');
const IssuesPage = lazyPage(pages.issues, 'IssuesPage');
const IssueDetail = lazyPage(pages.issueDetail, 'IssueDetail');
const ProjectsPage = lazyPage(pages.projects, 'ProjectsPage');
const ProjectPage = lazyPage(pages.projects, 'ProjectPage');
const ReportsPage = lazyPage(pages.reports, 'ReportsPage');
const ComponentsPage = lazyPage(pages.components, 'ComponentsPage');
const QualityGatesPage = lazyPage(pages.gates, 'QualityGatesPage');
const SecurityRulesPage = lazyPage(pages.rules, 'SecurityRulesPage');
const PoliciesPage = lazyPage(pages.policies, 'PoliciesPage');
const NotifiersPage = lazyPage(pages.notifiers, 'NotifiersPage');
const EventsPage = lazyPage(pages.events, 'EventsPage');
const ErrorsLogPage = lazyPage(pages.errors, 'ErrorsLogPage');
const AdminRoutes = lazyPage(pages.admin, 'AdminRoutes');

interface Route {
  page: ReactNode;
  chunk: () => Promise<unknown>;
  /** What the page asks first, asked by the start while it waits for the session. */
  early?: () => Promise<void>;
}

/** The start's part of a page: its chunk loaded and its first request sent before the session is known. */
const start = (r: Route) => (r.early?.() ?? loadChunk(r.chunk)).catch(() => undefined);

/** The page of a path, with the chunk it needs: Routes renders it, and the start loads its chunk while it asks who is signed in. */
function route(path: string): Route {
  const issue = /^\/issues\/([0-9a-f-]{36})$/.exec(path);
  if (issue) return { chunk: pages.issueDetail, page: <IssueDetail id={issue[1]} /> };
  if (path === '/issues') {
    const early = () =>
      loadChunk(pages.issues).then((m) => m.prefetchIssues(new URLSearchParams(window.location.search)));
    return { chunk: pages.issues, page: <IssuesPage />, early };
  }
  if (path === '/fix-first') return { chunk: pages.issues, page: <IssuesPage key="fix-first" fixFirst /> };
  const project = /^\/projects\/([^/]+)$/.exec(path);
  if (project) return { chunk: pages.projects, page: <ProjectPage code={decodeURIComponent(project[1])} /> };
  if (path === '/projects') return { chunk: pages.projects, page: <ProjectsPage /> };
  if (path === '/components') return { chunk: pages.components, page: <ComponentsPage /> };
  if (path === '/reports') return { chunk: pages.reports, page: <ReportsPage /> };
  if (path === '/policy') return { chunk: pages.gates, page: <QualityGatesPage /> };
  if (path === '/policy/rules') return { chunk: pages.rules, page: <SecurityRulesPage /> };
  if (path === '/policy/policies') return { chunk: pages.policies, page: <PoliciesPage /> };
  if (path === '/notifications') return { chunk: pages.notifiers, page: <NotifiersPage /> };
  if (path === '/notifications/events') return { chunk: pages.events, page: <EventsPage /> };
  if (path === '/notifications/errors') return { chunk: pages.errors, page: <ErrorsLogPage /> };
  if (path === '/admin' || path.startsWith('/admin/')) return { chunk: pages.admin, page: <AdminRoutes path={path} /> };
  return { chunk: pages.dashboard, page: <Dashboard /> };
}

function Routes() {
  const { path } = useLocation();
  return (
    <Suspense fallback={<Loading />}>
      {route(path).page}
      <HeadingFocus path={path} />
    </Suspense>
  );
}

/** After a navigation (not the first page), focus moves to the new page's heading, once its chunk has loaded and it shows. */
function HeadingFocus({ path }: { path: string }) {
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    document.querySelector<HTMLElement>('main h1')?.focus();
  }, [path]);
  return null;
}

/** Header, navigation and the language switch around every page. */
function Frame({ children, signedIn }: { children: ReactNode; signedIn?: SessionState }) {
  const { t, lang, setLang } = useI18n();
  const { path } = useLocation();
  const nav: [string, string][] = [
    ['/', t('navDashboard')],
    ['/issues', t('navIssues')],
    ['/fix-first', t('navFixFirst')],
    ['/projects', t('navProjects')],
    ['/components', t('navComponents')],
    ['/reports', t('navReports')],
    ['/policy', t('navPolicy')],
    ['/notifications', t('navNotifications')],
    ['/admin', t('navAdmin')],
  ];
  return (
    <>
      <a className="skip" href="#main">
        {t('skip')}
      </a>
      <header className="top">
        <span className="brand">{t('appName')}</span>
        {signedIn && (
          <nav aria-label={t('mainNav')}>
            {nav.map(([to, label]) => (
              <Link key={to} to={to} ariaCurrent={to === '/' ? path === '/' : path.startsWith(to)}>
                {label}
              </Link>
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
              <button type="button" onClick={signedIn.signOut}>
                {t('signOut')}
              </button>
            </>
          )}
        </div>
      </header>
      <main id="main">{children}</main>
    </>
  );
}
