import { identityV1 } from '@bulwark/proto';
import type { InternalAuth } from './auth';
import { AppError } from './errors';
import { lazyPeerClient } from './grpc/peer-client';
import type { ModuleContext } from './module';

/** The limits in force: a key's most allowed, null for unlimited. */
export type LimitsInForce = Record<string, number | null>;

/** Over a license limit: 409, naming the limit in the message and in `details`. */
export class LicenseLimitReached extends AppError {
  constructor(
    readonly limit: string,
    readonly max: number,
  ) {
    super(
      'conflict',
      `License limit reached: ${limit} is limited to ${max}; nothing more can be created until some are removed or a license with a higher limit is installed (GET /api/v1/license)`,
      [{ field: `license.limits.${limit}`, problem: `limit of ${max} reached` }],
    );
  }
}

/**
 * What a service that creates something a license counts asks before it creates one more. The
 * limits come from identity, which owns the license (`fetch` asks it over gRPC) and are reused for
 * `ttlMs`, so a burst of creations asks once. When identity cannot answer, the last answer is used
 * however old; with none at all the creation answers 503 rather than guess.
 */
export class LicenseGate {
  private cached: { at: number; limits: LimitsInForce } | undefined;

  constructor(
    private readonly fetch: () => Promise<LimitsInForce>,
    private readonly ttlMs = 10_000,
  ) {}

  async limit(key: string): Promise<number | null> {
    if (!this.cached || Date.now() - this.cached.at >= this.ttlMs) {
      try {
        this.cached = { at: Date.now(), limits: await this.fetch() };
      } catch {
        if (!this.cached)
          throw new AppError(
            'unavailable',
            'The license limits cannot be read now: the identity service did not answer; try again later',
          );
      }
    }
    return this.cached.limits[key] ?? null;
  }

  /**
   * Throws LicenseLimitReached when `inUse + adding` would pass `max` (read with `limit` before the
   * caller's transaction, which counts `inUse` under a lock, so two creations cannot both take the last place).
   */
  static ensureRoom(key: string, max: number | null, inUse: number, adding = 1): void {
    if (max !== null && inUse + adding > max) throw new LicenseLimitReached(key, max);
  }
}

/** Identity's gRPC answer (GetLicenseLimits) as the limits in force. */
export function limitsFromAnswer(answer: {
  limits: { key: string; unlimited: boolean; max: number }[];
}): LimitsInForce {
  return Object.fromEntries(answer.limits.map((l) => [l.key, l.unlimited ? null : l.max]));
}

/** The gate of a service that creates licensed things, asking identity; its client is made at first use, as identity may start later. */
export function identityLicenseGate(ctx: ModuleContext, auth: InternalAuth): LicenseGate {
  const identity = lazyPeerClient(ctx, identityV1.IdentityServiceService, 'identity', auth);
  return new LicenseGate(async () => limitsFromAnswer(await identity().getLicenseLimits({})));
}
