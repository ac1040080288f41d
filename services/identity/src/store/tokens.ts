import { iso, Queryable, queryPage } from '@bulwark/platform';

export interface TokenRecord {
  id: string;
  userId: string;
  name: string;
  expiresAt: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

interface TokenRow {
  id: string;
  user_id: string;
  name: string;
  token_hash: string;
  expires_at: Date;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

const toRecord = (r: TokenRow): TokenRecord => ({
  id: r.id,
  userId: r.user_id,
  name: r.name,
  expiresAt: iso(r.expires_at),
  createdAt: iso(r.created_at),
  lastUsedAt: iso(r.last_used_at),
  revokedAt: iso(r.revoked_at),
});

export const tokenStore = {
  async insert(
    db: Queryable,
    t: { id: string; userId: string; name: string; hash: string; expiresAt: string },
  ): Promise<void> {
    await db('api_tokens').insert({
      id: t.id,
      user_id: t.userId,
      name: t.name,
      token_hash: t.hash,
      expires_at: t.expiresAt,
    });
  },

  async byHash(db: Queryable, hash: string): Promise<TokenRecord | undefined> {
    const row = await db<TokenRow>('api_tokens').where({ token_hash: hash }).first();
    return row ? toRecord(row) : undefined;
  },

  async getMany(db: Queryable, ids: string[]): Promise<TokenRecord[]> {
    const rows = await db<TokenRow>('api_tokens').whereIn('id', ids);
    return rows.map(toRecord);
  },

  async listForUser(
    db: Queryable,
    userId: string,
    q: { page: number; limit: number; includeRevoked: boolean },
  ): Promise<{ items: TokenRecord[]; total: number }> {
    const base = db<TokenRow>('api_tokens').where({ user_id: userId });
    if (!q.includeRevoked) base.whereNull('revoked_at');
    const { rows, total } = await queryPage<TokenRow>(base, q, [
      { column: 'created_at', order: 'desc' },
      { column: 'id' },
    ]);
    return { items: rows.map(toRecord), total };
  },

  async revoke(db: Queryable, id: string): Promise<void> {
    await db('api_tokens').where({ id }).whereNull('revoked_at').update({ revoked_at: db.fn.now() });
  },

  /** Revokes every live token of a user; answers the ids it revoked. */
  async revokeAllOf(db: Queryable, userId: string): Promise<string[]> {
    const rows: { id: string }[] = await db('api_tokens')
      .where({ user_id: userId })
      .whereNull('revoked_at')
      .update({ revoked_at: db.fn.now() })
      .returning('id');
    return rows.map((r) => r.id);
  },

  /** Records use at most once a minute, so authentication stays a read. */
  async touch(db: Queryable, id: string): Promise<void> {
    await db('api_tokens')
      .where({ id })
      .andWhere((w) => {
        w.whereNull('last_used_at').orWhere('last_used_at', '<', db.raw(`now() - interval '1 minute'`));
      })
      .update({ last_used_at: db.fn.now() });
  },
};
