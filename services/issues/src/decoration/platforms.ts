import type { Dispatcher } from 'undici';
import { GitHubDecorator } from './github';
import { GitLabDecorator } from './gitlab';
import type { DecorationPlatform } from './platform';
import type { RepositoryPlatform } from './repository';

const CONNECT: Record<
  RepositoryPlatform,
  (apiUrl: string, token: string, d: Dispatcher) => Promise<DecorationPlatform>
> = {
  github: (apiUrl, token, d) => GitHubDecorator.connect(apiUrl, token, d),
  gitlab: (apiUrl, token, d) => Promise.resolve(GitLabDecorator.connect(apiUrl, token, d)),
};

export const isPlatformName = (name: string): name is RepositoryPlatform => Object.hasOwn(CONNECT, name);

/** The decorator of a source's platform, every call through `dispatcher` (the outbound address policy). */
export const connectPlatform = (name: RepositoryPlatform, apiUrl: string, token: string, dispatcher: Dispatcher) =>
  CONNECT[name](apiUrl, token, dispatcher);
