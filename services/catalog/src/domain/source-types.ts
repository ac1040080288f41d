import { FieldProblem, isSshUrl } from '@bulwark/platform';

export type SourceAuthMethod = 'Login/Password' | 'Anonymous' | 'SSH key';
export type GitTransport = 'http' | 'ssh';

export interface SettingSpec {
  name: string;
  required: boolean;
  secret: boolean;
  description: string;
}

export interface SourceType {
  id: number;
  name: string;
  description: string;
  transport: GitTransport;
  authMethods: SourceAuthMethod[];
  settings: SettingSpec[];
}

const url = (description: string): SettingSpec => ({ name: 'url', required: true, secret: false, description });
const branch: SettingSpec = {
  name: 'branch_name',
  required: false,
  secret: false,
  description: 'Branch to scan; the default branch when absent',
};

export const SOURCE_TYPES: SourceType[] = [
  {
    id: 1,
    name: 'Git (HTTP/HTTPS)',
    transport: 'http',
    authMethods: ['Login/Password', 'Anonymous'],
    description:
      'A Git repository over smart HTTP(S), anonymous or with login and password (or access token as password)',
    settings: [
      url('http:// or https:// address of the repository, without credentials'),
      branch,
      {
        name: 'auth_method',
        required: false,
        secret: false,
        description: 'Login/Password or Anonymous; Login/Password when a login is given',
      },
      { name: 'login', required: false, secret: false, description: 'Required with Login/Password' },
      {
        name: 'password',
        required: false,
        secret: true,
        description: 'Required with Login/Password; stored encrypted, never returned',
      },
    ],
  },
  {
    id: 2,
    name: 'Git (SSH)',
    transport: 'ssh',
    authMethods: ['SSH key'],
    description: 'A Git repository over SSH with a private key (the host key is trusted on first use)',
    settings: [
      url('ssh://user@host[:port]/path or user@host:path'),
      branch,
      { name: 'auth_method', required: false, secret: false, description: 'SSH key' },
      {
        name: 'ssh_private_key',
        required: true,
        secret: true,
        description: 'OpenSSH private key without passphrase; stored encrypted, never returned',
      },
    ],
  },
];

export const sourceType = (id: number) => SOURCE_TYPES.find((t) => t.id === id);

/** A source's connection with its secrets in plain text; only the domain and the probe see it. */
export interface SourceConnection {
  url: string;
  branchName: string | null;
  authMethod: SourceAuthMethod;
  login: string | null;
  password: string | null;
  sshPrivateKey: string | null;
}

export interface SourceSettingsInput {
  url?: string;
  branch_name?: string;
  auth_method?: SourceAuthMethod;
  login?: string;
  password?: string;
  ssh_private_key?: string;
}

/**
 * Only the transports a type names: http(s) or ssh. Anything else (file://, ext::, git://, local
 * paths) is refused, so a connection test cannot be turned against the server itself.
 */
export function urlProblem(transport: GitTransport, value: string): string | undefined {
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
 * The connection a write asks for: the given settings over the stored ones (a secret left out keeps
 * the stored one), checked against the type. Anonymous drops login and password; SSH keeps only the key.
 */
export function resolveConnection(
  type: SourceType,
  input: SourceSettingsInput,
  stored?: SourceConnection,
): { connection: SourceConnection; problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  const merged = {
    url: input.url ?? stored?.url ?? '',
    branchName: input.branch_name ?? stored?.branchName ?? null,
    login: input.login ?? stored?.login ?? null,
    password: input.password ?? stored?.password ?? null,
    sshPrivateKey: input.ssh_private_key ?? stored?.sshPrivateKey ?? null,
  };
  const givenMethod = input.auth_method;
  let authMethod: SourceAuthMethod;
  if (type.transport === 'ssh') authMethod = 'SSH key';
  else if (givenMethod) authMethod = givenMethod;
  else if (input.login || input.password) authMethod = 'Login/Password';
  else authMethod = stored && stored.authMethod !== 'SSH key' ? stored.authMethod : 'Anonymous';
  if (givenMethod && !type.authMethods.includes(givenMethod)) {
    problems.push({
      field: 'settings.auth_method',
      problem: `must be one of ${type.authMethods.join(', ')} for ${type.name}`,
    });
  }
  if (!merged.url) problems.push({ field: 'settings.url', problem: 'is required' });
  else {
    const bad = urlProblem(type.transport, merged.url);
    if (bad) problems.push({ field: 'settings.url', problem: bad });
  }
  const connection: SourceConnection = {
    url: merged.url,
    branchName: merged.branchName,
    authMethod,
    login: null,
    password: null,
    sshPrivateKey: null,
  };
  if (authMethod === 'Login/Password') {
    if (!merged.login) problems.push({ field: 'settings.login', problem: 'is required with Login/Password' });
    if (!merged.password) problems.push({ field: 'settings.password', problem: 'is required with Login/Password' });
    connection.login = merged.login;
    connection.password = merged.password;
  } else if (authMethod === 'SSH key') {
    if (!merged.sshPrivateKey)
      problems.push({ field: 'settings.ssh_private_key', problem: 'is required for Git over SSH' });
    else if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(merged.sshPrivateKey))
      problems.push({ field: 'settings.ssh_private_key', problem: 'must be a PEM or OpenSSH private key' });
    connection.sshPrivateKey = merged.sshPrivateKey;
  }
  return { connection, problems };
}
