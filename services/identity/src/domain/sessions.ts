import { createSecretKey, KeyObject, randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';

const ISSUER = 'bulwark-identity';

export interface SessionClaims {
  userId: string;
  /** The user's sessions_valid_after when the token was issued; a later change voids the token. */
  sessionsValidAfter: string;
  jti: string;
}

/** Login JWTs: signed and checked only by identity; the gateway asks identity about every new token. */
export class SessionTokens {
  /** Made once (see InternalAuth's key): jsonwebtoken tries a string as a PEM key on every call. */
  private readonly key: KeyObject;

  constructor(
    secret: string,
    private readonly ttlHours: number,
  ) {
    this.key = createSecretKey(Buffer.from(secret, 'utf8'));
  }

  issue(userId: string, sessionsValidAfter: string): { token: string; expiresAt: string; jti: string } {
    const jti = randomUUID();
    const expiresAt = new Date(Math.floor(Date.now() / 1000 + this.ttlHours * 3600) * 1000);
    const token = jwt.sign({ sv: sessionsValidAfter, typ: 'login' }, this.key, {
      algorithm: 'HS256',
      issuer: ISSUER,
      subject: userId,
      jwtid: jti,
      expiresIn: Math.floor(this.ttlHours * 3600),
    });
    return { token, expiresAt: expiresAt.toISOString(), jti };
  }

  /** The claims and expiry of a valid token; undefined for anything else (bad signature, expired, not ours). */
  verify(token: string): (SessionClaims & { expiresAt: string }) | undefined {
    try {
      const c = jwt.verify(token, this.key, { algorithms: ['HS256'], issuer: ISSUER }) as jwt.JwtPayload;
      if (
        c.typ !== 'login' ||
        typeof c.sub !== 'string' ||
        typeof c.sv !== 'string' ||
        typeof c.jti !== 'string' ||
        !c.exp
      )
        return undefined;
      return { userId: c.sub, sessionsValidAfter: c.sv, jti: c.jti, expiresAt: new Date(c.exp * 1000).toISOString() };
    } catch {
      return undefined;
    }
  }
}
