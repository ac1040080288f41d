import { Queryable } from '@bulwark/platform';

/** Login tokens revoked by a sign-out, kept until they would have expired. */
export const revokedSessionStore = {
  /** Revokes one; rows of tokens past their expiry are dropped on the way, as they are refused anyway. */
  async revoke(db: Queryable, jti: string, expiresAt: string): Promise<void> {
    await db('revoked_sessions').where('expires_at', '<', db.fn.now()).delete();
    await db('revoked_sessions').insert({ jti, expires_at: expiresAt }).onConflict('jti').ignore();
  },

  async isRevoked(db: Queryable, jti: string): Promise<boolean> {
    return (await db('revoked_sessions').where({ jti }).first('jti')) !== undefined;
  },
};
