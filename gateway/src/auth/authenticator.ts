import { createHash } from 'node:crypto';
import { AUTH_EPOCH_KEY, Cache, IdentityClient, PermissionLetter, Principal, unauthenticated } from '@bulwark/platform';

interface CachedAuth {
  epoch: string;
  expiresAt: string;
  principal: Principal;
}

const MAX_TOKEN_LENGTH = 4096;

/**
 * Turns a bearer token into a principal by asking identity, and reuses the answer briefly. A cached
 * answer is valid only while the auth epoch it was made in is current: identity moves the epoch on
 * every change, so revocations and role changes apply at once on every gateway sharing the cache.
 */
export class Authenticator {
  constructor(
    private readonly identity: IdentityClient,
    private readonly cache: Cache,
    private readonly cacheSeconds: number,
  ) {}

  static bearerToken(header: string | undefined): string {
    if (!header) throw unauthenticated('Missing Authorization header');
    const match = /^Bearer ([\x21-\x7e]+)$/.exec(header);
    if (!match || match[1].length > MAX_TOKEN_LENGTH)
      throw unauthenticated('Authorization header must be "Bearer <token>"');
    return match[1];
  }

  async authenticate(token: string): Promise<Principal> {
    const key = `auth:principal:${createHash('sha256').update(token).digest('hex')}`;
    const [epoch, cached] = await Promise.all([this.cache.get(AUTH_EPOCH_KEY), this.cache.get(key)]);
    const current = epoch ?? '0';
    if (cached) {
      const entry = JSON.parse(cached) as CachedAuth;
      if (entry.epoch === current && Date.parse(entry.expiresAt) > Date.now()) return entry.principal;
    }
    const res = await this.identity.authenticate({ token });
    const principal: Principal = {
      userId: res.userId,
      username: res.username,
      permissions: Object.fromEntries(res.permissions.map((g) => [g.key, g.letters as PermissionLetter[]])),
      projects: res.allProjects ? null : res.projects,
      scopes: Object.fromEntries(Object.entries(res.scopes).map(([k, v]) => [k, v.allProjects ? null : v.projects])),
      tokenKind: res.tokenKind === 'api' ? 'api' : 'login',
      tokenId: res.tokenId,
    };
    const ttl = Math.min(this.cacheSeconds, Math.floor((Date.parse(res.expiresAt) - Date.now()) / 1000));
    if (ttl > 0)
      await this.cache.set(
        key,
        JSON.stringify({ epoch: current, expiresAt: res.expiresAt, principal } satisfies CachedAuth),
        ttl,
      );
    return principal;
  }
}
