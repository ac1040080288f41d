import type { RouteSpec } from '@bulwark/platform';
import { z } from '../zod';
import { bracketQuery, bulkResult, idsBody, isoDateTime, listOf, pageQuery, queryBool, perm } from '../common';
import { ALL_LETTERS } from '../permissions';

const service = 'identity';

const password = z.string().min(1).max(1024);

export const loginBody = z
  .object({
    username: z.string().min(1).max(255),
    password: z.union([password, z.object({ value: password }).strict()]).openapi({
      description: 'A string, or since release 1.5 the object form { "value": "<password>" }',
    }),
  })
  .strict()
  .openapi('LoginRequest');

export const loginResponse = z
  .object({
    access_token: z.string(),
    token_type: z.literal('Bearer'),
    expires_at: isoDateTime,
    need_password_change: z.boolean(),
  })
  .openapi('LoginResponse');

export const tokenBody = z
  .object({
    name: z.string().trim().min(1).max(255),
    expires_at: isoDateTime.openapi({ description: 'ISO 8601 UTC date-time in the future' }),
  })
  .strict()
  .openapi('TokenRequest');

export const tokenView = z
  .object({
    id: z.string(),
    name: z.string(),
    user_id: z.string(),
    expires_at: isoDateTime,
    created_at: isoDateTime,
    last_used_at: isoDateTime.nullable(),
    revoked_at: isoDateTime.nullable(),
  })
  .openapi('Token');

export const tokenCreated = z
  .object({
    id: z.string(),
    name: z.string(),
    token: z.string().openapi({ description: 'Shown once; only its hash is stored' }),
    expires_at: isoDateTime,
  })
  .openapi('TokenCreated');

const letter = z.enum(ALL_LETTERS as ['r', 'w', 'x', 'd']);
const roleCode = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_.-]+$/, 'may contain only letters, digits, "_", "." and "-"');
const systemScope = z
  .string()
  .regex(/^project:[A-Za-z0-9_.-]+$/, 'must be "project:<project_code>"')
  .openapi({ description: 'A project the role is limited to, as "project:<project_code>"' });

const roleFields = {
  role_name: z.string().trim().min(1).max(255),
  roles: z.record(z.string(), z.array(letter)).openapi({
    description: 'Permission key -> letters (r, w, x, d)',
    example: { 'administration.users': ['r', 'w'] },
  }),
  description: z.string().max(4000).optional(),
  domain_group: z
    .array(z.string().min(1).max(512))
    .max(100)
    .optional()
    .openapi({ description: 'Directory (LDAP) groups bound to the role' }),
  system_scopes: z.array(systemScope).max(1000).optional().openapi({
    description:
      'Project scoping. A role with no "project:" scopes applies to every project; otherwise only to the listed ones.',
  }),
};

export const roleCreateBody = z
  .object({ role_code: roleCode, ...roleFields })
  .strict()
  .openapi('RoleCreate');
export const roleUpdateBody = z
  .object({
    role_name: roleFields.role_name.optional(),
    roles: roleFields.roles.optional(),
    description: roleFields.description,
    domain_group: roleFields.domain_group,
    system_scopes: roleFields.system_scopes,
  })
  .strict()
  .openapi('RoleUpdate');

export const roleView = z
  .object({
    id: z.string(),
    role_code: z.string(),
    role_name: z.string(),
    roles: z.record(z.string(), z.array(letter)),
    description: z.string(),
    domain_group: z.array(z.string()),
    system_scopes: z.array(z.string()),
    builtin: z.boolean(),
    users_count: z.number().int(),
    created_at: isoDateTime,
    updated_at: isoDateTime,
  })
  .openapi('Role');

const username = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9_.@-]+$/, 'may contain only letters, digits and "_", ".", "@", "-"');

export const userCreateBody = z
  .object({
    username,
    password: z.string().max(1024).optional().openapi({ description: 'Required unless active_directory is true' }),
    password_confirmation: z.string().max(1024).optional(),
    display_name: z.string().max(255).optional(),
    email: z.email().max(320).optional(),
    need_password_change: z.boolean().optional(),
    active_directory: z.boolean().optional(),
    roles: z.array(z.string().min(1)).max(100).optional().openapi({ description: 'Role codes' }),
  })
  .strict()
  .openapi('UserCreate');

export const userUpdateBody = z
  .object({
    password: z.string().max(1024).optional(),
    password_confirmation: z.string().max(1024).optional(),
    display_name: z.string().max(255).optional(),
    email: z.email().max(320).nullable().optional(),
    need_password_change: z.boolean().optional(),
    active_directory: z.boolean().optional(),
    roles: z.array(z.string().min(1)).max(100).optional(),
  })
  .strict()
  .openapi('UserUpdate');

export const passwordChangeBody = z
  .object({
    current_password: z.string().min(1).max(1024),
    password: z.string().max(1024),
    password_confirmation: z.string().max(1024),
  })
  .strict()
  .openapi('PasswordChange');

export const userView = z
  .object({
    id: z.string(),
    username: z.string(),
    display_name: z.string(),
    email: z.string().nullable(),
    need_password_change: z.boolean(),
    active_directory: z.boolean(),
    roles: z.array(z.string()),
    created_at: isoDateTime,
    updated_at: isoDateTime,
    deleted_at: isoDateTime.nullable(),
  })
  .openapi('User');

// ---- directory (LDAP) settings

const ldapUrl = z
  .string()
  .max(2048)
  .regex(/^ldaps?:\/\/[^\s/?#]+\/?$/, 'must be ldap://host[:port] or ldaps://host[:port]')
  .openapi({ example: 'ldaps://dc1.example.com:636' });
const dn = z.string().trim().min(1).max(1024);
const ldapFilter = z
  .string()
  .trim()
  .min(3)
  .max(2048)
  .regex(/^\([\s\S]*\)$/, 'must be an LDAP filter in parentheses');
const attribute = z
  .string()
  .trim()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z][A-Za-z0-9-]*$/, 'must be an attribute name');

const ldapFields = {
  enabled: z.boolean().openapi({ description: 'Whether directory users may log in' }),
  urls: z.array(ldapUrl).min(1).max(5).openapi({ description: 'Servers, tried in order while one cannot be reached' }),
  start_tls: z
    .boolean()
    .openapi({ description: 'Upgrade ldap:// connections with StartTLS (ldaps:// is TLS from the start)' }),
  verify_certificate: z
    .boolean()
    .openapi({ description: 'Verify the server certificate and host name (on by default)' }),
  ca_certificate: z
    .string()
    .max(65536)
    .regex(/-----BEGIN CERTIFICATE-----/, 'must be PEM certificates')
    .nullable()
    .openapi({ description: 'PEM bundle of the CAs to trust instead of the system ones' }),
  bind_dn: dn.openapi({ description: 'Service account that searches the directory' }),
  bind_password: z.string().min(1).max(1024).openapi({ description: 'Write-only: sealed at rest, never returned' }),
  user_search_base: dn,
  user_filter: ldapFilter
    .refine((f) => f.includes('{username}'), 'must contain {username}')
    .openapi({
      description:
        'Finds the person; {username} is replaced by the escaped login name. E.g. (&(objectClass=person)(sAMAccountName={username}))',
    }),
  disabled_filter: ldapFilter.nullable().openapi({
    description:
      'A person matching this filter is refused, e.g. (userAccountControl:1.2.840.113556.1.4.803:=2) for Active Directory, (pwdAccountLockedTime=*) for OpenLDAP',
  }),
  group_search_base: dn.nullable().openapi({ description: 'Where groups are searched; null reads no groups' }),
  group_filter: ldapFilter.openapi({ description: 'What a group is' }),
  group_member_attribute: attribute.openapi({
    description: 'Attribute of a group that holds member DNs (member, uniqueMember)',
  }),
  nested_groups: z.enum(['none', 'walk', 'in_chain']).openapi({
    description:
      'none: direct groups only; walk: groups of groups, searched level by level (any server); in_chain: one search with Active Directory\u2019s LDAP_MATCHING_RULE_IN_CHAIN',
  }),
  display_name_attribute: attribute,
  email_attribute: attribute,
  timeout_seconds: z
    .number()
    .int()
    .min(1)
    .max(120)
    .openapi({ description: 'Time limit of each connection and operation' }),
  page_size: z.number().int().min(1).max(5000).openapi({ description: 'Entries per page of a group search' }),
};

export const ldapSettingsBody = z
  .object(
    Object.fromEntries(Object.entries(ldapFields).map(([k, v]) => [k, v.optional()])) as {
      [K in keyof typeof ldapFields]: z.ZodOptional<(typeof ldapFields)[K]>;
    },
  )
  .strict()
  .openapi('LdapSettingsUpdate', {
    description: 'Fields left out keep their value; bind_password left out keeps the stored one',
  });

const { bind_password: _writeOnly, ...ldapReadable } = ldapFields;
export const ldapSettingsView = z
  .object({
    ...ldapReadable,
    bind_dn: dn.nullable(),
    user_search_base: dn.nullable(),
    urls: z.array(z.string()),
    bind_password_set: z.boolean(),
    complete: z.boolean().openapi({ description: 'Whether every setting a login needs is there' }),
    updated_at: isoDateTime.nullable(),
  })
  .openapi('LdapSettings');

export const ldapTestBody = z
  .object({
    username: z
      .string()
      .min(1)
      .max(255)
      .optional()
      .openapi({ description: 'Also look this person up with user_filter' }),
  })
  .strict()
  .openapi('LdapTestRequest');

export const ldapTestResult = z
  .object({
    ok: z.boolean(),
    stage: z
      .enum(['settings', 'connect', 'tls', 'bind', 'search_base', 'user', 'done'])
      .openapi({ description: 'The step that failed, or done' }),
    message: z.string(),
  })
  .openapi('LdapTestResult');

// ---- single sign-on (OIDC) settings

const httpUrl = z
  .string()
  .max(2048)
  .regex(/^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/, 'must be an http(s) URL without query or fragment');
const emailDomain = z
  .string()
  .min(1)
  .max(253)
  .regex(/^[a-z0-9.-]+\.[a-z]{2,}$/, 'must be a domain such as example.com');

const ssoFields = {
  enabled: z.boolean().openapi({ description: 'Whether single sign-on is offered' }),
  issuer: httpUrl.openapi({
    description: 'Issuer URL; its /.well-known/openid-configuration is read (discovery)',
    example: 'https://login.example.com/realms/main',
  }),
  client_id: z.string().trim().min(1).max(512),
  client_secret: z.string().min(1).max(4096).openapi({ description: 'Write-only: sealed at rest, never returned' }),
  redirect_uri: httpUrl.openapi({
    description: 'This deployment\u2019s public address of GET /api/v1/sso/callback, as registered at the provider',
    example: 'https://bulwark.example.com/api/v1/sso/callback',
  }),
  scopes: z
    .array(z.string().regex(/^[\x21\x23-\x5B\x5D-\x7E]+$/, 'must be a scope token'))
    .min(1)
    .max(20)
    .openapi({ description: 'Scopes asked for; openid is always added' }),
  groups_claim: z
    .string()
    .trim()
    .min(1)
    .max(128)
    .openapi({ description: 'The claim (of the ID token or userinfo) that lists the person\u2019s groups' }),
  role_mapping: z.record(z.string().min(1).max(512), z.array(z.string().min(1).max(64)).max(100)).openapi({
    description: 'Group (a value of groups_claim) -> role codes granted to its members at each single sign-on',
    example: { 'appsec-admins': ['admin'] },
  }),
  allowed_email_domains: z.array(emailDomain).max(100).openapi({
    description: 'When not empty, only people whose verified e-mail is in one of these domains may log in',
  }),
  allow_insecure_http: z.boolean().openapi({ description: 'Allow an http:// issuer (never in production)' }),
  ca_certificate: z
    .string()
    .max(65536)
    .regex(/-----BEGIN CERTIFICATE-----/, 'must be PEM certificates')
    .nullable()
    .openapi({ description: 'PEM bundle of the CAs to trust for the issuer instead of the system ones' }),
};

export const ssoSettingsBody = z
  .object(
    Object.fromEntries(Object.entries(ssoFields).map(([k, v]) => [k, v.optional()])) as {
      [K in keyof typeof ssoFields]: z.ZodOptional<(typeof ssoFields)[K]>;
    },
  )
  .strict()
  .openapi('SsoSettingsUpdate', {
    description: 'Fields left out keep their value; client_secret left out keeps the stored one',
  });

const { client_secret: _ssoWriteOnly, ...ssoReadable } = ssoFields;
export const ssoSettingsView = z
  .object({
    ...ssoReadable,
    issuer: z.string().nullable(),
    client_id: z.string().nullable(),
    redirect_uri: z.string().nullable(),
    client_secret_set: z.boolean(),
    complete: z.boolean().openapi({ description: 'Whether every setting a login needs is there' }),
    updated_at: isoDateTime.nullable(),
  })
  .openapi('SsoSettings');

// ---- user groups

const projectTag = z.string().trim().min(1).max(64);
const groupProjectCode = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/,
    'must be a project code: 1-64 letters, digits, "_", "." or "-", starting with a letter or digit',
  );
const directoryEntry = z.string().trim().min(1).max(512);

const groupFields = {
  name: z.string().trim().min(1).max(255).openapi({ description: 'Unique, in any case' }),
  description: z.string().max(4000),
  user_ids: z.array(z.string().min(1).max(64)).max(1000).openapi({ description: 'Users who are members, by id' }),
  domain_group: z
    .array(directoryEntry)
    .max(100)
    .openapi({
      description:
        'Directory groups whose people are members: LDAP group DNs (an entry with "="), LDAP group names (cn) or OIDC group-claim values (an entry without "="); compared without regard to case. A directory or single sign-on user gets the group through them at each login.',
      example: ['cn=appsec,ou=groups,dc=example,dc=com', 'appsec-team'],
    }),
  roles: z
    .array(z.string().min(1).max(64))
    .max(100)
    .openapi({ description: 'Role codes granted to the members, limited to the projects the group covers' }),
  project_tags: z.array(projectTag).max(100).openapi({
    description:
      'The group covers every project that has one of these tags (compared without regard to case), now or later',
  }),
  project_codes: z.array(groupProjectCode).max(1000).openapi({
    description: 'The group also covers these projects. With neither tags nor codes, the group covers every project.',
  }),
};

export const groupCreateBody = z
  .object({
    name: groupFields.name,
    description: groupFields.description.optional(),
    user_ids: groupFields.user_ids.optional(),
    domain_group: groupFields.domain_group.optional(),
    roles: groupFields.roles.optional(),
    project_tags: groupFields.project_tags.optional(),
    project_codes: groupFields.project_codes.optional(),
  })
  .strict()
  .openapi('GroupCreate');

export const groupUpdateBody = z
  .object(
    Object.fromEntries(Object.entries(groupFields).map(([k, v]) => [k, v.optional()])) as {
      [K in keyof typeof groupFields]: z.ZodOptional<(typeof groupFields)[K]>;
    },
  )
  .strict()
  .openapi('GroupUpdate', { description: 'Fields left out keep their value; a list sent replaces the stored one' });

export const groupView = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    users: z
      .array(z.object({ id: z.string(), username: z.string() }))
      .openapi({ description: 'Members named directly (deleted users are left out)' }),
    domain_group: z.array(z.string()),
    roles: z.array(z.string()),
    project_tags: z.array(z.string()),
    project_codes: z.array(z.string()),
    all_projects: z.boolean().openapi({
      description: 'True when the group names neither project tags nor project codes: its roles apply to every project',
    }),
    created_at: isoDateTime,
    updated_at: isoDateTime,
  })
  .openapi('Group');

const byGroupId = z.object({ id: z.string().min(1) });

const byUserId = z.object({ user_id: z.string().min(1) });
const byRoleCode = z.object({ role_code: z.string().min(1) });

export const meResponse = z
  .object({
    user: userView,
    permissions: z.record(z.string(), z.array(letter)),
    projects: z
      .array(z.string())
      .nullable()
      .openapi({ description: 'The projects the caller sees; null: every project' }),
    groups: z
      .array(z.object({ id: z.string(), name: z.string() }))
      .openapi({ description: 'User groups the caller is in: named, or through a directory group' }),
  })
  .openapi('Me');

export const identityRoutes = [
  {
    operationId: 'login',
    method: 'post',
    path: '/api/v1/auth/login',
    service,
    tag: 'Authentication',
    access: { kind: 'public' },
    summary: 'Log in with username and password; returns a JWT valid for 9 hours by default',
    description:
      'Failed attempts are throttled per user and per IP (429 with Retry-After). Directory users log in against the directory (LDAP), never with a local password; a name no local user has is asked of the directory when directory login is enabled.',
    request: { body: loginBody },
    response: loginResponse,
    errors: {
      401: 'Wrong username or password, a disabled directory account, or the user cannot log in locally',
      503: 'The directory (LDAP) cannot be reached',
    },
  },
  {
    operationId: 'me',
    method: 'get',
    path: '/api/v1/auth/me',
    service,
    tag: 'Authentication',
    access: { kind: 'authenticated' },
    summary: 'The caller: user, roles, groups, effective permissions and project scope',
    response: meResponse,
  },
  {
    operationId: 'logout',
    method: 'post',
    path: '/api/v1/auth/logout',
    service,
    tag: 'Authentication',
    access: { kind: 'authenticated' },
    summary: 'End the caller\u2019s login session: its token is refused from then on',
    description:
      'For a login token (POST /auth/login, single sign-on; the console\u2019s DELETE /auth/session calls it). An API token is not a session: it answers 409; revoke it with DELETE /api/v1/tokens.',
    response: z.object({ signed_out: z.literal(true) }).openapi('Logout'),
    errors: { 409: 'The caller authenticated with an API token' },
  },
  {
    operationId: 'changeOwnPassword',
    method: 'put',
    path: '/api/v1/auth/password',
    service,
    tag: 'Authentication',
    access: { kind: 'authenticated' },
    summary: 'Change the caller\u2019s own password (clears need_password_change)',
    request: { body: passwordChangeBody },
    response: userView,
  },
  {
    operationId: 'ldapAllowed',
    method: 'get',
    path: '/api/v1/ldap/allowed',
    service,
    tag: 'Authentication',
    access: { kind: 'public' },
    summary:
      'Whether LDAP login works: enabled, complete settings, and the service account binds (public: the login page asks before anyone logs in)',
    response: z.object({ allowed: z.boolean() }).openapi('LdapAllowed'),
  },
  {
    operationId: 'getLdapSettings',
    method: 'get',
    path: '/api/v1/ldap/settings',
    service,
    tag: 'Authentication',
    access: perm('settings.authentication', 'r'),
    summary: 'Directory (LDAP) login settings; the bind password is never returned, only whether one is set',
    description: 'Since release 1.5 this operation takes no body parameter `data`; a body sent with it is ignored.',
    response: ldapSettingsView,
  },
  {
    operationId: 'updateLdapSettings',
    method: 'put',
    path: '/api/v1/ldap/settings',
    service,
    tag: 'Authentication',
    access: perm('settings.authentication', 'w'),
    summary: 'Change directory (LDAP) login settings; fields left out keep their value',
    description:
      'Enabling needs complete settings (urls, bind_dn, bind_password, user_search_base): 400 naming what is missing.',
    request: { body: ldapSettingsBody },
    response: ldapSettingsView,
  },
  {
    operationId: 'testLdap',
    method: 'post',
    path: '/api/v1/ldap/test',
    service,
    tag: 'Authentication',
    access: perm('settings.authentication', 'x'),
    summary:
      'Test the saved LDAP settings: connect, TLS, bind as the service account, find the search base (and a person)',
    description:
      'Answers 200 with ok false, the failed stage and a message: unreachable server, TLS failure, bind refused, search base not found, user filter matched nothing.',
    request: { body: ldapTestBody },
    response: ldapTestResult,
  },
  {
    operationId: 'getSsoSettings',
    method: 'get',
    path: '/api/v1/sso/settings',
    service,
    tag: 'Authentication',
    access: perm('settings.authentication', 'r'),
    summary: 'Single sign-on (OIDC) settings; the client secret is never returned, only whether one is set',
    response: ssoSettingsView,
  },
  {
    operationId: 'getSsoSettingsSecureRemoved',
    method: 'get',
    path: '/api/v1/sso/settings/secure',
    service,
    tag: 'Authentication',
    access: perm('settings.authentication', 'r'),
    summary: 'Removed in release 1.5',
    gone: 'Removed in release 1.5: secrets are never returned; GET /api/v1/sso/settings shows the settings',
  },
  {
    operationId: 'copilotStatusRemoved',
    method: 'get',
    path: '/api/v1/copilot/status',
    service,
    tag: 'Authentication',
    access: { kind: 'authenticated' },
    summary: 'Removed in release 1.5',
    gone: 'Removed in release 1.5',
  },
  {
    operationId: 'updateSsoSettings',
    method: 'put',
    path: '/api/v1/sso/settings',
    service,
    tag: 'Authentication',
    access: perm('settings.authentication', 'w'),
    summary: 'Change single sign-on (OIDC) settings; fields left out keep their value',
    description:
      'Enabling needs issuer, client_id, client_secret and redirect_uri (400 naming what is missing); role codes in role_mapping must exist.',
    request: { body: ssoSettingsBody },
    response: ssoSettingsView,
  },
  {
    operationId: 'ssoLogin',
    method: 'get',
    path: '/api/v1/sso/login',
    service,
    tag: 'Authentication',
    access: { kind: 'public' },
    summary: 'Start single sign-on: 302 to the provider (authorization code with PKCE, state and nonce)',
    description:
      'The provider sends the browser back to GET /api/v1/sso/callback, which answers the login JSON. 409 while single sign-on is not enabled; 503 when the provider cannot be reached.',
    redirect: 'To the provider\u2019s authorization endpoint',
    errors: { 409: 'Single sign-on is not enabled', 503: 'The provider cannot be reached' },
  },
  {
    operationId: 'ssoCallback',
    method: 'get',
    path: '/api/v1/sso/callback',
    service,
    tag: 'Authentication',
    access: { kind: 'public' },
    summary:
      'End of single sign-on: exchanges the code and answers the same JSON as POST /auth/login (a flow started by GET /auth/session/sso ends in the session cookie and 302 to / instead)',
    description:
      'A state that was not issued here, or was used already (each is good for one try within 10 minutes), a replayed code, an ID token of another issuer or with another nonce, and an e-mail outside allowed_email_domains answer 4xx and create nothing.',
    request: {
      query: z
        .object({
          code: z.string().max(4096).optional(),
          state: z.string().max(512).optional(),
          iss: z.string().max(2048).optional(),
          session_state: z.string().max(512).optional(),
          error: z.string().max(256).optional(),
          error_description: z.string().max(2048).optional(),
          // Providers add parameters of their own (scope, authuser, hd...): they are passed on, not refused.
        })
        .catchall(z.string().max(2048)),
    },
    response: loginResponse,
    errors: {
      401: 'The provider refused, or the answer does not check out',
      403: 'The e-mail address is not verified or not in an allowed domain',
      503: 'The provider cannot be reached',
    },
  },
  {
    operationId: 'ssoAllowed',
    method: 'get',
    path: '/api/v1/sso/allowed',
    service,
    tag: 'Authentication',
    access: { kind: 'public' },
    summary:
      'Whether single sign-on works: enabled, complete settings, and the issuer’s discovery document answers (public, as for LDAP)',
    response: z.object({ allowed: z.boolean() }).openapi('SsoAllowed'),
  },
  {
    operationId: 'createToken',
    method: 'post',
    path: '/api/v1/token',
    service,
    tag: 'API tokens',
    access: { kind: 'authenticated' },
    summary: 'Create a long-lived API token for the caller; the token is shown once',
    request: { body: tokenBody },
    response: tokenCreated,
  },
  {
    operationId: 'listTokens',
    method: 'get',
    path: '/api/v1/tokens',
    service,
    tag: 'API tokens',
    access: { kind: 'authenticated' },
    summary: 'The caller\u2019s API tokens, without secrets',
    request: {
      query: bracketQuery(z.object({ ...pageQuery, 'filter[include_revoked]': queryBool.optional() }).strict()),
    },
    response: listOf(tokenView, 'TokenList'),
  },
  {
    operationId: 'revokeTokens',
    method: 'delete',
    path: '/api/v1/tokens',
    service,
    tag: 'API tokens',
    access: { kind: 'authenticated' },
    summary:
      'Revoke API tokens by id: the caller\u2019s own, or anyone\u2019s with administration.users:d. Refused at once everywhere.',
    request: { body: idsBody },
    response: bulkResult,
  },
  {
    operationId: 'revokeTokenRemoved',
    method: 'delete',
    path: '/api/v1/token/{id}',
    service,
    tag: 'API tokens',
    access: { kind: 'authenticated' },
    summary: 'Removed in release 1.5',
    gone: 'Removed in release 1.5: use DELETE /api/v1/tokens with { "ids": [...] }',
  },
  {
    operationId: 'createRole',
    method: 'post',
    path: '/api/v1/role',
    service,
    tag: 'Roles',
    access: perm('administration.roles', 'w'),
    summary: 'Create a role',
    request: { body: roleCreateBody },
    response: roleView,
  },
  {
    operationId: 'listRoles',
    method: 'get',
    path: '/api/v1/roles',
    service,
    tag: 'Roles',
    access: perm('administration.roles', 'r'),
    summary: 'List roles',
    request: {
      query: bracketQuery(
        z
          .object({
            ...pageQuery,
            'search[id]': z.string().max(255).optional(),
            'search[name]': z.string().max(255).optional(),
          })
          .strict(),
      ),
    },
    response: listOf(roleView, 'RoleList'),
  },
  {
    operationId: 'getRole',
    method: 'get',
    path: '/api/v1/role/{role_code}',
    service,
    tag: 'Roles',
    access: perm('administration.roles', 'r'),
    summary: 'Get a role by code',
    request: { params: byRoleCode },
    response: roleView,
  },
  {
    operationId: 'deleteRoleRemoved',
    method: 'delete',
    path: '/api/v1/role/{role_code}',
    service,
    tag: 'Roles',
    access: perm('administration.roles', 'd'),
    summary: 'Removed in release 1.5',
    gone: 'Removed in release 1.5: use DELETE /api/v1/roles with { "ids": [...] }',
  },
  {
    operationId: 'updateRole',
    method: 'put',
    path: '/api/v1/role/{role_code}',
    service,
    tag: 'Roles',
    access: perm('administration.roles', 'w'),
    summary: 'Update a role (the built-in admin role cannot be changed)',
    request: { params: byRoleCode, body: roleUpdateBody },
    response: roleView,
  },
  {
    operationId: 'deleteRoles',
    method: 'delete',
    path: '/api/v1/roles',
    service,
    tag: 'Roles',
    access: perm('administration.roles', 'd'),
    summary:
      'Delete roles by code. A role still held by users or user groups is refused (conflict) unless `detach` is true.',
    request: {
      body: z.object({ ids: idsBody.shape.ids, detach: z.boolean().optional() }).strict().openapi('RoleDelete'),
    },
    response: bulkResult,
  },
  {
    operationId: 'createUser',
    method: 'post',
    path: '/api/v1/user',
    service,
    tag: 'Users',
    access: perm('administration.users', 'w'),
    summary: 'Create a user',
    description: 'One user more than the license allows answers 409 naming the limit (GET /api/v1/license).',
    request: { body: userCreateBody },
    response: userView,
  },
  {
    operationId: 'listUsers',
    method: 'get',
    path: '/api/v1/users',
    service,
    tag: 'Users',
    access: perm('administration.users', 'r'),
    summary: 'List users',
    request: {
      query: bracketQuery(
        z
          .object({
            ...pageQuery,
            'filter[deleted_only]': queryBool.optional(),
            'filter[with_deleted]': queryBool.optional(),
            'filter[need_password_change]': queryBool.optional(),
            'filter[role]': z.string().max(64).optional(),
            'filter[active_directory]': queryBool.optional(),
            'search[username]': z.string().max(255).optional(),
            'search[display_name]': z.string().max(255).optional(),
            'search[email]': z.string().max(255).optional(),
          })
          .strict(),
      ),
    },
    response: listOf(userView, 'UserList'),
  },
  {
    operationId: 'getUser',
    method: 'get',
    path: '/api/v1/user/{user_id}',
    service,
    tag: 'Users',
    access: perm('administration.users', 'r'),
    summary: 'Get a user (also a deleted one)',
    request: { params: byUserId },
    response: userView,
  },
  {
    operationId: 'updateUser',
    method: 'put',
    path: '/api/v1/user/{user_id}',
    service,
    tag: 'Users',
    access: perm('administration.users', 'w'),
    summary: 'Update a user; a new password needs password_confirmation',
    request: { params: byUserId, body: userUpdateBody },
    response: userView,
  },
  {
    operationId: 'deleteUsers',
    method: 'delete',
    path: '/api/v1/users',
    service,
    tag: 'Users',
    access: perm('administration.users', 'd'),
    summary: 'Soft-delete users by id; their tokens stop working at once',
    request: { body: idsBody },
    response: bulkResult,
  },
  {
    operationId: 'restoreUsers',
    method: 'put',
    path: '/api/v1/restore-users',
    service,
    tag: 'Users',
    access: perm('administration.users', 'w'),
    summary: 'Restore soft-deleted users by id',
    description: 'A user the license\u2019s users limit has no room for is a conflict.',
    request: { body: idsBody },
    response: bulkResult,
  },
  {
    operationId: 'createGroup',
    method: 'post',
    path: '/api/v1/group',
    service,
    tag: 'Groups',
    access: perm('administration.groups', 'w'),
    summary: 'Create a user group: members (users and directory groups), roles, and the projects it covers',
    description:
      'A member holds the group\u2019s roles, each limited to the projects the group covers (project_tags and project_codes; neither: every project), on top of their own roles. The built-in admin role can only be granted by a group that covers every project.',
    request: { body: groupCreateBody },
    response: groupView,
    errors: { 409: 'A group of that name exists' },
  },
  {
    operationId: 'listGroups',
    method: 'get',
    path: '/api/v1/groups',
    service,
    tag: 'Groups',
    access: perm('administration.groups', 'r'),
    summary: 'List user groups',
    description:
      'search[name] matches part of the name; search[project_tags] matches part of one of the group\u2019s project tags; both without regard to case.',
    request: {
      query: bracketQuery(
        z
          .object({
            ...pageQuery,
            'search[name]': z.string().max(255).optional(),
            'search[project_tags]': z.string().max(255).optional(),
          })
          .strict(),
      ),
    },
    response: listOf(groupView, 'GroupList'),
  },
  {
    operationId: 'getGroup',
    method: 'get',
    path: '/api/v1/group/{id}',
    service,
    tag: 'Groups',
    access: perm('administration.groups', 'r'),
    summary: 'Get a user group',
    request: { params: byGroupId },
    response: groupView,
  },
  {
    operationId: 'updateGroup',
    method: 'put',
    path: '/api/v1/group/{id}',
    service,
    tag: 'Groups',
    access: perm('administration.groups', 'w'),
    summary: 'Change a user group; fields left out keep their value',
    description: 'Refused (409) when it would leave no administrator who can log in.',
    request: { params: byGroupId, body: groupUpdateBody },
    response: groupView,
    errors: { 409: 'A group of that name exists, or the change would leave no administrator who can log in' },
  },
  {
    operationId: 'deleteGroups',
    method: 'delete',
    path: '/api/v1/groups',
    service,
    tag: 'Groups',
    access: perm('administration.groups', 'd'),
    summary: 'Delete user groups by id; their members lose the rights the groups gave at once',
    description: 'A group whose removal would leave no administrator who can log in is refused (conflict).',
    request: { body: idsBody },
    response: bulkResult,
  },
  {
    operationId: 'removedDeleteGroup',
    method: 'delete',
    path: '/api/v1/group/{id}',
    service,
    tag: 'Groups',
    access: perm('administration.groups', 'd'),
    summary: 'Removed in release 1.5',
    gone: 'Removed in release 1.5: use DELETE /api/v1/groups with { "ids": [...] }',
  },
  {
    operationId: 'listPermissions',
    method: 'get',
    path: '/api/v1/permissions',
    service,
    tag: 'Roles',
    access: { kind: 'authenticated' },
    summary: 'The permission catalogue: keys and letters',
    response: z
      .object({
        keys: z.array(z.object({ key: z.string(), description: z.string() })),
        letters: z.record(z.string(), z.string()),
      })
      .openapi('PermissionCatalogue'),
  },
  {
    operationId: 'checkPermission',
    method: 'get',
    path: '/api/v1/permissions/check',
    service,
    tag: 'Roles',
    access: { kind: 'authenticated' },
    summary: 'Whether the caller holds a permission key with a letter',
    request: { query: z.object({ key: z.string().min(1).max(128), letter }).strict() },
    response: z.object({ key: z.string(), letter, allowed: z.boolean() }).openapi('PermissionCheck'),
  },
] as const satisfies readonly RouteSpec[];
