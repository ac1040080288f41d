import type { FieldProblem } from '@bulwark/platform';
import { httpAuthMethod, SourceAuthMethod, SourceType } from '@bulwark/contracts';
import { settingsProblems } from './tool-settings';

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
 * The connection a write asks for: the given settings over the stored ones (a secret left out keeps
 * the stored one), checked against the type. Anonymous drops login and password; SSH keeps only the key.
 */
export function resolveConnection(
  type: SourceType,
  input: SourceSettingsInput,
  stored?: SourceConnection,
): { connection: SourceConnection; problems: FieldProblem[] } {
  const given = (value: string | null | undefined) => value ?? undefined;
  // The stored method stands while the update asks for none, neither by auth_method nor by a login or password.
  const storedMethod =
    type.transport === 'http' && stored && stored.authMethod !== 'SSH key' && !input.login && !input.password
      ? stored.authMethod
      : undefined;
  const settings = {
    url: input.url ?? given(stored?.url),
    branch_name: input.branch_name ?? given(stored?.branchName),
    auth_method: input.auth_method ?? storedMethod,
    login: input.login ?? given(stored?.login),
    password: input.password ?? given(stored?.password),
    ssh_private_key: input.ssh_private_key ?? given(stored?.sshPrivateKey),
  };
  const parsed = type.schema.safeParse(settings);
  const problems = parsed.success ? [] : settingsProblems(parsed.error);
  const authMethod = type.transport === 'ssh' ? 'SSH key' : httpAuthMethod(settings);
  const connection: SourceConnection = {
    url: settings.url ?? '',
    branchName: settings.branch_name ?? null,
    authMethod,
    login: authMethod === 'Login/Password' ? (settings.login ?? null) : null,
    password: authMethod === 'Login/Password' ? (settings.password ?? null) : null,
    sshPrivateKey: authMethod === 'SSH key' ? (settings.ssh_private_key ?? null) : null,
  };
  return { connection, problems };
}
