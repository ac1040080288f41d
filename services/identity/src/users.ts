import { randomBytes, randomUUID } from 'node:crypto';
import {
  conflict,
  Db,
  FieldProblem,
  invalid,
  isUuid,
  Logger,
  notFound,
  Principal,
  Queryable,
  serializeAcrossReplicas,
  present,
} from '@bulwark/platform';
import { IDENTITY_EVENTS } from '@bulwark/contracts';
import { revokeAllTokensOf } from './api-tokens';
import type { IdentityConfig } from './config';
import type { DirectoryLogins } from './directory';
import { ADMIN_ROLE, LAST_ADMIN_MESSAGE } from './domain/permissions';
import { passwordWeakness } from './domain/password-policy';
import { checkNewPassword, hashPassword } from './domain/secrets';
import { EscalationGuard } from './escalation-guard';
import { ensureUserRoom, userLimitReached } from './license';
import { BulkStatus, identityEvent, RightsChanges } from './rights-changes';
import { groupStore } from './store/groups';
import { roleStore } from './store/roles';
import { UserRecord, userStore } from './store/users';

const lastAdminConflict = () => conflict(LAST_ADMIN_MESSAGE);

/**
 * Local and directory users and their roles. No change may leave no administrator who can log in,
 * and nobody can take the admin role from, or delete, themselves.
 */
export class Users {
  constructor(
    private readonly deps: {
      db: Db;
      changes: RightsChanges;
      config: IdentityConfig;
      log: Logger;
      directory: DirectoryLogins;
    },
  ) {}

  /** The built-in admin role and, on first start, the `admin` user. */
  async bootstrap(): Promise<void> {
    await this.deps.changes.commit(async (trx) => {
      await serializeAcrossReplicas(trx, 'identity.bootstrap');
      if (!(await roleStore.get(trx, ADMIN_ROLE))) {
        await roleStore.insert(
          trx,
          ADMIN_ROLE,
          {
            name: 'Administrator',
            permissions: {},
            description: 'Holds every permission',
            domainGroup: [],
            systemScopes: [],
          },
          true,
        );
      }
      if (await userStore.byUsername(trx, 'admin')) return;
      const generated = !this.deps.config.BULWARK_ADMIN_PASSWORD;
      const password = this.deps.config.BULWARK_ADMIN_PASSWORD ?? randomBytes(12).toString('base64url');
      // A weak BULWARK_ADMIN_PASSWORD does not stop the start (deployments set it once and forget it):
      // the admin is asked to change it at the first login instead.
      const weakness = generated ? undefined : passwordWeakness(password, ['admin']);
      if (weakness)
        this.deps.log.warn('BULWARK_ADMIN_PASSWORD is weak; the admin must change it at the first login', { weakness });
      const id = randomUUID();
      await userStore.insert(trx, id, 'admin', {
        passwordHash: await hashPassword(password),
        displayName: 'Administrator',
        needPasswordChange: generated || weakness !== undefined,
      });
      await userStore.setRoles(trx, id, [ADMIN_ROLE]);
      await identityEvent(trx, IDENTITY_EVENTS.userCreated, id, { id, username: 'admin' });
      if (generated) {
        // Printed once, by design: the operator has no other way to learn it. Set BULWARK_ADMIN_PASSWORD to avoid it.
        this.deps.log.warn('created user "admin" with a generated password; change it after the first login', {
          adminPassword: password,
        });
      } else {
        this.deps.log.info('created user "admin" with the password from BULWARK_ADMIN_PASSWORD');
      }
    });
  }

  private async checkRolesExist(db: Queryable, roles: string[] | undefined): Promise<void> {
    if (!roles) return;
    const known = await roleStore.existing(db, roles);
    const problems: FieldProblem[] = roles.flatMap((r, i) =>
      known.has(r) ? [] : [{ field: `roles[${i}]`, problem: `unknown role code "${r}"` }],
    );
    if (problems.length > 0)
      throw invalid(`Unknown role codes: ${problems.map((p) => p.problem).join('; ')}`, problems);
  }

  async createUser(
    principal: Principal,
    input: {
      username: string;
      password?: string;
      password_confirmation?: string;
      display_name?: string;
      email?: string;
      need_password_change?: boolean;
      active_directory?: boolean;
      roles?: string[];
    },
  ): Promise<UserRecord> {
    const directory = input.active_directory ?? false;
    if (directory && input.password) {
      throw invalid('Invalid password: directory users have no local password', [
        { field: 'password', problem: 'must be absent when active_directory is true' },
      ]);
    }
    const hash = directory
      ? null
      : await hashPassword(
          checkNewPassword(input.password, input.password_confirmation, this.deps.config.PASSWORD_MIN_LENGTH, [
            input.username,
          ]),
        );
    const roles = [...new Set(input.roles ?? [])];
    return this.deps.changes.commit(async (trx) => {
      await this.checkRolesExist(trx, roles);
      if (await userStore.byUsername(trx, input.username)) {
        throw conflict(`User ${input.username} already exists`, [{ field: 'username', problem: 'already exists' }]);
      }
      await (await EscalationGuard.of(trx, principal)).grantRoles(roles);
      await ensureUserRoom(trx);
      const id = randomUUID();
      await userStore.insert(trx, id, input.username, {
        passwordHash: hash,
        displayName: input.display_name ?? input.username,
        email: input.email ?? null,
        needPasswordChange: input.need_password_change ?? false,
        activeDirectory: directory,
      });
      await userStore.setRoles(trx, id, roles);
      await identityEvent(trx, IDENTITY_EVENTS.userCreated, id, { id, username: input.username, roles });
      return present(await userStore.get(trx, id), `user ${id}`);
    });
  }

  async getUser(id: string): Promise<UserRecord> {
    const user = isUuid(id) ? await userStore.get(this.deps.db, id) : undefined;
    if (!user) throw notFound(`User ${id}`);
    return user;
  }

  async updateUser(
    principal: Principal,
    id: string,
    input: {
      password?: string;
      password_confirmation?: string;
      display_name?: string;
      email?: string | null;
      need_password_change?: boolean;
      active_directory?: boolean;
      roles?: string[];
    },
  ): Promise<UserRecord> {
    const user = await this.getUser(id);
    if (user.deletedAt) throw conflict(`User ${id} is deleted; restore it first`);
    const directory = input.active_directory ?? user.activeDirectory;
    let passwordHash: string | null | undefined;
    if (input.password !== undefined || input.password_confirmation !== undefined) {
      if (directory)
        throw invalid('Invalid password: directory users have no local password', [
          { field: 'password', problem: 'must be absent for a directory user' },
        ]);
      passwordHash = await hashPassword(
        checkNewPassword(input.password, input.password_confirmation, this.deps.config.PASSWORD_MIN_LENGTH, [
          user.username,
        ]),
      );
    } else if (directory && !user.activeDirectory) {
      passwordHash = null;
    } else if (!directory && user.activeDirectory) {
      throw invalid('Invalid password: a local user needs a password', [
        { field: 'password', problem: 'is required when active_directory becomes false' },
      ]);
    }
    const roles = input.roles ? [...new Set(input.roles)] : undefined;
    if (roles && principal.userId === id && user.roles.includes(ADMIN_ROLE) && !roles.includes(ADMIN_ROLE)) {
      throw conflict('You cannot remove the admin role from yourself');
    }
    // Read before the transaction: the single-process mode's embedded database has one connection.
    const directoryLogin = await this.deps.directory.configured();
    if (principal.userId === id && directory && !user.activeDirectory && !directoryLogin) {
      throw conflict(
        'You cannot make yourself a directory user while no directory login is configured: you could not log in again',
        [{ field: 'active_directory', problem: 'no directory login is configured (PUT /api/v1/ldap/settings)' }],
      );
    }
    return this.deps.changes.commit(async (trx) => {
      await this.checkRolesExist(trx, roles);
      const guard = await EscalationGuard.of(trx, principal);
      await guard.actOn(user, input.password === undefined ? 'Changing' : 'Setting the password of');
      if (roles) await guard.grantRoles(roles);
      await userStore.lockAdministrators(trx, ADMIN_ROLE);
      const adminsBefore = await this.workingAdmins(trx, directoryLogin);
      await userStore.update(trx, id, {
        passwordHash,
        displayName: input.display_name,
        email: input.email,
        needPasswordChange: input.need_password_change,
        activeDirectory: input.active_directory,
        endSessions: passwordHash !== undefined,
      });
      if (roles) await userStore.setRoles(trx, id, roles);
      // A local user is in no directory group: the ones of its last directory login no longer apply.
      if (!directory && user.activeDirectory) await groupStore.setDirectoryGroups(trx, id, []);
      if (adminsBefore.size > 0 && (await this.workingAdmins(trx, directoryLogin)).size === 0)
        throw lastAdminConflict();
      await identityEvent(trx, IDENTITY_EVENTS.userUpdated, id, {
        id,
        fields: Object.keys(input).filter((k) => k !== 'password_confirmation'),
      });
      return present(await userStore.get(trx, id), `user ${id}`);
    });
  }

  async setUsersDeleted(principal: Principal, ids: string[], deleted: boolean): Promise<BulkStatus[]> {
    const directoryLogin = await this.deps.directory.configured();
    return this.deps.changes.commit(async (trx) => {
      if (deleted) await userStore.lockAdministrators(trx, ADMIN_ROLE);
      // Read once; the deletions below take their ids out, so the last one left is refused.
      const admins = deleted ? await this.workingAdmins(trx, directoryLogin) : new Set<string>();
      const guard = await EscalationGuard.of(trx, principal);
      const results: BulkStatus[] = [];
      for (const id of ids) {
        const user = isUuid(id) ? await userStore.get(trx, id) : undefined;
        const refusal = user && (await guard.refusalForUser(user, deleted ? 'Deleting' : 'Restoring'));
        if (!user) results.push({ id, status: 'not_found' });
        else if (deleted && id === principal.userId)
          results.push({ id, status: 'conflict', message: 'you cannot delete yourself' });
        else if (Boolean(user.deletedAt) === deleted) results.push({ id, status: 'unchanged' });
        else if (refusal) results.push({ id, status: 'forbidden', message: refusal });
        else if (deleted && admins.has(id) && admins.size === 1)
          results.push({ id, status: 'conflict', message: lastAdminConflict().message });
        else {
          const full = deleted ? undefined : await userLimitReached(trx);
          if (full) {
            results.push({ id, status: 'conflict', message: full.message });
            continue;
          }
          admins.delete(id);
          await userStore.setDeleted(trx, id, deleted);
          // Revoked, not only refused while deleted: a restore gives the user back, not their old tokens.
          if (deleted) await revokeAllTokensOf(trx, id, principal.userId);
          await identityEvent(trx, deleted ? IDENTITY_EVENTS.userDeleted : IDENTITY_EVENTS.userRestored, id, {
            id,
            username: user.username,
          });
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
    return userStore.list(this.deps.db, q);
  }
}
