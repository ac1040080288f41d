/// <reference lib="dom" />
import { expect } from 'chai';
import { BrowserContext, Page } from 'playwright-core';
import {
  Api,
  ADMIN_PASSWORD,
  requireInfra,
  startAllModeProcess,
  startOidcProvider,
  RunningSystem,
} from '@bulwark/testkit';
import { expectAccessible, openBrowser, requireChromium, shot, signIn } from './browser';

const ROLE = 'console-triager';
const USER = 'console-triager-1';
const USER_PASSWORD = 'triager-Password-1';

describe('console administration end to end (Chromium through Playwright)', function () {
  let sys: (RunningSystem & { alive(): boolean }) | undefined;
  let context: BrowserContext | undefined;
  let page: Page;
  let admin: Api;
  const problems: string[] = [];
  /** The browser logs a refused request as a console error: the ones a step expects are taken out of `problems`, after checking they happened. */
  const expectRefusals = (status: number) => {
    const refusal = (p: string) => p.includes(`status of ${status}`);
    expect(problems.some(refusal), `a ${status} on the browser console`).to.equal(true);
    problems.splice(0, problems.length, ...problems.filter((p) => !refusal(p)));
  };
  const nav = (name: string) =>
    page.getByRole('navigation', { name: 'Administration sections' }).getByRole('link', { name, exact: true });

  before(async function () {
    this.timeout(240000);
    requireChromium(this);
    sys = await startAllModeProcess();
    admin = sys.api.as(await sys.api.login('admin', ADMIN_PASSWORD));
    ({ context, page } = await openBrowser(problems));
    // Deleting asks for confirmation: the test says yes, as the person would.
    page.on('dialog', (d) => void d.accept());
  });

  after(async function () {
    this.timeout(60000);
    await context?.close();
    await sys?.stop();
  });

  it('opens Administration from the one navigation entry, on the first section', async () => {
    await signIn(page, sys!.api.baseUrl, 'admin', ADMIN_PASSWORD);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Administration' }).click();
    await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).to.equal('/admin/users');
    const sections = await page
      .getByRole('navigation', { name: 'Administration sections' })
      .getByRole('link')
      .allTextContents();
    expect(sections).to.deep.equal([
      'Users',
      'Roles',
      'User groups',
      'API tokens',
      'Directory (LDAP)',
      'Single sign-on (OIDC)',
    ]);
  });

  it('creates a role from the permission grid, changes it, and deletes another', async () => {
    await nav('Roles').click();
    await page.getByRole('heading', { name: 'Roles', level: 1 }).waitFor();
    const form = page.getByRole('form', { name: 'New role' });
    await form.getByLabel('Code', { exact: true }).fill(ROLE);
    await form.getByLabel('Name', { exact: true }).fill('Console triager');
    await form.getByLabel('Issues: Read').check();
    await form.getByLabel('Issues: Write').check();
    await form.getByLabel('Users and others\u2019 tokens: Read').check();
    await form.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('button', { name: 'Edit Console triager' }).waitFor();
    const created = await admin.get(`/api/v1/role/${ROLE}`);
    expect(created.body.roles).to.deep.equal({ 'issues.issues': ['r', 'w'], 'administration.users': ['r'] });
    await expectAccessible(page, 'roles');
    await shot(page, 'admin-roles');

    await page.getByRole('button', { name: 'Edit Console triager' }).click();
    const edit = page.getByRole('form', { name: 'Edit Console triager' });
    await edit.getByLabel('Projects: Read').check();
    await edit.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('form', { name: 'Edit Console triager' }).waitFor({ state: 'detached' });
    expect((await admin.get(`/api/v1/role/${ROLE}`)).body.roles).to.deep.equal({
      'issues.issues': ['r', 'w'],
      'administration.users': ['r'],
      'catalog.projects': ['r'],
    });

    expect(
      (await admin.post('/api/v1/role', { role_code: 'console-temporary', role_name: 'Temporary', roles: {} })).status,
    ).to.equal(200);
    await page.reload();
    await page.getByRole('button', { name: 'Delete Temporary' }).click();
    await page.getByRole('button', { name: 'Delete Temporary' }).waitFor({ state: 'detached' });
    expect((await admin.get('/api/v1/role/console-temporary')).status).to.equal(404);
  });

  it('shows the permission names in Russian', async () => {
    await page.getByLabel('Language').selectOption('ru');
    await page.getByRole('heading', { name: 'Роли', level: 1 }).waitFor();
    await page.getByLabel('Уязвимости: Запись').first().waitFor();
    await expectAccessible(page, 'roles in Russian');
    await page.getByLabel('Язык').selectOption('en');
    await page.getByRole('heading', { name: 'Roles', level: 1 }).waitFor();
  });

  it('creates a user with the role, finds them by search and resets their password', async () => {
    await nav('Users').click();
    const form = page.getByRole('form', { name: 'New user' });
    await form.getByLabel('Username').fill(USER);
    await form.getByLabel('Display name').fill('Console Triager');
    await form.getByLabel('E-mail').fill('triager@example.com');
    await form.getByLabel('Password', { exact: true }).fill(USER_PASSWORD);
    await form.getByLabel('Repeat the password').fill('not-the-same-1');
    await form.getByLabel('Must change the password at next sign-in').uncheck();
    await form.getByRole('group', { name: 'Roles' }).getByLabel(`Console triager (${ROLE})`).check();
    await form.getByRole('button', { name: 'Create' }).click();
    // The API's problem shows at the field it names; nothing was created.
    await form.getByText('does not match password', { exact: true }).waitFor();
    expectRefusals(400);
    await form.getByLabel('Repeat the password').fill(USER_PASSWORD);
    await form.getByRole('button', { name: 'Create' }).click();
    await form.getByText('Saved.').waitFor();
    const users = await admin.get(`/api/v1/users?search[username]=${USER}`);
    expect(
      users.body.items.map((u: { username: string; roles: string[]; email: string }) => [u.username, u.roles, u.email]),
    ).to.deep.equal([[USER, [ROLE], 'triager@example.com']]);

    await page.getByLabel('Search by username').fill('triager');
    await page.getByRole('status').filter({ hasText: '1 users' }).waitFor();
    await expectAccessible(page, 'users');
    await shot(page, 'admin-users');

    // A reset: a new password the user must change at the next sign-in.
    await page.getByRole('button', { name: `Edit ${USER}` }).click();
    const edit = page.getByRole('form', { name: `Edit ${USER}` });
    await edit.getByLabel('New password (empty: unchanged)').fill('reset-Password-2');
    await edit.getByLabel('Repeat the password').fill('reset-Password-2');
    await edit.getByLabel('Must change the password at next sign-in').check();
    await edit.getByRole('button', { name: 'Save' }).click();
    await edit.waitFor({ state: 'detached' });
    const login = await sys!.api.post('/api/v1/auth/login', { username: USER, password: 'reset-Password-2' });
    expect(login.status).to.equal(200);
    expect(login.body.need_password_change).to.equal(true);
    // Back to the first password without the forced change, for the sign-in below.
    const id = users.body.items[0].id as string;
    expect(
      (
        await admin.put(`/api/v1/user/${id}`, {
          password: USER_PASSWORD,
          password_confirmation: USER_PASSWORD,
          need_password_change: false,
        })
      ).status,
    ).to.equal(200);
  });

  it('creates an API token, shows its secret once, and revokes it: the API then refuses it', async () => {
    await nav('API tokens').click();
    await page.getByRole('heading', { name: 'API tokens', level: 1 }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('console ci');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByText('Token console ci created. Copy it now: it won\u2019t be shown again.').waitFor();
    const secret = await page.getByLabel('The new token').inputValue();
    await context!.grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByText('Copied.').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).to.equal(secret);
    expect((await sys!.api.as(secret).get('/api/v1/auth/me')).status).to.equal(200);
    await expectAccessible(page, 'tokens');
    await shot(page, 'admin-tokens');

    await page.getByRole('button', { name: 'Done, hide it' }).click();
    expect(await page.getByLabel('The new token').count()).to.equal(0);
    await page.getByRole('button', { name: 'Revoke console ci' }).click();
    await page.getByRole('button', { name: 'Revoke console ci' }).waitFor({ state: 'detached' });
    expect((await sys!.api.as(secret).get('/api/v1/auth/me')).status).to.equal(401);
    await page.getByLabel('Show revoked tokens').check();
    await page.getByRole('cell', { name: /^Revoked / }).waitFor();
  });

  it('creates a user group with a member, a role and projects', async () => {
    await nav('User groups').click();
    const form = page.getByRole('form', { name: 'New group' });
    await form.getByLabel('Name', { exact: true }).fill('Console team');
    await form.getByLabel('Project codes (comma separated)').fill('alpha, beta');
    await form
      .getByLabel('Directory groups (DNs or names, one a line)')
      .fill('cn=appsec,ou=groups,dc=example,dc=com\nappsec-team');
    await form.getByRole('group', { name: 'Members' }).getByLabel(USER).check();
    await form.getByRole('group', { name: 'Roles granted' }).getByLabel(`Console triager (${ROLE})`).check();
    await form.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('button', { name: 'Edit Console team' }).waitFor();
    const groups = (await admin.get('/api/v1/groups')).body.items as {
      name: string;
      users: { username: string }[];
      roles: string[];
      project_codes: string[];
      domain_group: string[];
    }[];
    const group = groups.find((g) => g.name === 'Console team')!;
    expect(group.users.map((u) => u.username)).to.deep.equal([USER]);
    expect(group.roles).to.deep.equal([ROLE]);
    expect(group.project_codes).to.deep.equal(['alpha', 'beta']);
    expect(group.domain_group).to.deep.equal(['cn=appsec,ou=groups,dc=example,dc=com', 'appsec-team']);
    await expectAccessible(page, 'groups');
    await shot(page, 'admin-groups');
  });

  it('saves directory settings with a write-only bind password and tests them against slapd', async function () {
    const { ldap } = requireInfra(this, 'ldap');
    await nav('Directory (LDAP)').click();
    await page.getByRole('heading', { name: 'Directory (LDAP)', level: 1 }).waitFor();
    await page.getByText('No password is set.').waitFor();
    await page.getByLabel('Server URLs (ldap:// or ldaps://, one a line)').fill(ldap.url);
    await page.getByLabel('Service account DN').fill(ldap.bindDn);
    await page.getByLabel('Service account password').fill(ldap.bindPassword);
    await page.getByLabel('User search base').fill(`ou=people,${ldap.base}`);
    await page.getByLabel('User filter (with {username})').fill('(&(objectClass=inetOrgPerson)(uid={username}))');
    await page.getByLabel('Group search base (empty: groups are not read)').fill(`ou=groups,${ldap.base}`);
    await page.getByLabel('Directory login enabled').check();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('A password is set; it is never shown. Type a new one to replace it.').waitFor();
    expect(await page.getByLabel('Service account password').inputValue()).to.equal('');
    expect(await page.content()).not.to.contain(ldap.bindPassword);
    const saved = (await admin.get('/api/v1/ldap/settings')).body;
    expect(saved).to.include({ enabled: true, complete: true, bind_password_set: true, bind_dn: ldap.bindDn });

    await page.getByLabel('Also look up this user (optional)').fill('bob');
    await page.getByRole('button', { name: 'Test' }).click();
    await page.getByText(/^Connection works: /).waitFor();
    await expectAccessible(page, 'directory');
    await shot(page, 'admin-directory');
    expect((await admin.put('/api/v1/ldap/settings', { enabled: false })).status).to.equal(200);
  });

  it('saves single sign-on settings with a write-only client secret and a readable role mapping', async () => {
    await nav('Single sign-on (OIDC)').click();
    await page.getByRole('heading', { name: 'Single sign-on (OIDC)', level: 1 }).waitFor();
    await page.getByText('No secret is set.').waitFor();
    await page.getByLabel('Issuer URL').fill('https://login.example.com/realms/main');
    await page.getByLabel('Client id').fill('bulwark-console');
    await page.getByLabel('Client secret').fill('sso-client-secret-e2e');
    await page
      .getByLabel('Redirect URI (this deployment\u2019s /api/v1/sso/callback)')
      .fill(`${sys!.api.baseUrl}/api/v1/sso/callback`);
    await page.getByLabel('Role mapping (one a line: group = role codes, comma separated)').fill(`appsec = ${ROLE}`);
    await page.getByLabel('Allowed e-mail domains (comma separated; empty: any)').fill('example.com');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('A secret is set; it is never shown. Type a new one to replace it.').waitFor();
    expect(await page.content()).not.to.contain('sso-client-secret-e2e');
    const saved = (await admin.get('/api/v1/sso/settings')).body;
    expect(saved).to.include({ enabled: false, client_id: 'bulwark-console', client_secret_set: true, complete: true });
    expect(saved.role_mapping).to.deep.equal({ appsec: [ROLE] });
    expect(saved.allowed_email_domains).to.deep.equal(['example.com']);
    expect(
      await page.getByLabel('Role mapping (one a line: group = role codes, comma separated)').inputValue(),
    ).to.equal(`appsec = ${ROLE}`);
    await expectAccessible(page, 'single sign-on');
    await shot(page, 'admin-sso');
  });

  it('pages the users list, 50 a page: next and previous through a search\u2019s matches, a new search from the first page', async () => {
    // Directory users: no password to hash, so 51 of them are quick to make.
    const ids: string[] = [];
    for (let n = 1; n <= 51; n++) {
      const res = await admin.post('/api/v1/user', {
        username: `paged-${String(n).padStart(2, '0')}`,
        display_name: `Paged ${n}`,
        active_directory: true,
        need_password_change: false,
        roles: [],
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      ids.push(res.body.id as string);
    }
    const rows = page.locator('table.grid tbody tr');
    const pager = page.getByRole('navigation', { name: 'Pages' });
    await nav('Users').click();
    await page.getByLabel('Search by username').fill('paged-');
    await page
      .getByRole('status')
      .filter({ hasText: /^51 users$/ })
      .waitFor();
    await pager.getByText('Page 1 of 2').waitFor();
    expect(await rows.count()).to.equal(50);
    expect(await pager.getByRole('button', { name: 'Previous page' }).isDisabled()).to.equal(true);

    await pager.getByRole('button', { name: 'Next page' }).click();
    await pager.getByText('Page 2 of 2').waitFor();
    await rows.nth(1).waitFor({ state: 'detached' });
    expect(await rows.count()).to.equal(1);
    expect(await pager.getByRole('button', { name: 'Next page' }).isDisabled()).to.equal(true);
    await expectAccessible(page, 'users, second page');
    await shot(page, 'admin-users-paged');
    await pager.getByRole('button', { name: 'Previous page' }).click();
    await pager.getByText('Page 1 of 2').waitFor();
    await rows.nth(49).waitFor();

    await pager.getByRole('button', { name: 'Next page' }).click();
    await pager.getByText('Page 2 of 2').waitFor();
    await page.getByLabel('Search by username').fill('paged-0');
    await page
      .getByRole('status')
      .filter({ hasText: /^9 users$/ })
      .waitFor();
    await pager.getByText('Page 1 of 1').waitFor();
    expect(await rows.count()).to.equal(9);
    expect((await admin.delete('/api/v1/users', { ids })).status).to.equal(200);
  });

  it('signs out for good, then shows a user with the role only what it permits: users read-only, no roles, a plain refusal at a forbidden address', async () => {
    // Signing out revokes the session's token on the server: its value, copied out of the cookie, no longer works.
    const cookie = (await context!.cookies()).find((c) => c.name === 'bulwark_session')!;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect((await sys!.api.as(cookie.value).get('/api/v1/auth/me')).status).to.equal(401);
    // No single sign-on is configured here: the sign-in page offers none.
    expect(await page.getByRole('link', { name: 'Sign in with SSO' }).count()).to.equal(0);
    await signIn(page, sys!.api.baseUrl, USER, USER_PASSWORD);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Administration' }).click();
    await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
    const sections = await page
      .getByRole('navigation', { name: 'Administration sections' })
      .getByRole('link')
      .allTextContents();
    expect(sections).to.deep.equal(['Users', 'API tokens']);
    await page.getByRole('cell', { name: USER, exact: false }).first().waitFor();
    expect(await page.getByRole('form', { name: 'New user' }).count()).to.equal(0);
    expect(await page.getByRole('button', { name: /^(Edit|Delete) / }).count()).to.equal(0);
    await expectAccessible(page, 'users, read-only');

    await page.goto(`${sys!.api.baseUrl}/admin/roles`);
    await page.getByText('Your role does not allow this. Ask an administrator for the right.').waitFor();
    await expectAccessible(page, 'roles, refused');
    await shot(page, 'admin-refused');
    expectRefusals(403);
    expect(problems).to.deep.equal([]);
  });
  it('signs in with the sign-in page\u2019s SSO button through the provider\u2019s own pages, as a user made just in time with the mapped role', async () => {
    const base = sys!.api.baseUrl;
    const provider = await startOidcProvider(
      { 'sso-olivia': { email: 'sso-olivia@example.com', name: 'Olivia SSO', groups: ['appsec'] } },
      `${base}/api/v1/sso/callback`,
    );
    try {
      // The settings saved above, now pointed at the test provider and enabled.
      const saved = await admin.put('/api/v1/sso/settings', {
        enabled: true,
        issuer: provider.issuer,
        allow_insecure_http: true,
        client_id: provider.client.clientId,
        client_secret: provider.client.clientSecret,
        redirect_uri: provider.client.redirectUri,
        scopes: ['openid', 'email', 'profile', 'groups'],
      });
      expect(saved.status, JSON.stringify(saved.body)).to.equal(200);
      await page.getByRole('button', { name: 'Sign out' }).click();
      const button = page.getByRole('link', { name: 'Sign in with SSO' });
      await button.waitFor();
      await expectAccessible(page, 'sign in with single sign-on offered');
      await shot(page, 'sign-in-sso');
      await button.click();
      // oidc-provider's development login page (any password), then its consent page.
      await page.locator('input[name="login"]').fill('sso-olivia');
      await page.locator('input[name="password"]').fill('any');
      await page.getByRole('button', { name: 'Sign-in' }).click();
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
      expect(page.url()).to.equal(`${base}/`);
      await page.getByText('Signed in as sso-olivia').waitFor();
      const me = (await admin.get('/api/v1/users?search[username]=sso-olivia')).body.items;
      expect(
        me.map((u: { username: string; roles: string[]; active_directory: boolean }) => [
          u.username,
          u.roles,
          u.active_directory,
        ]),
      ).to.deep.equal([['sso-olivia', [ROLE], true]]);
      await shot(page, 'signed-in-with-sso');
    } finally {
      expect((await admin.put('/api/v1/sso/settings', { enabled: false })).status).to.equal(200);
      await provider.stop();
    }
  });
});
