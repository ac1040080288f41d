import { EgressProxy, GitSession, gitHost, unreachableMessage } from '@bulwark/platform';
import type { GitTransport } from '@bulwark/contracts';
import { SourceConnection } from './source-connection';

export interface ProbeResult {
  ok: boolean;
  message: string;
  default_branch?: string;
  branches?: string[];
}

const MAX_BRANCHES = 200;

/** ls-remote --symref output: the default branch and the branch names. */
export function parseLsRemote(stdout: string): { defaultBranch?: string; branches: string[] } {
  let defaultBranch: string | undefined;
  const branches: string[] = [];
  for (const line of stdout.split('\n')) {
    const symref = /^ref: refs\/heads\/(\S+)\tHEAD$/.exec(line);
    if (symref) defaultBranch = symref[1];
    const head = /^[0-9a-f]{40,64}\trefs\/heads\/(\S+)$/.exec(line);
    if (head) branches.push(head[1]);
  }
  return { defaultBranch, branches: branches.sort() };
}

/** One clear message per kind of failure; git's own words only where they help and hold no secret. */
export function explainFailure(stderr: string, host: string, anonymous: boolean): string {
  const has = (re: RegExp) => re.test(stderr);
  if (
    has(
      /Authentication failed|could not read Username|could not read Password|returned error: 40[13]|HTTP 40[13]|Permission denied \(|Permission denied, please try again/i,
    )
  ) {
    return anonymous
      ? `Authentication refused: the repository at ${host} does not allow anonymous access`
      : `Authentication refused: the repository at ${host} did not accept the credentials`;
  }
  // Names are resolved and connections opened by the egress proxy; what is left here is a host that
  // accepted the connection and then dropped it.
  if (has(/Connection reset|Connection closed by/i)) return unreachableMessage(host);
  if (has(/SSL|certificate|TLS/)) return `TLS error talking to ${host}: the certificate or protocol was refused`;
  if (
    has(
      /not found|does not appear to be a git repository|not valid: is this a git repository|returned error: 404|dumb http transport|unexpected content-type|not a git repository/i,
    )
  ) {
    return `Not a Git repository: ${host} answered, but not as a Git repository at this URL`;
  }
  const first =
    stderr
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l.length > 0) ?? 'no output';
  return `Git could not read the repository: ${first.replace(/\/\/[^/@\s]*@/g, '//').slice(0, 300)}`;
}

/**
 * Contacts the repository with `git ls-remote` as a connection test. Credentials travel only through
 * the environment of the child (askpass) or a key file in a private temporary folder; user and
 * system git configuration are ignored; only the type's transports are allowed, also on redirects.
 * Every connection passes the outbound policy (through `egress`); a host that was not reached gets
 * one answer, whether its address is refused, nothing listens or a firewall drops the connection, so
 * the test cannot be used to scan ports.
 */
export async function probeGit(
  transport: GitTransport,
  conn: SourceConnection,
  timeoutMs: number,
  egress: EgressProxy,
): Promise<ProbeResult> {
  const seconds = Math.max(1, Math.ceil(timeoutMs / 1000));
  const session = new GitSession(
    {
      url: conn.url,
      authMethod: conn.authMethod,
      login: conn.login ?? undefined,
      password: conn.password ?? undefined,
      sshPrivateKey: conn.sshPrivateKey ?? undefined,
    },
    { timeoutSeconds: seconds, transport, egress },
  );
  try {
    const host = gitHost(conn.url);
    const run = await session.run(['ls-remote', '--symref', conn.url], { timeoutMs });
    if (run.spawnError) return { ok: false, message: `Git is not available on the server: ${run.spawnError.message}` };
    if (run.code !== 0 && session.unreachable) return { ok: false, message: unreachableMessage(host) };
    if (run.timedOut)
      return { ok: false, message: `Host unreachable: ${host} did not answer within ${seconds} s (timed out)` };
    if (run.code !== 0)
      return { ok: false, message: explainFailure(run.stderr, host, conn.authMethod === 'Anonymous') };
    const { defaultBranch, branches } = parseLsRemote(run.stdout);
    // A web page read as dumb HTTP lists nothing, like an empty repository: neither can be scanned.
    if (!defaultBranch && branches.length === 0) {
      return {
        ok: false,
        message: `Not a Git repository: ${host} answered without any Git branch at this URL (not a repository, or an empty one)`,
      };
    }
    const listed = branches.slice(0, MAX_BRANCHES);
    const base = { default_branch: defaultBranch, branches: listed };
    if (conn.branchName && !branches.includes(conn.branchName)) {
      const known = listed.length > 0 ? listed.slice(0, 20).join(', ') : 'none';
      return {
        ok: false,
        message: `Unknown branch: "${conn.branchName}" does not exist in the repository (branches: ${known})`,
        ...base,
      };
    }
    const which = conn.branchName
      ? `branch "${conn.branchName}" found`
      : `default branch ${defaultBranch ?? 'unknown'}`;
    return { ok: true, message: `Connected to ${host}: ${branches.length} branch(es), ${which}`, ...base };
  } finally {
    session.close();
  }
}
