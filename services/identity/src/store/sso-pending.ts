import { Queryable } from '@bulwark/platform';

export interface PendingSignOn {
  state: string;
  nonce: string;
  codeVerifier: string;
}

export const ssoPendingStore = {
  async insert(db: Queryable, p: PendingSignOn): Promise<void> {
    await db('sso_pending').insert({ state: p.state, nonce: p.nonce, code_verifier: p.codeVerifier });
  },

  /** Takes the pending sign-on of `state` if it is younger than `maxAgeSeconds`: a second take finds nothing. Older ones are dropped on the way. */
  async take(db: Queryable, state: string, maxAgeSeconds: number): Promise<PendingSignOn | undefined> {
    await db('sso_pending')
      .where('created_at', '<', db.raw(`now() - make_interval(secs => ?)`, [maxAgeSeconds]))
      .delete();
    const [row] = await db('sso_pending')
      .where({ state })
      .delete()
      .returning<{ state: string; nonce: string; code_verifier: string }[]>(['state', 'nonce', 'code_verifier']);
    return row ? { state: row.state, nonce: row.nonce, codeVerifier: row.code_verifier } : undefined;
  },
};
