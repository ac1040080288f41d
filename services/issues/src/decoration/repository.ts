/** The repository a source's URL names: its path on the platform and its web address. */
export interface RepositoryRef {
  /** `owner/repo` on GitHub; `group/subgroup/project` on GitLab. */
  path: string;
  webUrl: string;
}

const NAME = /^[A-Za-z0-9_.-]{1,100}$/;
/** GitHub repositories are `owner/name`; GitLab projects sit under up to 20 nested groups. */
const SEGMENTS = { github: { least: 2, most: 2 }, gitlab: { least: 2, most: 21 } } as const;
export type RepositoryPlatform = keyof typeof SEGMENTS;

/**
 * Reads the repository's path from a source's clone URL: `https://host/owner/repo(.git)`,
 * `ssh://git@host/owner/repo.git` or `git@host:owner/repo.git` (more segments on GitLab); undefined
 * for anything else, or a segment that could leave the path.
 */
export function repositoryOf(url: string, platform: RepositoryPlatform): RepositoryRef | undefined {
  const scp = /^[A-Za-z0-9._-]+@([^:/]+):(.+)$/.exec(url);
  let path: string;
  let web: string;
  if (scp) {
    path = scp[2];
    web = `https://${scp[1]}`;
  } else {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return undefined;
    }
    if (!['https:', 'http:', 'ssh:'].includes(parsed.protocol)) return undefined;
    path = parsed.pathname;
    web = parsed.protocol === 'ssh:' ? `https://${parsed.hostname}` : `${parsed.protocol}//${parsed.host}`;
  }
  const parts = path
    .replace(/^\/+|\/+$/g, '')
    .replace(/\.git$/, '')
    .split('/');
  const { least, most } = SEGMENTS[platform];
  if (parts.length < least || parts.length > most) return undefined;
  if (!parts.every((p) => NAME.test(p) && p !== '.' && p !== '..')) return undefined;
  return { path: parts.join('/'), webUrl: `${web}/${parts.join('/')}` };
}
