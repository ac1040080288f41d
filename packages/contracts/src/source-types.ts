import { isSshUrl } from '@bulwark/platform';
import { nonBlank, WEB_URL_PATTERN } from './common';
import { describeSettings, SettingSpec } from './setting-specs';
import { z } from './zod';

/**
 * The source-type registry: the one place that says, per source type, how its repository is reached
 * and which settings it takes. The catalog lists and validates from it; the OpenAPI document states
 * each type's settings from the same schemas (`schemaPerType`).
 */
export const SOURCE_AUTH_METHODS = ['Login/Password', 'Anonymous', 'SSH key'] as const;
export type SourceAuthMethod = (typeof SOURCE_AUTH_METHODS)[number];
export type GitTransport = 'http' | 'ssh';

export interface SourceType {
  id: number;
  name: string;
  description: string;
  transport: GitTransport;
  authMethods: SourceAuthMethod[];
  /** What GET /api/v1/source-types lists, read from `schema`'s fields. */
  settings: SettingSpec[];
  /** The settings a source of this type is stored with (given over the stored ones on an update). */
  schema: z.ZodType;
  /** Each setting on its own, as an update may give any of them. */
  changes: z.ZodType;
}

/**
 * Only the transports a type names: http(s) or ssh. Anything else (file://, ext::, git://, local
 * paths) is refused, so a connection test cannot be turned against the server itself.
 */
function urlProblem(transport: GitTransport, value: string): string | undefined {
  if (transport === 'ssh') {
    if (isSshUrl(value) && !value.startsWith('ssh://')) return undefined;
    let parsed: URL;
    try {
      parsed = new URL(value);
    } catch {
      return 'must be ssh://user@host[:port]/path or user@host:path';
    }
    if (parsed.protocol !== 'ssh:' || !/^[A-Za-z0-9]/.test(parsed.hostname) || parsed.password)
      return 'must be ssh://user@host[:port]/path or user@host:path';
    return undefined;
  }
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    return 'must be an http:// or https:// URL';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    return 'must be an http:// or https:// URL (other transports are refused)';
  if (!parsed.hostname) return 'must name a host';
  if (parsed.username || parsed.password) return 'must not contain credentials: use login and password';
  return undefined;
}

/**
 * What the document says of a Git address per transport, narrower than what urlProblem takes (a host
 * name, a plain path): every address of the pattern is one the check accepts.
 */
const SSH_URL_PATTERN =
  '^(ssh://([A-Za-z0-9._-]+@)?[A-Za-z0-9][A-Za-z0-9.-]*(:[0-9]{1,4})?/[A-Za-z0-9._~/-]*' +
  '|[A-Za-z0-9][A-Za-z0-9._-]*@[A-Za-z0-9][A-Za-z0-9.-]*:[A-Za-z0-9._~-][A-Za-z0-9._~/-]*)$';
const URL_PATTERNS: Record<GitTransport, string> = { http: WEB_URL_PATTERN, ssh: SSH_URL_PATTERN };

/** An address of any transport: what a body that names no type states (each type's own states its transport's). */
export const GIT_URL_PATTERN = Object.values(URL_PATTERNS)
  .map((p) => `(${p})`)
  .join('|');

const gitUrl = (transport: GitTransport, description: string) =>
  nonBlank(2048)
    .superRefine((value, ctx) => {
      const problem = urlProblem(transport, value);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .openapi({ pattern: URL_PATTERNS[transport], description });

const branchName = z
  .string()
  .min(1)
  .max(255)
  .regex(
    /^(?!-)[A-Za-z0-9._\/-]+$/,
    'must be a branch name (letters, digits, "_", ".", "/", "-"; not starting with "-")',
  );

export const branchSetting = branchName
  .optional()
  .openapi({ description: 'Branch to scan; the repository\u2019s default branch when absent' });
const login = z.string().max(255);
const password = z.string().max(4096);
const sshPrivateKey = z.string().max(16384);
const ignoredBy = (name: string) => ({ description: `Accepted and ignored by ${name}` });
/** Settings stored encrypted and never returned. */
const SECRET_SOURCE_SETTINGS = ['password', 'ssh_private_key'];

/** A key as ssh-keygen or OpenSSL writes it. */
const PRIVATE_KEY = /-----BEGIN [A-Z ]*PRIVATE KEY-----/;

/** The method an HTTP(S) source's settings ask for: the given one, else Login/Password when a login or password is given. */
export function httpAuthMethod(s: { auth_method?: string; login?: string; password?: string }): SourceAuthMethod {
  if (s.auth_method === 'Login/Password' || s.auth_method === 'Anonymous') return s.auth_method;
  return s.login || s.password ? 'Login/Password' : 'Anonymous';
}

const LOGIN_PASSWORD = 'Login/Password';
/**
 * A login or password given, not empty, while auth_method is not Anonymous (the only other method
 * of the type, so: absent, or Login/Password).
 */
const asksWith = (field: string) => ({
  required: [field],
  properties: { [field]: { minLength: 1 }, auth_method: { not: { const: 'Anonymous' } } },
});

/** Login/Password asked for (given, or by a login or password without auth_method) needs both, not empty. */
const CREDENTIALS_SCHEMA: Record<string, unknown> = {
  if: {
    anyOf: [
      { required: ['auth_method'], properties: { auth_method: { const: LOGIN_PASSWORD } } },
      asksWith('login'),
      asksWith('password'),
    ],
  },
  then: { required: ['login', 'password'], properties: { login: { minLength: 1 }, password: { minLength: 1 } } },
};

/** The rule above, checked here and stated in the schema from the same place. */
function withCredentialsRule<T extends z.ZodObject>(object: T) {
  return object
    .superRefine((value, ctx) => {
      const v = value as { auth_method?: string; login?: string; password?: string };
      if (httpAuthMethod(v) !== LOGIN_PASSWORD) return;
      for (const field of ['login', 'password'] as const)
        if (!v[field]) ctx.addIssue({ code: 'custom', path: [field], message: `is required with ${LOGIN_PASSWORD}` });
    })
    .openapi(CREDENTIALS_SCHEMA);
}

const GIT_HTTP = 'Git (HTTP/HTTPS)';
const GIT_SSH = 'Git (SSH)';
const HTTP_METHODS: SourceAuthMethod[] = ['Login/Password', 'Anonymous'];
const SSH_METHODS: SourceAuthMethod[] = ['SSH key'];
const authMethod = (methods: SourceAuthMethod[], typeName: string) =>
  z.enum(methods as [SourceAuthMethod, ...SourceAuthMethod[]], {
    error: () => `must be one of ${methods.join(', ')} for ${typeName}`,
  });

// A source's settings keep one shape across types: each type accepts the others' fields and ignores them.
const ignoredByHttp = { ssh_private_key: sshPrivateKey.optional().openapi(ignoredBy(GIT_HTTP)) };
const ignoredBySsh = {
  login: login.optional().openapi(ignoredBy(GIT_SSH)),
  password: password.optional().openapi(ignoredBy(GIT_SSH)),
};

const gitHttpFields = z
  .object({
    url: gitUrl('http', 'http:// or https:// address of the repository, without credentials'),
    branch_name: branchSetting,
    auth_method: authMethod(HTTP_METHODS, GIT_HTTP)
      .optional()
      .openapi({ description: 'Login/Password or Anonymous; Login/Password when a login or password is given' }),
    login: login.optional().openapi({ description: 'Required with Login/Password' }),
    password: password
      .optional()
      .openapi({ description: 'Required with Login/Password; stored encrypted, never returned' }),
    ...ignoredByHttp,
  })
  .strict();

const gitSshFields = z
  .object({
    url: gitUrl('ssh', 'ssh://user@host[:port]/path or user@host:path'),
    branch_name: branchSetting,
    auth_method: authMethod(SSH_METHODS, GIT_SSH)
      .optional()
      .openapi({ description: 'SSH key, the only method of this type' }),
    ...ignoredBySsh,
    ssh_private_key: z
      .string({ error: (issue) => (issue.input === undefined ? 'is required for Git over SSH' : undefined) })
      .max(16384)
      .regex(PRIVATE_KEY, 'must be a PEM or OpenSSH private key')
      .openapi({ description: 'OpenSSH private key without passphrase; stored encrypted, never returned' }),
  })
  .strict();

export const SOURCE_TYPES: SourceType[] = [
  {
    id: 1,
    name: GIT_HTTP,
    transport: 'http',
    authMethods: HTTP_METHODS,
    description:
      'A Git repository over smart HTTP(S), anonymous or with login and password (or access token as password)',
    settings: describeSettings(gitHttpFields, {
      secret: SECRET_SOURCE_SETTINGS,
      ignored: Object.keys(ignoredByHttp),
    }),
    schema: withCredentialsRule(gitHttpFields).openapi('GitHttpSourceSettings', {
      description: `The settings of a ${GIT_HTTP} source (source_type_id 1)`,
    }),
    changes: gitHttpFields.partial().openapi('GitHttpSourceSettingsChanges', {
      description: `Settings of a ${GIT_HTTP} source an update changes; the others are kept`,
    }),
  },
  {
    id: 2,
    name: GIT_SSH,
    transport: 'ssh',
    authMethods: SSH_METHODS,
    description: 'A Git repository over SSH with a private key (the host key is trusted on first use)',
    settings: describeSettings(gitSshFields, { secret: SECRET_SOURCE_SETTINGS, ignored: Object.keys(ignoredBySsh) }),
    schema: gitSshFields.openapi('GitSshSourceSettings', {
      description: `The settings of a ${GIT_SSH} source (source_type_id 2)`,
    }),
    changes: gitSshFields.partial().openapi('GitSshSourceSettingsChanges', {
      description: `Settings of a ${GIT_SSH} source an update changes; the others are kept`,
    }),
  },
];

export const sourceType = (id: number) => SOURCE_TYPES.find((t) => t.id === id);
