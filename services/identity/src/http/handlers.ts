import { AppError, HandlerInput, Principal, RouteHandlers } from '@bulwark/platform';
import { PERMISSION_KEYS, PERMISSION_LETTERS } from '@bulwark/contracts';
import type { Accounts } from '../accounts';
import type { IdentityConfig } from '../config';
import { roleView, tokenView, userView } from './views';

function caller(input: HandlerInput): Principal {
  if (!input.principal) throw new AppError('unauthenticated', 'Missing or invalid token');
  return input.principal;
}

const page = <T, V>(q: { page: number; limit: number }, r: { items: T[]; total: number }, view: (t: T) => V) => ({
  items: r.items.map(view),
  total: r.total,
  page: q.page,
  limit: q.limit,
});

/** HTTP handlers, keyed by the route table's operation ids: they translate, Accounts decides. */
export function identityHandlers(accounts: Accounts, config: IdentityConfig): RouteHandlers {
  return {
    login: async ({ body, clientIp }) => {
      const password = typeof body.password === 'string' ? body.password : body.password.value;
      return accounts.login(body.username, password, clientIp);
    },
    me: async (input) => {
      const me = await accounts.me(caller(input));
      return { user: userView(me.user), permissions: me.permissions, projects: me.projects };
    },
    changeOwnPassword: async (input) =>
      userView(await accounts.changeOwnPassword(caller(input), input.body.current_password, input.body.password, input.body.password_confirmation)),
    ldapAllowed: async () => ({ allowed: Boolean(config.LDAP_URL) }),
    ssoAllowed: async () => ({ allowed: Boolean(config.SSO_ISSUER_URL) }),

    createToken: async (input) => accounts.createToken(caller(input), input.body.name, input.body.expires_at),
    listTokens: async (input) => {
      const q = input.query;
      return page(q, await accounts.listTokens(caller(input), { page: q.page, limit: q.limit, includeRevoked: q['filter[include_revoked]'] ?? false }), tokenView);
    },
    revokeTokens: async (input) => ({ results: await accounts.revokeTokens(caller(input), input.body.ids) }),

    createRole: async ({ body }) =>
      roleView(
        await accounts.createRole(body.role_code, {
          name: body.role_name, permissions: body.roles, description: body.description ?? '',
          domainGroup: body.domain_group ?? [], systemScopes: body.system_scopes ?? [],
        }),
      ),
    listRoles: async ({ query: q }) =>
      page(q, await accounts.listRoles({ page: q.page, limit: q.limit, searchId: q['search[id]'], searchName: q['search[name]'] }), roleView),
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
      page(
        q,
        await accounts.listUsers({
          page: q.page, limit: q.limit, deletedOnly: q['filter[deleted_only]'], withDeleted: q['filter[with_deleted]'],
          needPasswordChange: q['filter[need_password_change]'], activeDirectory: q['filter[active_directory]'], role: q['filter[role]'],
          searchUsername: q['search[username]'], searchDisplayName: q['search[display_name]'], searchEmail: q['search[email]'],
        }),
        userView,
      ),
    getUser: async ({ params }) => userView(await accounts.getUser(params.user_id)),
    updateUser: async (input) => userView(await accounts.updateUser(caller(input), input.params.user_id, input.body)),
    deleteUsers: async (input) => ({ results: await accounts.setUsersDeleted(caller(input), input.body.ids, true) }),
    restoreUsers: async (input) => ({ results: await accounts.setUsersDeleted(caller(input), input.body.ids, false) }),

    listPermissions: async () => ({ keys: PERMISSION_KEYS, letters: PERMISSION_LETTERS }),
    checkPermission: async (input) => {
      const p = caller(input);
      const { key, letter } = input.query;
      return { key, letter, allowed: p.permissions[key]?.includes(letter) ?? false };
    },
  };
}
