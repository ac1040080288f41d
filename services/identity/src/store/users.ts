import { containing, iso, Queryable, queryPage } from '@bulwark/platform';

export interface UserRecord {
  id: string;
  username: string;
  passwordHash: string | null;
  displayName: string;
  email: string | null;
  needPasswordChange: boolean;
  activeDirectory: boolean;
  roles: string[];
  sessionsValidAfter: string;
  createdAt: string;
  updatedAt: string;
  deletedAt: string | null;
}

interface UserRow {
  id: string;
  username: string;
  password_hash: string | null;
  display_name: string;
  email: string | null;
  need_password_change: boolean;
  active_directory: boolean;
  sessions_valid_after: Date;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

export interface UserQuery {
  page: number;
  limit: number;
  deletedOnly?: boolean;
  withDeleted?: boolean;
  needPasswordChange?: boolean;
  activeDirectory?: boolean;
  role?: string;
  searchUsername?: string;
  searchDisplayName?: string;
  searchEmail?: string;
}

async function attachRoles(db: Queryable, rows: UserRow[]): Promise<UserRecord[]> {
  const links: { user_id: string; role_code: string }[] = rows.length
    ? await db<{ user_id: string; role_code: string }>('user_roles')
        .whereIn(
          'user_id',
          rows.map((r) => r.id),
        )
        .orderBy('role_code')
    : [];
  return rows.map((r) => ({
    id: r.id,
    username: r.username,
    passwordHash: r.password_hash,
    displayName: r.display_name,
    email: r.email,
    needPasswordChange: r.need_password_change,
    activeDirectory: r.active_directory,
    roles: links.filter((l) => l.user_id === r.id).map((l) => l.role_code),
    sessionsValidAfter: iso(r.sessions_valid_after),
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
    deletedAt: iso(r.deleted_at),
  }));
}

export interface UserWrite {
  passwordHash?: string | null;
  displayName?: string;
  email?: string | null;
  needPasswordChange?: boolean;
  activeDirectory?: boolean;
  /** Refuse login JWTs issued before now. */
  endSessions?: boolean;
}

export const userStore = {
  async get(db: Queryable, id: string): Promise<UserRecord | undefined> {
    const row = await db<UserRow>('users').where({ id }).first();
    return row ? (await attachRoles(db, [row]))[0] : undefined;
  },

  async byUsername(db: Queryable, username: string): Promise<UserRecord | undefined> {
    const row = await db<UserRow>('users').whereRaw('lower(username) = lower(?)', [username]).first();
    return row ? (await attachRoles(db, [row]))[0] : undefined;
  },

  async list(db: Queryable, q: UserQuery): Promise<{ items: UserRecord[]; total: number }> {
    const base = db<UserRow>('users').where((w) => {
      if (q.deletedOnly) w.whereNotNull('deleted_at');
      else if (!q.withDeleted) w.whereNull('deleted_at');
      if (q.needPasswordChange !== undefined) w.where('need_password_change', q.needPasswordChange);
      if (q.activeDirectory !== undefined) w.where('active_directory', q.activeDirectory);
      if (q.role)
        w.whereExists(db('user_roles').whereRaw('user_roles.user_id = users.id').andWhere('role_code', q.role));
      if (q.searchUsername) w.whereILike('username', containing(q.searchUsername));
      if (q.searchDisplayName) w.whereILike('display_name', containing(q.searchDisplayName));
      if (q.searchEmail) w.whereILike('email', containing(q.searchEmail));
    });
    const { rows, total } = await queryPage<UserRow>(base, q, [{ column: 'username' }]);
    return { items: await attachRoles(db, rows), total };
  },

  async insert(db: Queryable, id: string, username: string, w: UserWrite): Promise<void> {
    await db('users').insert({
      id,
      username,
      password_hash: w.passwordHash ?? null,
      display_name: w.displayName ?? '',
      email: w.email ?? null,
      need_password_change: w.needPasswordChange ?? false,
      active_directory: w.activeDirectory ?? false,
    });
  },

  async update(db: Queryable, id: string, w: UserWrite): Promise<void> {
    const patch: Record<string, unknown> = { updated_at: db.fn.now() };
    if (w.passwordHash !== undefined) patch.password_hash = w.passwordHash;
    if (w.displayName !== undefined) patch.display_name = w.displayName;
    if (w.email !== undefined) patch.email = w.email;
    if (w.needPasswordChange !== undefined) patch.need_password_change = w.needPasswordChange;
    if (w.activeDirectory !== undefined) patch.active_directory = w.activeDirectory;
    if (w.endSessions) patch.sessions_valid_after = db.fn.now();
    await db('users').where({ id }).update(patch);
  },

  /** Of these ids (UUIDs), those of users who are not deleted. */
  async liveIds(db: Queryable, ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows: { id: string }[] = await db('users').whereIn('id', ids).whereNull('deleted_at').select('id');
    return new Set(rows.map((r) => r.id));
  },

  async setRoles(db: Queryable, id: string, roles: string[]): Promise<void> {
    await db('user_roles').where({ user_id: id }).delete();
    if (roles.length > 0) await db('user_roles').insert(roles.map((role_code) => ({ user_id: id, role_code })));
  },

  /**
   * Serializes changes that could remove an administrator: each such transaction locks the admin
   * role's row first, so two concurrent changes cannot each remove "another" admin and leave none.
   */
  async lockAdministrators(db: Queryable, adminRole: string): Promise<void> {
    await db('roles').where({ code: adminRole }).forUpdate().select('code');
  },

  /**
   * Users who can still administer Bulwark: not deleted, holding the admin role (their own, or
   * through a user group they are named in or are in through a directory group of their last login),
   * and able to log in (a local password, or a directory account while directory login is configured).
   */
  async workingAdminIds(db: Queryable, adminRole: string, directoryLogin: boolean): Promise<Set<string>> {
    const adminGroups = () => db('user_group_roles').where('role_code', adminRole).select('group_id');
    const rows: { id: string }[] = await db('users')
      .whereNull('deleted_at')
      .where((holds) => {
        holds
          .whereExists(db('user_roles').whereRaw('user_roles.user_id = users.id').andWhere('role_code', adminRole))
          .orWhereExists(
            db('user_group_users as m').whereRaw('m.user_id = users.id').whereIn('m.group_id', adminGroups()),
          )
          .orWhereExists(
            db('user_directory_groups as p')
              .join('user_group_directory as d', 'd.key', 'p.key')
              .whereRaw('p.user_id = users.id')
              .whereIn('d.group_id', adminGroups()),
          );
      })
      .where((w) => {
        w.where((local) => {
          local.where('active_directory', false).whereNotNull('password_hash');
        });
        if (directoryLogin) w.orWhere('active_directory', true);
      })
      .select('id');
    return new Set(rows.map((r) => r.id));
  },

  /** Users that exist (not deleted): what the license's users limit counts. */
  async countActive(db: Queryable): Promise<number> {
    const [{ n }] = await db('users').whereNull('deleted_at').count({ n: '*' });
    return Number(n);
  },

  async setDeleted(db: Queryable, id: string, deleted: boolean): Promise<void> {
    await db('users')
      .where({ id })
      .update(
        deleted
          ? { deleted_at: db.fn.now(), sessions_valid_after: db.fn.now(), updated_at: db.fn.now() }
          : { deleted_at: null, updated_at: db.fn.now() },
      );
  },
};
