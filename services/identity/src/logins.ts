import { randomUUID } from 'node:crypto';
import {
  AppError,
  Cache,
  conflict,
  Db,
  invalid,
  Logger,
  notFound,
  Principal,
  RateLimiter,
  unauthenticated,
  present,
} from '@bulwark/platform';
import { IDENTITY_EVENTS } from '@bulwark/contracts';
import type { IdentityConfig } from './config';
import type { DirectoryLogins } from './directory';
import { DirectoryPerson, DirectoryRefusal } from './domain/ldap';
import type { SsoPerson } from './domain/oidc';
import { claimGroupKeys, directoryKey, ldapGroupKeys } from './domain/groups';
import { effectiveRights } from './domain/permissions';
import {
  API_TOKEN_PREFIX,
  burnPasswordCheck,
  checkNewPassword,
  hashApiToken,
  hashPassword,
  verifyPassword,
} from './domain/secrets';
import { SessionTokens } from './domain/sessions';
import { ensureUserRoom } from './license';
import { identityEvent, RightsChanges } from './rights-changes';
import { groupStore } from './store/groups';
import { roleStore } from './store/roles';
import { revokedSessionStore } from './store/sessions';
import { tokenStore } from './store/tokens';
import { UserRecord, userStore } from './store/users';
import { userGrants } from './user-grants';

export interface AuthenticatedCaller {
  principal: Principal;
  expiresAt: string;
}

/**
 * Who the caller is: local, directory and single sign-on logins (failures rate-limited per user and
 * per address), the rights a token carries, and the caller's own account.
 */
export class Logins {
  private readonly userFailures: RateLimiter;
  private readonly ipFailures: RateLimiter;

  constructor(
    private readonly deps: {
      db: Db;
      changes: RightsChanges;
      cache: Cache;
      config: IdentityConfig;
      sessions: SessionTokens;
      log: Logger;
      directory: DirectoryLogins;
    },
  ) {
    const { cache, config } = deps;
    const window = config.LOGIN_FAILURE_WINDOW_SECONDS;
    this.userFailures = cache.rateLimiter({
      keyPrefix: 'login-fail-user',
      points: config.LOGIN_MAX_FAILURES_PER_USER,
      windowSeconds: window,
    });
    this.ipFailures = cache.rateLimiter({
      keyPrefix: 'login-fail-ip',
      points: config.LOGIN_MAX_FAILURES_PER_IP,
      windowSeconds: window,
    });
  }

  async login(
    username: string,
    password: string,
    clientIp: string,
  ): Promise<{ access_token: string; token_type: 'Bearer'; expires_at: string; need_password_change: boolean }> {
    const userKey = username.toLowerCase();
    await this.userFailures.check(userKey);
    await this.ipFailures.check(clientIp);
    const user = await userStore.byUsername(this.deps.db, username);
    const refuse = async (message = 'Invalid username or password') => {
      await Promise.all([
        this.userFailures.consume(userKey).catch(() => undefined),
        this.ipFailures.consume(clientIp).catch(() => undefined),
      ]);
      this.deps.log.warn('login refused', { username: userKey, clientIp });
      return new AppError('unauthenticated', message);
    };
    // A directory user, or a name no local user has, is asked of the directory when one is configured;
    // a directory user is never checked against a local password.
    if (user?.deletedAt) {
      await burnPasswordCheck(password);
      throw await refuse();
    }
    if ((!user || user.activeDirectory) && (await this.deps.directory.configured())) {
      let person: DirectoryPerson;
      try {
        person = await this.deps.directory.authenticate(username, password);
      } catch (err) {
        if (err instanceof DirectoryRefusal) throw await refuse(err.message);
        throw err;
      }
      const synced = await this.syncDirectoryUser(user, username, person);
      await this.userFailures.reset(userKey);
      return this.startSession(synced);
    }
    if (!user || !user.passwordHash) {
      if (user?.activeDirectory) throw await refuse('Directory users cannot log in with a local password');
      await burnPasswordCheck(password);
      throw await refuse();
    }
    if (user.activeDirectory) throw await refuse('Directory users cannot log in with a local password');
    if (!(await verifyPassword(user.passwordHash, password))) throw await refuse();
    await this.userFailures.reset(userKey);
    return this.startSession(user);
  }

  private startSession(user: UserRecord) {
    const session = this.deps.sessions.issue(user.id, user.sessionsValidAfter);
    this.deps.log.info('login', { userId: user.id, username: user.username, directory: user.activeDirectory });
    return {
      access_token: session.token,
      token_type: 'Bearer' as const,
      expires_at: session.expiresAt,
      need_password_change: user.needPasswordChange,
    };
  }

  /**
   * The directory side of a login: a role whose domain_group names one of the person's groups (by DN,
   * or by name when the entry has no "=") is granted; a role bound to groups the person is not in is
   * taken away; roles bound to no group stay as an administrator set them. The person's groups are
   * kept until the next login: user groups whose domain_group names one of them apply meanwhile.
   */
  private async syncDirectoryUser(
    existing: UserRecord | undefined,
    username: string,
    person: DirectoryPerson,
  ): Promise<UserRecord> {
    const keys = ldapGroupKeys(person.groups);
    const held = new Set(keys);
    const bound = await roleStore.boundToGroups(this.deps.db);
    const granted = bound
      .filter((r) => r.domainGroup.some((entry) => held.has(directoryKey(entry))))
      .map((r) => r.code);
    return this.syncExternalUser(
      existing,
      username,
      { displayName: person.displayName, email: person.email },
      granted,
      bound.map((r) => r.code),
      keys,
    );
  }

  /**
   * A single sign-on: the user of the provider's person, created just in time and kept in step like a
   * directory user, with the roles role_mapping grants. A local user of the same name is never taken over.
   */
  async ssoLogin(person: SsoPerson, granted: string[], bound: string[]) {
    const user = await userStore.byUsername(this.deps.db, person.username);
    if (user?.deletedAt) throw unauthenticated('This user is deleted');
    if (user && !user.activeDirectory) {
      throw conflict(`A local user is named ${person.username}; single sign-on does not log into local users`);
    }
    const known = await roleStore.existing(this.deps.db, granted);
    const synced = await this.syncExternalUser(
      user,
      person.username,
      { displayName: person.displayName, email: person.email },
      granted.filter((r) => known.has(r)),
      bound,
      claimGroupKeys(person.groups),
    );
    return this.startSession(synced);
  }

  /**
   * Creates an external (directory or single sign-on) user on first login, just in time, and keeps it
   * in step at each login: display name, e-mail, of the roles in `bound` exactly those in `granted`,
   * and the keys of the person's directory groups, which user groups are matched against.
   */
  private async syncExternalUser(
    existing: UserRecord | undefined,
    username: string,
    profile: { displayName: string | null; email: string | null },
    granted: string[],
    bound: string[],
    directoryGroups: string[],
  ): Promise<UserRecord> {
    return this.deps.changes.commit(async (trx) => {
      const boundCodes = new Set(bound);
      const fields = { displayName: profile.displayName ?? username, email: profile.email };
      let id: string;
      if (!existing) {
        await ensureUserRoom(trx);
        id = randomUUID();
        await userStore.insert(trx, id, username, { ...fields, passwordHash: null, activeDirectory: true });
        await userStore.setRoles(trx, id, granted);
        await identityEvent(trx, IDENTITY_EVENTS.userCreated, id, { id, username, roles: granted, directory: true });
      } else {
        id = existing.id;
        const roles = [...new Set([...existing.roles.filter((r) => !boundCodes.has(r)), ...granted])].sort();
        await userStore.update(trx, id, fields);
        const changedRoles = roles.join() !== [...existing.roles].sort().join();
        if (changedRoles) await userStore.setRoles(trx, id, roles);
        await identityEvent(trx, IDENTITY_EVENTS.userUpdated, id, {
          id,
          fields: ['display_name', 'email', ...(changedRoles ? ['roles'] : [])],
          directory: true,
        });
      }
      await groupStore.setDirectoryGroups(trx, id, directoryGroups);
      return present(await userStore.get(trx, id), `user ${id}`);
    });
  }

  /** Resolves a bearer token into the caller's current rights; every failure is the same 401. */
  async authenticate(token: string): Promise<AuthenticatedCaller> {
    if (token.startsWith(API_TOKEN_PREFIX)) {
      const record = await tokenStore.byHash(this.deps.db, hashApiToken(token));
      if (!record || record.revokedAt || Date.parse(record.expiresAt) <= Date.now())
        throw unauthenticated('Invalid, expired or revoked token');
      const user = await userStore.get(this.deps.db, record.userId);
      if (!user || user.deletedAt) throw unauthenticated('Invalid, expired or revoked token');
      await tokenStore.touch(this.deps.db, record.id);
      return { principal: await this.principalOf(user, 'api', record.id), expiresAt: record.expiresAt };
    }
    const claims = this.deps.sessions.verify(token);
    if (!claims) throw unauthenticated('Invalid or expired token');
    const user = await userStore.get(this.deps.db, claims.userId);
    if (!user || user.deletedAt || user.sessionsValidAfter !== claims.sessionsValidAfter)
      throw unauthenticated('Invalid or expired token');
    if (await revokedSessionStore.isRevoked(this.deps.db, claims.jti))
      throw unauthenticated('Invalid or expired token');
    return { principal: await this.principalOf(user, 'login', claims.jti), expiresAt: claims.expiresAt };
  }

  /** The caller's rights, which end in the one project scope of the principal that every service applies. */
  private async principalOf(user: UserRecord, tokenKind: 'login' | 'api', tokenId: string): Promise<Principal> {
    const rights = effectiveRights(await userGrants(this.deps.db, user));
    return {
      userId: user.id,
      username: user.username,
      permissions: rights.permissions,
      projects: rights.projects,
      scopes: rights.scopes,
      tokenKind,
      tokenId,
    };
  }

  /**
   * Ends the caller's login session: its token is refused from now on, on every gateway (the auth
   * epoch moves). Kept until the longest a login token lives, as the principal carries no expiry.
   * An API token is not a session: it is revoked with DELETE /tokens.
   */
  async logout(principal: Principal): Promise<void> {
    if (principal.tokenKind !== 'login')
      throw conflict('An API token is not a login session: revoke it with DELETE /api/v1/tokens');
    const until = new Date(Date.now() + this.deps.config.LOGIN_TOKEN_TTL_HOURS * 3600 * 1000).toISOString();
    await this.deps.changes.commit((trx) => revokedSessionStore.revoke(trx, principal.tokenId, until));
    this.deps.log.info('logout', { userId: principal.userId });
  }

  async me(principal: Principal) {
    const user = await userStore.get(this.deps.db, principal.userId);
    if (!user) throw notFound('User');
    const groups = (await groupStore.grantsOf(this.deps.db, user.id)).map((g) => ({ id: g.id, name: g.name }));
    return { user, permissions: principal.permissions, projects: principal.projects, groups };
  }

  async changeOwnPassword(
    principal: Principal,
    current: string,
    password: string,
    confirmation: string,
  ): Promise<UserRecord> {
    const user = await userStore.get(this.deps.db, principal.userId);
    if (!user || user.deletedAt) throw notFound('User');
    if (user.activeDirectory) throw conflict('Directory users change their password in the directory');
    if (!user.passwordHash || !(await verifyPassword(user.passwordHash, current))) {
      throw invalid('Invalid current_password', [
        { field: 'current_password', problem: 'is not the current password' },
      ]);
    }
    const next = checkNewPassword(password, confirmation, this.deps.config.PASSWORD_MIN_LENGTH, [user.username]);
    const hash = await hashPassword(next);
    return this.deps.changes.commit(async (trx) => {
      await userStore.update(trx, user.id, { passwordHash: hash, needPasswordChange: false, endSessions: true });
      await identityEvent(trx, IDENTITY_EVENTS.userUpdated, user.id, { id: user.id, fields: ['password'] });
      return present(await userStore.get(trx, user.id), `user ${user.id}`);
    });
  }
}
