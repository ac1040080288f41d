import { createClient, RedisClientType } from 'redis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import { AppError } from '../errors';
import { createLogger } from '../logging';

export interface RateLimit {
  /** Requests allowed per window. */
  points: number;
  windowSeconds: number;
  keyPrefix: string;
}

export interface RateLimiter {
  /** Counts one request for `key`; throws a 429 AppError with Retry-After when over the limit. */
  consume(key: string): Promise<void>;
  /** Throws the same 429 when `key` has used up its points, without counting. */
  check(key: string): Promise<void>;
  reset(key: string): Promise<void>;
}

function tooMany(msBeforeNext: number): AppError {
  const retryAfter = String(Math.max(1, Math.ceil(msBeforeNext / 1000)));
  return new AppError('rate_limited', 'Too many requests', [], { 'Retry-After': retryAfter });
}

/**
 * Shared key-value store for caches, counters, rate limits and revocations. Redis in the scaled
 * mode, so every gateway replica sees the same state; process memory in the single-process mode.
 */
export interface Cache {
  readonly kind: 'redis' | 'memory';
  get(key: string): Promise<string | null>;
  set(key: string, value: string, ttlSeconds?: number): Promise<void>;
  del(key: string): Promise<void>;
  incr(key: string): Promise<number>;
  rateLimiter(limit: RateLimit): RateLimiter;
  ping(): Promise<void>;
  close(): Promise<void>;
}

function wrapLimiter(limiter: RateLimiterAbstract): RateLimiter {
  return {
    async consume(key) {
      try {
        await limiter.consume(key);
      } catch (res) {
        if (res instanceof RateLimiterRes) throw tooMany(res.msBeforeNext);
        throw res;
      }
    },
    async check(key) {
      const res = await limiter.get(key);
      if (res && res.consumedPoints >= limiter.points) throw tooMany(res.msBeforeNext);
    },
    async reset(key) {
      await limiter.delete(key);
    },
  };
}

export class MemoryCache implements Cache {
  readonly kind = 'memory' as const;
  private readonly entries = new Map<string, { value: string; expiresAt: number }>();

  private live(key: string) {
    const e = this.entries.get(key);
    if (e && e.expiresAt <= Date.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return e;
  }

  async get(key: string) {
    return this.live(key)?.value ?? null;
  }
  async set(key: string, value: string, ttlSeconds?: number) {
    this.entries.set(key, { value, expiresAt: ttlSeconds ? Date.now() + ttlSeconds * 1000 : Infinity });
  }
  async del(key: string) {
    this.entries.delete(key);
  }
  async incr(key: string) {
    const e = this.live(key);
    const next = Number(e?.value ?? '0') + 1;
    this.entries.set(key, { value: String(next), expiresAt: e?.expiresAt ?? Infinity });
    return next;
  }
  rateLimiter(limit: RateLimit): RateLimiter {
    return wrapLimiter(
      new RateLimiterMemory({ points: limit.points, duration: limit.windowSeconds, keyPrefix: limit.keyPrefix }),
    );
  }
  async ping() {}
  async close() {
    this.entries.clear();
  }
}

export class RedisCache implements Cache {
  readonly kind = 'redis' as const;
  private constructor(
    private readonly client: RedisClientType,
    private readonly prefix: string,
  ) {}

  static async connect(url: string, prefix = 'bulwark:'): Promise<RedisCache> {
    const log = createLogger('redis');
    const client: RedisClientType = createClient({
      url,
      socket: { connectTimeout: 5000, reconnectStrategy: (n) => Math.min(n * 200, 3000) },
    });
    client.on('error', (err: Error) => log.warn('redis connection error', { error: err.message }));
    await client.connect();
    return new RedisCache(client, prefix);
  }

  async get(key: string) {
    return await this.client.get(this.prefix + key);
  }
  async set(key: string, value: string, ttlSeconds?: number) {
    if (ttlSeconds) await this.client.set(this.prefix + key, value, { EX: ttlSeconds });
    else await this.client.set(this.prefix + key, value);
  }
  async del(key: string) {
    await this.client.del(this.prefix + key);
  }
  async incr(key: string) {
    return Number(await this.client.incr(this.prefix + key));
  }
  rateLimiter(limit: RateLimit): RateLimiter {
    return wrapLimiter(
      new RateLimiterRedis({
        storeClient: this.client,
        useRedisPackage: true,
        points: limit.points,
        duration: limit.windowSeconds,
        keyPrefix: this.prefix + limit.keyPrefix,
      }),
    );
  }
  async ping() {
    await this.client.ping();
  }
  async close() {
    await this.client.quit();
  }
}

export async function openCache(redisUrl: string | undefined, prefix?: string): Promise<Cache> {
  return redisUrl ? RedisCache.connect(redisUrl, prefix) : new MemoryCache();
}
