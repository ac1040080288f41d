import { HandlersOf, HttpResponse, listPage, requirePrincipal } from '@bulwark/platform';
import { identityRoutes, licenseRoutes, PERMISSION_KEYS, PERMISSION_LETTERS } from '@bulwark/contracts';
import type { ApiTokens } from '../api-tokens';
import type { DirectoryLogins } from '../directory';
import type { UserGroups } from '../groups';
import type { Licensing } from '../license';
import type { Logins } from '../logins';
import type { Roles } from '../roles';
import type { SingleSignOn } from '../sso';
import type { Users } from '../users';
import { groupView, roleView, tokenView, userView } from './views';

/** Identity's use cases, one class each, as the composition root wires them. */
export interface IdentityUseCases {
  logins: Logins;
  tokens: ApiTokens;
  roles: Roles;
  users: Users;
  groups: UserGroups;
  directory: DirectoryLogins;
  sso: SingleSignOn;
  licensing: Licensing;
}

/** HTTP handlers, keyed by the route table's operation ids: they translate, the use cases decide. */
export function identityHandlers({
  logins,
  tokens,
  roles,
  users,
  groups,
  directory,
  sso,
  licensing,
}: IdentityUseCases): HandlersOf<[...typeof identityRoutes, ...typeof licenseRoutes]> {
  return {
    getLicense: async () => licensing.view(),
    installLicense: async (input) => licensing.install(requirePrincipal(input), input.body.license),
    licenseStatus: async () => licensing.statusView(),
    licenseEnvironment: async () => licensing.environment(),
    login: async ({ body, clientIp }) => {
      const password = typeof body.password === 'string' ? body.password : body.password.value;
      return logins.login(body.username, password, clientIp);
    },
    me: async (input) => {
      const me = await logins.me(requirePrincipal(input));
      return { user: userView(me.user), permissions: me.permissions, projects: me.projects, groups: me.groups };
    },
    logout: async (input) => {
      await logins.logout(requirePrincipal(input));
      return { signed_out: true as const };
    },
    changeOwnPassword: async (input) =>
      userView(
        await logins.changeOwnPassword(
          requirePrincipal(input),
          input.body.current_password,
          input.body.password,
          input.body.password_confirmation,
        ),
      ),
    ldapAllowed: async () => ({ allowed: await directory.allowed() }),
    getLdapSettings: async () => directory.getSettings(),
    updateLdapSettings: async ({ body }) => directory.updateSettings(body),
    testLdap: async ({ body }) => directory.test(body.username),
    ssoAllowed: async () => ({ allowed: await sso.allowed() }),
    getSsoSettings: async () => sso.getSettings(),
    updateSsoSettings: async (input) => sso.updateSettings(requirePrincipal(input), input.body),
    ssoLogin: async () => new HttpResponse(302, '', { location: await sso.start(), 'cache-control': 'no-store' }),
    ssoCallback: async ({ query }) => {
      const { person, granted, bound } = await sso.finish(query);
      return logins.ssoLogin(person, granted, bound);
    },

    createToken: async (input) => tokens.createToken(requirePrincipal(input), input.body.name, input.body.expires_at),
    listTokens: async (input) => {
      const q = input.query;
      return listPage(
        q,
        await tokens.listTokens(requirePrincipal(input), {
          page: q.page,
          limit: q.limit,
          includeRevoked: q.filter.include_revoked ?? false,
        }),
        tokenView,
      );
    },
    revokeTokens: async (input) => ({ results: await tokens.revokeTokens(requirePrincipal(input), input.body.ids) }),

    createRole: async (input) =>
      roleView(
        await roles.createRole(requirePrincipal(input), input.body.role_code, {
          name: input.body.role_name,
          permissions: input.body.roles,
          description: input.body.description ?? '',
          domainGroup: input.body.domain_group ?? [],
          systemScopes: input.body.system_scopes ?? [],
        }),
      ),
    listRoles: async (input) =>
      listPage(input.query, await roles.listRoles(requirePrincipal(input), input.query), roleView),
    getRole: async (input) => roleView(await roles.getRole(requirePrincipal(input), input.params.role_code)),
    updateRole: async (input) =>
      roleView(
        await roles.updateRole(requirePrincipal(input), input.params.role_code, {
          name: input.body.role_name,
          permissions: input.body.roles,
          description: input.body.description,
          domainGroup: input.body.domain_group,
          systemScopes: input.body.system_scopes,
        }),
      ),
    deleteRoles: async (input) => ({
      results: await roles.deleteRoles(requirePrincipal(input), input.body.ids, input.body.detach ?? false),
    }),

    createUser: async (input) => userView(await users.createUser(requirePrincipal(input), input.body)),
    listUsers: async ({ query: q }) =>
      listPage(
        q,
        await users.listUsers({
          page: q.page,
          limit: q.limit,
          deletedOnly: q.filter.deleted_only,
          withDeleted: q.filter.with_deleted,
          needPasswordChange: q.filter.need_password_change,
          activeDirectory: q.filter.active_directory,
          role: q.filter.role,
          searchUsername: q.search.username,
          searchDisplayName: q.search.display_name,
          searchEmail: q.search.email,
        }),
        userView,
      ),
    getUser: async ({ params }) => userView(await users.getUser(params.user_id)),
    updateUser: async (input) =>
      userView(await users.updateUser(requirePrincipal(input), input.params.user_id, input.body)),
    deleteUsers: async (input) => ({
      results: await users.setUsersDeleted(requirePrincipal(input), input.body.ids, true),
    }),
    restoreUsers: async (input) => ({
      results: await users.setUsersDeleted(requirePrincipal(input), input.body.ids, false),
    }),

    createGroup: async (input) => groupView(await groups.create(requirePrincipal(input), input.body)),
    listGroups: async (input) =>
      listPage(input.query, await groups.list(requirePrincipal(input), input.query), groupView),
    getGroup: async (input) => groupView(await groups.get(requirePrincipal(input), input.params.id)),
    updateGroup: async (input) => groupView(await groups.update(requirePrincipal(input), input.params.id, input.body)),
    deleteGroups: async (input) => ({ results: await groups.delete(requirePrincipal(input), input.body.ids) }),

    listPermissions: async () => ({ keys: PERMISSION_KEYS, letters: PERMISSION_LETTERS }),
    checkPermission: async (input) => {
      const p = requirePrincipal(input);
      const { key, letter } = input.query;
      return { key, letter, allowed: p.permissions[key]?.includes(letter) ?? false };
    },
  };
}
