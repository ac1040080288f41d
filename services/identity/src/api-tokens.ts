import { randomUUID } from 'node:crypto';
import { Db, hasPermission, invalid, isUuid, Principal, Trx } from '@bulwark/platform';
import { IDENTITY_EVENTS } from '@bulwark/contracts';
import { newApiToken } from './domain/secrets';
import { EscalationGuard } from './escalation-guard';
import { BulkStatus, identityEvent, RightsChanges } from './rights-changes';
import { tokenStore } from './store/tokens';
import { userStore } from './store/users';

/** Long-lived API tokens: shown once on creation, kept as a hash, revoked by their owner or a user administrator. */
export class ApiTokens {
  constructor(
    private readonly db: Db,
    private readonly changes: RightsChanges,
  ) {}

  async createToken(principal: Principal, name: string, expiresAt: string) {
    if (Date.parse(expiresAt) <= Date.now())
      throw invalid('Invalid expires_at: must be in the future', [
        { field: 'expires_at', problem: 'must be in the future' },
      ]);
    const { token, hash } = newApiToken();
    const id = randomUUID();
    const expires = new Date(expiresAt).toISOString();
    await this.changes.commit(async (trx) => {
      await tokenStore.insert(trx, { id, userId: principal.userId, name, hash, expiresAt: expires });
      await identityEvent(trx, IDENTITY_EVENTS.tokenCreated, id, {
        id,
        user_id: principal.userId,
        name,
        expires_at: expires,
      });
    });
    return { id, name, token, expires_at: expires };
  }

  listTokens(principal: Principal, q: { page: number; limit: number; includeRevoked: boolean }) {
    return tokenStore.listForUser(this.db, principal.userId, q);
  }

  /** Another user's tokens need administration.users:d and holding all that user holds (the escalation rule). */
  async revokeTokens(principal: Principal, ids: string[]): Promise<BulkStatus[]> {
    const mayRevokeAny = hasPermission(principal, 'administration.users', 'd');
    return this.changes.commit(async (trx) => {
      const found = new Map((await tokenStore.getMany(trx, ids.filter(isUuid))).map((t) => [t.id, t]));
      const guard = await EscalationGuard.of(trx, principal);
      const results: BulkStatus[] = [];
      for (const id of ids) {
        const t = found.get(id);
        const owner =
          t && t.userId !== principal.userId && mayRevokeAny ? await userStore.get(trx, t.userId) : undefined;
        const refusal = owner && (await guard.refusalForUser(owner, 'Revoking the API tokens of'));
        if (!t || (t.userId !== principal.userId && !mayRevokeAny)) results.push({ id, status: 'not_found' });
        else if (t.revokedAt) results.push({ id, status: 'unchanged', message: 'already revoked' });
        else if (refusal) results.push({ id, status: 'forbidden', message: refusal });
        else {
          await tokenStore.revoke(trx, id);
          await identityEvent(trx, IDENTITY_EVENTS.tokenRevoked, id, { id, user_id: t.userId, by: principal.userId });
          results.push({ id, status: 'revoked' });
        }
      }
      return results;
    });
  }
}

/** Revokes every live API token of a user, one event each: a deleted user's tokens stay revoked when it is restored. */
export async function revokeAllTokensOf(trx: Trx, userId: string, by: string): Promise<void> {
  for (const id of await tokenStore.revokeAllOf(trx, userId))
    await identityEvent(trx, IDENTITY_EVENTS.tokenRevoked, id, { id, user_id: userId, by });
}
