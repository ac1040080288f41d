import { z } from '../zod';
import { isoDateTime, nonBlank, NOT_BLANK_PATTERN, WEB_URL_PATTERN } from '../common';
import { emptyWhenContains, FieldRule, propertyNames, requiredWith, withFieldRules } from '../field-rules';
import { ADMIN_ROLE, ALL_LETTERS, PERMISSION_KEYS } from '../permissions';

export const password = z.string().min(1).max(1024);

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
    name: nonBlank(255),
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

export const letter = z.enum(ALL_LETTERS as ['r', 'w', 'x', 'd']);

export const roleCode = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_.-]+$/, 'may contain only letters, digits, "_", "." and "-"');

export const systemScope = z
  .string()
  .regex(/^project:[A-Za-z0-9_.-]+$/, 'must be "project:<project_code>"')
  .openapi({ description: 'A project the role is limited to, as "project:<project_code>"' });

export const roleFields = {
  role_name: nonBlank(255),
  roles: z.record(z.string(), z.array(letter)).openapi({
    description: 'Permission key -> letters (r, w, x, d)',
    // Validation refuses any other key (the identity service, from the same catalogue).
    ...propertyNames(PERMISSION_KEYS.map((k) => k.key)),
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

export const username = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9_.@-]+$/, 'may contain only letters, digits and "_", ".", "@", "-"');

/** An e-mail address as zod's check takes it, which the document states with the same regex (format email is wider). */
export const emailAddress = z.email().max(320).openapi({ pattern: z.regexes.email.source });

/** The least PASSWORD_MIN_LENGTH can be set to: every new local password has at least this many characters. */
export const PASSWORD_LEAST_LENGTH = 8;

/**
 * A new local password. The password policy checks it in the identity service: at least
 * PASSWORD_MIN_LENGTH characters (12 by default, never fewer than PASSWORD_LEAST_LENGTH), not blank,
 * and not easily guessed. The document states the part every deployment enforces.
 */
const newPassword = z
  .string()
  .max(1024)
  .openapi({
    minLength: PASSWORD_LEAST_LENGTH,
    pattern: NOT_BLANK_PATTERN,
    description: `At least PASSWORD_MIN_LENGTH characters (12 by default; never fewer than ${PASSWORD_LEAST_LENGTH}), not blank, and not a common or easily guessed password (zxcvbn score 3 or more)`,
  });

/** password_confirmation must come with a password (and equal it: the identity service checks that). */
const confirmed = requiredWith('password_confirmation', 'password', 'is required');

/** A new user has a local password unless it is a directory user, which has none. */
const localPasswordUnlessDirectory: FieldRule = {
  problem: (v) => {
    if (v.active_directory === true)
      return v.password ? { field: 'password', message: 'must be absent when active_directory is true' } : undefined;
    return v.password === undefined || v.password === '' ? { field: 'password', message: 'is required' } : undefined;
  },
  schema: {
    if: { properties: { active_directory: { const: true } }, required: ['active_directory'] },
    then: { properties: { password: { maxLength: 0 } } },
    else: { properties: { password: { minLength: 1 } }, required: ['password'] },
  },
};

export const userCreateBody = withFieldRules(
  z
    .object({
      username,
      password: newPassword.optional().openapi({ description: 'Required unless active_directory is true' }),
      password_confirmation: z.string().max(1024).optional(),
      display_name: z.string().max(255).optional(),
      email: emailAddress.optional(),
      need_password_change: z.boolean().optional(),
      active_directory: z.boolean().optional(),
      roles: z.array(z.string().min(1)).max(100).optional().openapi({ description: 'Role codes' }),
    })
    .strict(),
  [confirmed, localPasswordUnlessDirectory],
).openapi('UserCreate');

export const userUpdateBody = withFieldRules(
  z
    .object({
      password: newPassword.optional(),
      password_confirmation: z.string().max(1024).optional(),
      display_name: z.string().max(255).optional(),
      email: emailAddress.nullable().optional(),
      need_password_change: z.boolean().optional(),
      active_directory: z.boolean().optional(),
      roles: z.array(z.string().min(1)).max(100).optional(),
    })
    .strict(),
  [confirmed],
).openapi('UserUpdate');

export const passwordChangeBody = z
  .object({
    current_password: z.string().min(1).max(1024),
    password: newPassword,
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

export const ldapUrl = z
  .string()
  .max(2048)
  .regex(/^ldaps?:\/\/[^\s\u0000/?#]+\/?$/, 'must be ldap://host[:port] or ldaps://host[:port]')
  .openapi({ example: 'ldaps://dc1.example.com:636' });

export const dn = nonBlank(1024);

export const ldapFilter = z
  .string()
  .trim()
  .min(3)
  .max(2048)
  .regex(/^\([^\u0000]*\)$/, 'must be an LDAP filter in parentheses');

export const attribute = z
  .string()
  .trim()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z][A-Za-z0-9-]*$/, 'must be an attribute name');

export const ldapFields = {
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
      // Both checks as one pattern: a filter in parentheses that contains {username}.
      pattern: '^\\([\\s\\S]*\\{username\\}[\\s\\S]*\\)$',
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

/** The identity service also parses it (URL.canParse): the document states the web addresses that always parse. */
export const httpUrl = z
  .string()
  .max(2048)
  .regex(/^https?:\/\/[^\s\u0000/?#]+(\/[^\s\u0000?#]*)?$/, 'must be an http(s) URL without query or fragment')
  .openapi({ pattern: WEB_URL_PATTERN.replace('[Hh][Tt][Tt][Pp][Ss]?', 'https?') });

export const emailDomain = z
  .string()
  .min(1)
  .max(253)
  .regex(/^[a-z0-9.-]+\.[a-z]{2,}$/, 'must be a domain such as example.com');

/** The groups role_mapping names: zod-to-openapi leaves a record's key schema out, so the document states it here. */
const GROUP_NAMES: Record<string, unknown> = { propertyNames: { minLength: 1, maxLength: 512 } };

export const ssoFields = {
  enabled: z.boolean().openapi({ description: 'Whether single sign-on is offered' }),
  issuer: httpUrl.openapi({
    description: 'Issuer URL; its /.well-known/openid-configuration is read (discovery)',
    example: 'https://login.example.com/realms/main',
  }),
  client_id: nonBlank(512),
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
  groups_claim: nonBlank(128).openapi({
    description: 'The claim (of the ID token or userinfo) that lists the person\u2019s groups',
  }),
  role_mapping: z.record(z.string().min(1).max(512), z.array(z.string().min(1).max(64)).max(100)).openapi({
    ...GROUP_NAMES,
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

export const projectTag = nonBlank(64);

export const groupProjectCode = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/,
    'must be a project code: 1-64 letters, digits, "_", "." or "-", starting with a letter or digit',
  );

export const directoryEntry = nonBlank(512);

export const groupFields = {
  name: nonBlank(255).openapi({ description: 'Unique, in any case' }),
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

/** What the identity service also checks of a group after an update merges it with the stored one. */
export const ADMIN_GROUP_PROBLEM =
  'the built-in admin role holds every permission on every project: a group that grants it must name neither project_tags nor project_codes';

export const groupCreateBody = withFieldRules(
  z
    .object({
      name: groupFields.name,
      description: groupFields.description.optional(),
      user_ids: groupFields.user_ids.optional(),
      domain_group: groupFields.domain_group.optional(),
      roles: groupFields.roles.optional(),
      project_tags: groupFields.project_tags.optional(),
      project_codes: groupFields.project_codes.optional(),
    })
    .strict(),
  [emptyWhenContains(['project_tags', 'project_codes'], 'roles', ADMIN_ROLE, ADMIN_GROUP_PROBLEM)],
).openapi('GroupCreate');

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

export const byGroupId = z.object({ id: z.string().min(1) });

export const byUserId = z.object({ user_id: z.string().min(1) });

export const byRoleCode = z.object({ role_code: z.string().min(1) });

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
