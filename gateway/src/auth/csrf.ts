import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** Whether two strings are the same bytes, in time that does not depend on where they differ. */
export const sameBytes = (a: string, b: string): boolean => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/**
 * CSRF values bound to the session they were issued with (OWASP's signed double-submit cookie): a
 * random part and an HMAC, under a key of this deployment, over the session's token and that random
 * part. A value planted in the browser beside the session cookie (by a sibling domain, say) was not
 * minted for that session's token, which the planter cannot read, so it is refused.
 */
export class CsrfValues {
  constructor(private readonly key: Buffer) {}

  mint(sessionToken: string): string {
    const random = randomBytes(32).toString('base64url');
    return `${random}.${this.mac(sessionToken, random)}`;
  }

  /** Whether `value` was minted for `sessionToken` by a gateway of this deployment. */
  mintedFor(value: string, sessionToken: string): boolean {
    const parts = value.split('.');
    if (parts.length !== 2 || !parts[0] || !parts[1]) return false;
    return sameBytes(parts[1], this.mac(sessionToken, parts[0]));
  }

  /** Lengths first, so no two different (token, random) pairs give the same input. */
  private mac(sessionToken: string, random: string): string {
    return createHmac('sha256', this.key)
      .update(`${sessionToken.length}!${sessionToken}!${random.length}!${random}`)
      .digest('base64url');
  }
}
