import { randomBytes, randomUUID } from 'node:crypto';
import {
  AppError, AUTH_EPOCH_KEY, Cache, conflict, enqueueEvents, FieldProblem, hasPermission, invalid, isUuid, Logger,
  notFound, Principal, Queryable, RateLimiter, serializeAcrossReplicas, ServiceHost, Trx, unauthenticated,
} from '@bulwark/platform';
import { IDENTITY_EVENTS, isPermissionKey, TOPICS } from '@bulwark/contracts';
import type { IdentityConfig } from './config';
import type { DirectoryLogins } from './directory';
import { DirectoryPerson, DirectoryRefusal } from './domain/ldap';
import type { SsoPerson } from './domain/oidc';
import { claimGroupKeys, directoryKey, groupGrants, ldapGroupKeys } from './domain/groups';
import { ADMIN_ROLE, effectiveRights, LAST_ADMIN_MESSAGE } from './domain/permissions';
import { ensureUserRoom, userLimitReached } from './license';
import { API_TOKEN_PREFIX, burnPasswordCheck, checkNewPassword, hashApiToken, hashPassword, newApiToken, verifyPassword } from './domain/secrets';
import { SessionTokens } from './domain/sessions';
import { groupStore } from './store/groups';
import { roleStore, RoleWrite } from './store/roles';
import { tokenStore } from './store/tokens';
import { UserRecord, userStore } from './store/users';

export interface AuthenticatedCaller {
  principal: Principal;
  expiresAt: string;
}

type BulkStatus = { id: string; status: 'deleted' | 'revoked' | 'restored' | 'not_found' | 'conflict' | 'forbidden' | 'unchanged'; message?: string };

/**
 * Identity's use cases. Each change runs in one transaction together with its outbox events, then
 * moves the auth epoch so cached authentications are re-checked everywhere.
 */
const lastAdminConflict = () => conflict(LAST_ADMIN_MESSAGE);

export class Accounts {
  private readonly userFailures: RateLimiter;
  private readonly ipFailures: RateLimiter;

  constructor(
    private readonly host: ServiceHost,
    private readonly cache: Cache,
    private readonly config: IdentityConfig,
    private readonly sessions: SessionTokens,
    private readonly log: Logger,
    private readonly directory: DirectoryLogins,
  ) {
    const window = config.LOGIN_FAILURE_WINDOW_SECONDS;
    this.userFailures = cache.rateLimiter({ keyPrefix: 'login-fail-user', points: config.LOGIN_MAX_FAILURES_PER_USER, windowSeconds: window });
    this.ipFailures = cache.rateLimiter({ keyPrefix: 'login-fail-ip', points: config.LOGIN_MAX_FAILURES_PER_IP, windowSeconds: window });
  }

  private get db() {
    return this.host.db;
  }

  /** Commits, then bumps the auth epoch (after commit: a re-check must see the new state). */
  private async change<T>(work: (trx: Trx) => Promise<T>): Promise<T> {
    const result = await this.host.transaction(work);
    await this.cache.incr(AUTH_EPOCH_KEY);
    return result;
  }

  private event(trx: Trx, type: string, key: string, payload: Record<string, unknown>) {
    return enqueueEvents(trx, [{ topic: TOPICS.identity, type, key, payload }]);
  }

  // ---- bootstrap

  /** The built-in admin role and, on first start, the `admin` user. */
  async bootstrap(): Promise<void> {
    await this.change(async (trx) => {
      await serializeAcrossReplicas(trx, 'identity.bootstrap');
      if (!(await roleStore.get(trx, ADMIN_ROLE))) {
        await roleStore.insert(trx, ADMIN_ROLE, { name: 'Administrator', permissions: {}, description: 'Holds every permission', domainGroup: [], systemScopes: [] }, true);
      }
      if (await userStore.byUsername(trx, 'admin')) return;
      const generated = !this.config.BULWARK_ADMIN_PASSWORD;
      const password = this.config.BULWARK_ADMIN_PASSWORD ?? randomBytes(12).toString('base64url');
      const id = randomUUID();
      await userStore.insert(trx, id, 'admin', { passwordHash: await hashPassword(password), displayName: 'Administrator', needPasswordChange: generated });
      await userStore.setRoles(trx, id, [ADMIN_ROLE]);
      await this.event(trx, IDENTITY_EVENTS.userCreated, id, { id, username: 'admin' });
      if (generated) {
        // Printed once, by design: the operator has no other way to learn it. Set BULWARK_ADMIN_PASSWORD to avoid it.
        this.log.warn('created user "admin" with a generated password; change it after the first login', { adminPassword: password });
      } else {
        this.log.info('created user "admin" with the password from BULWARK_ADMIN_PASSWORD');
      }
    });
  }

  // ---- authentication

  async login(username: string, password: string, clientIp: string): Promise<{ access_token: string; token_type: 'Bearer'; expires_at: string; need_password_change: boolean }> {
    const userKey = username.toLowerCase();
    await this.userFailures.check(userKey);
    await this.ipFailures.check(clientIp);
    const user = await userStore.byUsername(this.db, username);
    const refuse = async (message = 'Invalid username or password') => {
      await Promise.all([this.userFailures.consume(userKey).catch(() => undefined), this.ipFailures.consume(clientIp).catch(() => undefined)]);
      this.log.warn('login refused', { username: userKey, clientIp });
      return new AppError('unauthenticated', message);
    };
    // A directory user, or a name no local user has, is asked of the directory when one is configured;
    // a directory user is never checked against a local password.
    if (user?.deletedAt) {
      await burnPasswordCheck(password);
      throw await refuse();
    }
    if ((!user || user.activeDirectory) && (await this.directory.configured())) {
      let person: DirectoryPerson;
      try {
        person = await this.directory.authenticate(username, password);
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
    const session = this.sessions.issue(user.id, user.sessionsValidAfter);
    this.log.info('login', { userId: user.id, username: user.username, directory: user.activeDirectory });
    return { access_token: session.token, token_type: 'Bearer' as const, expires_at: session.expiresAt, need_password_change: user.needPasswordChange };
  }

  /**
   * The directory side of a login: a role whose domain_group names one of the person's groups (by DN,
   * or by name when the entry has no "=") is granted; a role bound to groups the person is not in is
   * taken away; roles bound to no group stay as an administrator set them. The person's groups are
   * kept until the next login: user groups whose domain_group names one of them apply meanwhile.
   */
  private async syncDirectoryUser(existing: UserRecord | undefined, username: string, person: DirectoryPerson): Promise<UserRecord> {
    const keys = ldapGroupKeys(person.groups);
    const held = new Set(keys);
    const bound = await roleStore.boundToGroups(this.db);
    const granted = bound.filter((r) => r.domainGroup.some((entry) => held.has(directoryKey(entry)))).map((r) => r.code);
    return this.syncExternalUser(existing, username, { displayName: person.displayName, email: person.email }, granted, bound.map((r) => r.code), keys);
  }

  /**
   * A single sign-on: the user of the provider's person, created just in time and kept in step like a
   * directory user, with the roles role_mapping grants. A local user of the same name is never taken over.
   */
  async ssoLogin(person: SsoPerson, granted: string[], bound: string[]) {
    const user = await userStore.byUsername(this.db, person.username);
    if (user?.deletedAt) throw unauthenticated('This user is deleted');
    if (user && !user.activeDirectory) {
      throw conflict(`A local user is named ${person.username}; single sign-on does not log into local users`);
    }
    const known = await roleStore.existing(this.db, granted);
    const synced = await this.syncExternalUser(
      user, person.username, { displayName: person.displayName, email: person.email }, granted.filter((r) => known.has(r)), bound, claimGroupKeys(person.groups),
    );
    return this.startSession(synced);
  }

  /**
   * Creates an external (directory or single sign-on) user on first login, just in time, and keeps it
   * in step at each login: display name, e-mail, of the roles in `bound` exactly those in `granted`,
   * and the keys of the person's directory groups, which user groups are matched against.
   */
  private async syncExternalUser(
    existing: UserRecord | undefined, username: string, profile: { displayName: string | null; email: string | null }, granted: string[], bound: string[],
    directoryGroups: string[],
  ): Promise<UserRecord> {
    return this.change(async (trx) => {
      const boundCodes = new Set(bound);
      const fields = { displayName: profile.displayName ?? username, email: profile.email };
      let id = existing?.id;
      if (!id) {
        await ensureUserRoom(trx);
        id = randomUUID();
        await userStore.insert(trx, id, username, { ...fields, passwordHash: null, activeDirectory: true });
        await userStore.setRoles(trx, id, granted);
        await this.event(trx, IDENTITY_EVENTS.userCreated, id, { id, username, roles: granted, directory: true });
      } else {
        const roles = [...new Set([...existing!.roles.filter((r) => !boundCodes.has(r)), ...granted])].sort();
        await userStore.update(trx, id, fields);
        const changedRoles = roles.join() !== [...existing!.roles].sort().join();
        if (changedRoles) await userStore.setRoles(trx, id, roles);
        await this.event(trx, IDENTITY_EVENTS.userUpdated, id, { id, fields: ['display_name', 'email', ...(changedRoles ? ['roles'] : [])], directory: true });
      }
      await groupStore.setDirectoryGroups(trx, id, directoryGroups);
      return (await userStore.get(trx, id))!;
    });
  }

  /** Resolves a bearer token into the caller's current rights; every failure is the same 401. */
  async authenticate(token: string): Promise<AuthenticatedCaller> {
    if (token.startsWith(API_TOKEN_PREFIX)) {
      const record = await tokenStore.byHash(this.db, hashApiToken(token));
      if (!record || record.revokedAt || Date.parse(record.expiresAt) <= Date.now()) throw unauthenticated('Invalid, expired or revoked token');
      const user = await userStore.get(this.db, record.userId);
      if (!user || user.deletedAt) throw unauthenticated('Invalid, expired or revoked token');
      await tokenStore.touch(this.db, record.id);
      return { principal: await this.principalOf(user, 'api', record.id), expiresAt: record.expiresAt };
    }
    const claims = this.sessions.verify(token);
    if (!claims) throw unauthenticated('Invalid or expired token');
    const user = await userStore.get(this.db, claims.userId);
    if (!user || user.deletedAt || user.sessionsValidAfter !== claims.sessionsValidAfter) throw unauthenticated('Invalid or expired token');
    return { principal: await this.principalOf(user, 'login', claims.jti), expiresAt: claims.expiresAt };
  }

  /**
   * The caller's rights: its own roles, and the roles of its user groups limited to the projects each
   * group covers (tags turned into project codes from identity's copy of the catalog's tags). They
   * end in the one project scope of the principal, which every service applies.
   */
  private async principalOf(user: UserRecord, tokenKind: 'login' | 'api', tokenId: string): Promise<Principal> {
    const groups = await groupStore.grantsOf(this.db, user.id);
    const roles = await roleStore.grants(this.db, [...new Set([...user.roles, ...groups.flatMap((g) => g.roles)])]);
    const tagged = await groupStore.projectsTagged(this.db, groups.flatMap((g) => g.projectTags));
    const own = new Set(user.roles);
    const rights = effectiveRights([...roles.filter((r) => own.has(r.code)), ...groupGrants(groups, new Map(roles.map((r) => [r.code, r])), tagged)]);
    return { userId: user.id, username: user.username, permissions: rights.permissions, projects: rights.projects, scopes: rights.scopes, tokenKind, tokenId };
  }

  async me(principal: Principal) {
    const user = await userStore.get(this.db, principal.userId);
    if (!user) throw notFound('User');
    const groups = (await groupStore.grantsOf(this.db, user.id)).map((g) => ({ id: g.id, name: g.name }));
    return { user, permissions: principal.permissions, projects: principal.projects, groups };
  }

  async changeOwnPassword(principal: Principal, current: string, password: string, confirmation: string): Promise<UserRecord> {
    const user = await userStore.get(this.db, principal.userId);
    if (!user || user.deletedAt) throw notFound('User');
    if (user.activeDirectory) throw conflict('Directory users change their password in the directory');
    if (!user.passwordHash || !(await verifyPassword(user.passwordHash, current))) {
      throw invalid('Invalid current_password', [{ field: 'current_password', problem: 'is not the current password' }]);
    }
    const next = checkNewPassword(password, confirmation, this.config.PASSWORD_MIN_LENGTH);
    const hash = await hashPassword(next);
    return this.change(async (trx) => {
      await userStore.update(trx, user.id, { passwordHash: hash, needPasswordChange: false, endSessions: true });
      await this.event(trx, IDENTITY_EVENTS.userUpdated, user.id, { id: user.id, fields: ['password'] });
      return (await userStore.get(trx, user.id))!;
    });
  }

  // ---- API tokens

  async createToken(principal: Principal, name: string, expiresAt: string) {
    if (Date.parse(expiresAt) <= Date.now()) throw invalid('Invalid expires_at: must be in the future', [{ field: 'expires_at', problem: 'must be in the future' }]);
    const { token, hash } = newApiToken();
    const id = randomUUID();
    const expires = new Date(expiresAt).toISOString();
    await this.change(async (trx) => {
      await tokenStore.insert(trx, { id, userId: principal.userId, name, hash, expiresAt: expires });
      await this.event(trx, IDENTITY_EVENTS.tokenCreated, id, { id, user_id: principal.userId, name, expires_at: expires });
    });
    return { id, name, token, expires_at: expires };
  }

  listTokens(principal: Principal, q: { page: number; limit: number; includeRevoked: boolean }) {
    return tokenStore.listForUser(this.db, principal.userId, q);
  }

  async revokeTokens(principal: Principal, ids: string[]): Promise<BulkStatus[]> {
    const mayRevokeAny = hasPermission(principal, 'administration.users', 'd');
    return this.change(async (trx) => {
      const found = new Map((await tokenStore.getMany(trx, ids.filter(isUuid))).map((t) => [t.id, t]));
      const results: BulkStatus[] = [];
      for (const id of ids) {
        const t = found.get(id);
        if (!t || (t.userId !== principal.userId && !mayRevokeAny)) results.push({ id, status: 'not_found' });
        else if (t.revokedAt) results.push({ id, status: 'unchanged', message: 'already revoked' });
        else {
          await tokenStore.revoke(trx, id);
          await this.event(trx, IDENTITY_EVENTS.tokenRevoked, id, { id, user_id: t.userId, by: principal.userId });
          results.push({ id, status: 'revoked' });
        }
      }
      return results;
    });
  }

  // ---- roles

  private checkRoleContent(roles: Record<string, string[]> | undefined): void {
    if (!roles) return;
    const problems: FieldProblem[] = Object.keys(roles)
      .filter((k) => !isPermissionKey(k))
      .map((k) => ({ field: `roles.${k}`, problem: 'is not a permission key (see GET /api/v1/permissions)' }));
    if (problems.length > 0) throw invalid(`Unknown permission keys: ${problems.map((p) => p.field).join(', ')}`, problems);
  }

  async createRole(code: string, w: RoleWrite) {
    this.checkRoleContent(w.permissions);
    return this.change(async (trx) => {
      if (await roleStore.get(trx, code)) throw conflict(`Role ${code} already exists`, [{ field: 'role_code', problem: 'already exists' }]);
      await roleStore.insert(trx, code, w);
      await this.event(trx, IDENTITY_EVENTS.roleCreated, code, { role_code: code });
      return (await roleStore.get(trx, code))!;
    });
  }

  async getRole(code: string) {
    const role = await roleStore.get(this.db, code);
    if (!role) throw notFound(`Role ${code}`);
    return role;
  }

  async updateRole(code: string, patch: Partial<RoleWrite>) {
    this.checkRoleContent(patch.permissions);
    return this.change(async (trx) => {
      const role = await roleStore.get(trx, code);
      if (!role) throw notFound(`Role ${code}`);
      if (role.builtin) throw conflict(`Role ${code} is built in and cannot be changed`);
      await roleStore.update(trx, code, {
        name: patch.name ?? role.name,
        permissions: patch.permissions ?? role.permissions,
        description: patch.description ?? role.description,
        domainGroup: patch.domainGroup ?? role.domainGroup,
        systemScopes: patch.systemScopes ?? role.systemScopes,
      });
      await this.event(trx, IDENTITY_EVENTS.roleUpdated, code, { role_code: code });
      return (await roleStore.get(trx, code))!;
    });
  }

  async deleteRoles(codes: string[], detach: boolean): Promise<BulkStatus[]> {
    return this.change(async (trx) => {
      const results: BulkStatus[] = [];
      for (const code of codes) {
        const role = await roleStore.get(trx, code);
        if (!role) results.push({ id: code, status: 'not_found' });
        else if (role.builtin) results.push({ id: code, status: 'conflict', message: 'built-in role' });
        else {
          const holders = await roleStore.holders(trx, code);
          const groups = await roleStore.groupHolders(trx, code);
          if ((holders > 0 || groups > 0) && !detach) {
            results.push({ id: code, status: 'conflict', message: `held by ${holders} user(s) and ${groups} user group(s); send "detach": true to remove it from them` });
          } else {
            await roleStore.delete(trx, code);
            await this.event(trx, IDENTITY_EVENTS.roleDeleted, code, { role_code: code, detached_users: holders, detached_groups: groups });
            results.push({ id: code, status: 'deleted' });
          }
        }
      }
      return results;
    });
  }

  listRoles(q: { page: number; limit: number; searchId?: string; searchName?: string }) {
    return roleStore.list(this.db, q);
  }

  // ---- users

  private async checkRolesExist(db: Queryable, roles: string[] | undefined): Promise<void> {
    if (!roles) return;
    const known = await roleStore.existing(db, roles);
    const problems: FieldProblem[] = roles.flatMap((r, i) => (known.has(r) ? [] : [{ field: `roles[${i}]`, problem: `unknown role code "${r}"` }]));
    if (problems.length > 0) throw invalid(`Unknown role codes: ${problems.map((p) => p.problem).join('; ')}`, problems);
  }

  async createUser(input: {
    username: string; password?: string; password_confirmation?: string; display_name?: string; email?: string;
    need_password_change?: boolean; active_directory?: boolean; roles?: string[];
  }): Promise<UserRecord> {
    const directory = input.active_directory ?? false;
    if (directory && input.password) {
      throw invalid('Invalid password: directory users have no local password', [{ field: 'password', problem: 'must be absent when active_directory is true' }]);
    }
    const hash = directory ? null : await hashPassword(checkNewPassword(input.password, input.password_confirmation, this.config.PASSWORD_MIN_LENGTH));
    const roles = [...new Set(input.roles ?? [])];
    return this.change(async (trx) => {
      await this.checkRolesExist(trx, roles);
      if (await userStore.byUsername(trx, input.username)) {
        throw conflict(`User ${input.username} already exists`, [{ field: 'username', problem: 'already exists' }]);
      }
      await ensureUserRoom(trx);
      const id = randomUUID();
      await userStore.insert(trx, id, input.username, {
        passwordHash: hash, displayName: input.display_name ?? input.username, email: input.email ?? null,
        needPasswordChange: input.need_password_change ?? false, activeDirectory: directory,
      });
      await userStore.setRoles(trx, id, roles);
      await this.event(trx, IDENTITY_EVENTS.userCreated, id, { id, username: input.username, roles });
      return (await userStore.get(trx, id))!;
    });
  }

  async getUser(id: string): Promise<UserRecord> {
    const user = isUuid(id) ? await userStore.get(this.db, id) : undefined;
    if (!user) throw notFound(`User ${id}`);
    return user;
  }

  async updateUser(principal: Principal, id: string, input: {
    password?: string; password_confirmation?: string; display_name?: string; email?: string | null;
    need_password_change?: boolean; active_directory?: boolean; roles?: string[];
  }): Promise<UserRecord> {
    const user = await this.getUser(id);
    if (user.deletedAt) throw conflict(`User ${id} is deleted; restore it first`);
    const directory = input.active_directory ?? user.activeDirectory;
    let passwordHash: string | null | undefined;
    if (input.password !== undefined || input.password_confirmation !== undefined) {
      if (directory) throw invalid('Invalid password: directory users have no local password', [{ field: 'password', problem: 'must be absent for a directory user' }]);
      passwordHash = await hashPassword(checkNewPassword(input.password, input.password_confirmation, this.config.PASSWORD_MIN_LENGTH));
    } else if (directory && !user.activeDirectory) {
      passwordHash = null;
    } else if (!directory && user.activeDirectory) {
      throw invalid('Invalid password: a local user needs a password', [{ field: 'password', problem: 'is required when active_directory becomes false' }]);
    }
    const roles = input.roles ? [...new Set(input.roles)] : undefined;
    if (roles && principal.userId === id && user.roles.includes(ADMIN_ROLE) && !roles.includes(ADMIN_ROLE)) {
      throw conflict('You cannot remove the admin role from yourself');
    }
    // Read before the transaction: the single-process mode's embedded database has one connection.
    const directoryLogin = await this.directory.configured();
    if (principal.userId === id && directory && !user.activeDirectory && !directoryLogin) {
      throw conflict('You cannot make yourself a directory user while no directory login is configured: you could not log in again', [
        { field: 'active_directory', problem: 'no directory login is configured (PUT /api/v1/ldap/settings)' },
      ]);
    }
    return this.change(async (trx) => {
      await this.checkRolesExist(trx, roles);
      await userStore.lockAdministrators(trx, ADMIN_ROLE);
      const adminsBefore = await this.workingAdmins(trx, directoryLogin);
      await userStore.update(trx, id, {
        passwordHash, displayName: input.display_name, email: input.email, needPasswordChange: input.need_password_change,
        activeDirectory: input.active_directory, endSessions: passwordHash !== undefined,
      });
      if (roles) await userStore.setRoles(trx, id, roles);
      // A local user is in no directory group: the ones of its last directory login no longer apply.
      if (!directory && user.activeDirectory) await groupStore.setDirectoryGroups(trx, id, []);
      if (adminsBefore.size > 0 && (await this.workingAdmins(trx, directoryLogin)).size === 0) throw lastAdminConflict();
      await this.event(trx, IDENTITY_EVENTS.userUpdated, id, { id, fields: Object.keys(input).filter((k) => k !== 'password_confirmation') });
      return (await userStore.get(trx, id))!;
    });
  }

  async setUsersDeleted(principal: Principal, ids: string[], deleted: boolean): Promise<BulkStatus[]> {
    const directoryLogin = await this.directory.configured();
    return this.change(async (trx) => {
      if (deleted) await userStore.lockAdministrators(trx, ADMIN_ROLE);
      // Read once; the deletions below take their ids out, so the last one left is refused.
      const admins = deleted ? await this.workingAdmins(trx, directoryLogin) : new Set<string>();
      const results: BulkStatus[] = [];
      for (const id of ids) {
        const user = isUuid(id) ? await userStore.get(trx, id) : undefined;
        if (!user) results.push({ id, status: 'not_found' });
        else if (deleted && id === principal.userId) results.push({ id, status: 'conflict', message: 'you cannot delete yourself' });
        else if (Boolean(user.deletedAt) === deleted) results.push({ id, status: 'unchanged' });
        else if (deleted && admins.has(id) && admins.size === 1) results.push({ id, status: 'conflict', message: lastAdminConflict().message });
        else {
          const full = deleted ? undefined : await userLimitReached(trx);
          if (full) {
            results.push({ id, status: 'conflict', message: full.message });
            continue;
          }
          admins.delete(id);
          await userStore.setDeleted(trx, id, deleted);
          await this.event(trx, deleted ? IDENTITY_EVENTS.userDeleted : IDENTITY_EVENTS.userRestored, id, { id, username: user.username });
          results.push({ id, status: deleted ? 'deleted' : 'restored' });
        }
      }
      return results;
    });
  }

  /** `directoryLogin`: whether directory users can log in here; until then a directory flag is a way to lock a user out. */
  private workingAdmins(db: Queryable, directoryLogin: boolean): Promise<Set<string>> {
    return userStore.workingAdminIds(db, ADMIN_ROLE, directoryLogin);
  }

  listUsers(q: Parameters<typeof userStore.list>[1]) {
    return userStore.list(this.db, q);
  }
}
