/** The repository a source's URL names on GitHub: its owner and name, and its web address. */
export interface GitHubRepository {
  owner: string;
  repo: string;
  webUrl: string;
}

const NAME = /^[A-Za-z0-9_.-]{1,100}$/;

/**
 * Reads owner and repository from a source's clone URL: `https://host/owner/repo(.git)`,
 * `ssh://git@host/owner/repo.git` or `git@host:owner/repo.git`; undefined for anything else.
 */
export function githubRepository(url: string): GitHubRepository | undefined {
  const scp = /^[A-Za-z0-9._-]+@([^:/]+):(.+)$/.exec(url);
  let host: string;
  let path: string;
  let web: string;
  if (scp) {
    [host, path] = [scp[1], scp[2]];
    web = `https://${host}`;
  } else {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return undefined;
    }
    if (!['https:', 'http:', 'ssh:'].includes(parsed.protocol)) return undefined;
    host = parsed.host;
    path = parsed.pathname;
    web = parsed.protocol === 'ssh:' ? `https://${parsed.hostname}` : `${parsed.protocol}//${host}`;
  }
  const parts = path
    .replace(/^\/+|\/+$/g, '')
    .replace(/\.git$/, '')
    .split('/');
  if (parts.length !== 2 || !parts.every((p) => NAME.test(p) && p !== '.' && p !== '..')) return undefined;
  const [owner, repo] = parts;
  return { owner, repo, webUrl: `${web}/${owner}/${repo}` };
}
