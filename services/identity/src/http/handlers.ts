import { HttpResponse, listPage, requirePrincipal, RouteHandlers } from '@bulwark/platform';
import { PERMISSION_KEYS, PERMISSION_LETTERS } from '@bulwark/contracts';
import type { Accounts } from '../accounts';
import type { DirectoryLogins } from '../directory';
import type { UserGroups } from '../groups';
import type { Licensing } from '../license';
import type { SingleSignOn } from '../sso';
import { groupView, roleView, tokenView, userView } from './views';

/** HTTP handlers, keyed by the route table's operation ids: they translate, Accounts decides. */
export function identityHandlers(accounts: Accounts, directory: DirectoryLogins, sso: SingleSignOn, groups: UserGroups, licensing: Licensing): RouteHandlers {
  return {
    getLicense: async () => licensing.view(),
    installLicense: async (input) => licensing.install(requirePrincipal(input), input.body.license),
    licenseStatus: async () => licensing.statusView(),
    licenseEnvironment: async () => licensing.environment(),
    login: async ({ body, clientIp }) => {
      const password = typeof body.password === 'string' ? body.password : body.password.value;
      return accounts.login(body.username, password, clientIp);
    },
    me: async (input) => {
      const me = await accounts.me(requirePrincipal(input));
      return { user: userView(me.user), permissions: me.permissions, projects: me.projects, groups: me.groups };
    },
    changeOwnPassword: async (input) =>
      userView(await accounts.changeOwnPassword(requirePrincipal(input), input.body.current_password, input.body.password, input.body.password_confirmation)),
    ldapAllowed: async () => ({ allowed: await directory.allowed() }),
    getLdapSettings: async () => directory.getSettings(),
    updateLdapSettings: async ({ body }) => directory.updateSettings(body),
    testLdap: async ({ body }) => directory.test(body.username),
    ssoAllowed: async () => ({ allowed: await sso.allowed() }),
    getSsoSettings: async () => sso.getSettings(),
    updateSsoSettings: async ({ body }) => sso.updateSettings(body),
    ssoLogin: async () => new HttpResponse(302, '', { location: await sso.start(), 'cache-control': 'no-store' }),
    ssoCallback: async ({ query }) => {
      const { person, granted, bound } = await sso.finish(query);
      return accounts.ssoLogin(person, granted, bound);
    },

    createToken: async (input) => accounts.createToken(requirePrincipal(input), input.body.name, input.body.expires_at),
    listTokens: async (input) => {
      const q = input.query;
      return listPage(q, await accounts.listTokens(requirePrincipal(input), { page: q.page, limit: q.limit, includeRevoked: q['filter[include_revoked]'] ?? false }), tokenView);
    },
    revokeTokens: async (input) => ({ results: await accounts.revokeTokens(requirePrincipal(input), input.body.ids) }),

    createRole: async ({ body }) =>
      roleView(
        await accounts.createRole(body.role_code, {
          name: body.role_name, permissions: body.roles, description: body.description ?? '',
          domainGroup: body.domain_group ?? [], systemScopes: body.system_scopes ?? [],
        }),
      ),
    listRoles: async ({ query: q }) =>
      listPage(q, await accounts.listRoles({ page: q.page, limit: q.limit, searchId: q['search[id]'], searchName: q['search[name]'] }), roleView),
    getRole: async ({ params }) => roleView(await accounts.getRole(params.role_code)),
    updateRole: async ({ params, body }) =>
      roleView(
        await accounts.updateRole(params.role_code, {
          name: body.role_name, permissions: body.roles, description: body.description,
          domainGroup: body.domain_group, systemScopes: body.system_scopes,
        }),
      ),
    deleteRoles: async ({ body }) => ({ results: await accounts.deleteRoles(body.ids, body.detach ?? false) }),

    createUser: async ({ body }) => userView(await accounts.createUser(body)),
    listUsers: async ({ query: q }) =>
      listPage(
q,
        await accounts.listUsers({
          page: q.page, limit: q.limit, deletedOnly: q['filter[deleted_only]'], withDeleted: q['filter[with_deleted]'],
          needPasswordChange: q['filter[need_password_change]'], activeDirectory: q['filter[active_directory]'], role: q['filter[role]'],
          searchUsername: q['search[username]'], searchDisplayName: q['search[display_name]'], searchEmail: q['search[email]'],
        }),
        userView,
      ),
    getUser: async ({ params }) => userView(await accounts.getUser(params.user_id)),
    updateUser: async (input) => userView(await accounts.updateUser(requirePrincipal(input), input.params.user_id, input.body)),
    deleteUsers: async (input) => ({ results: await accounts.setUsersDeleted(requirePrincipal(input), input.body.ids, true) }),
    restoreUsers: async (input) => ({ results: await accounts.setUsersDeleted(requirePrincipal(input), input.body.ids, false) }),

    createGroup: async ({ body }) => groupView(await groups.create(body)),
    listGroups: async ({ query: q }) =>
      listPage(q, await groups.list({ page: q.page, limit: q.limit, searchName: q['search[name]'], searchProjectTags: q['search[project_tags]'] }), groupView),
    getGroup: async ({ params }) => groupView(await groups.get(params.id)),
    updateGroup: async ({ params, body }) => groupView(await groups.update(params.id, body)),
    deleteGroups: async ({ body }) => ({ results: await groups.delete(body.ids) }),

    listPermissions: async () => ({ keys: PERMISSION_KEYS, letters: PERMISSION_LETTERS }),
    checkPermission: async (input) => {
      const p = requirePrincipal(input);
      const { key, letter } = input.query;
      return { key, letter, allowed: p.permissions[key]?.includes(letter) ?? false };
    },
  };
}
