import { containing, countOf, iso, json, PermissionLetter, pgArray, Queryable } from '@bulwark/platform';

export interface RoleRecord {
  code: string;
  name: string;
  permissions: Record<string, PermissionLetter[]>;
  description: string;
  domainGroup: string[];
  systemScopes: string[];
  builtin: boolean;
  usersCount: number;
  createdAt: string;
  updatedAt: string;
}

interface RoleRow {
  code: string;
  name: string;
  permissions: unknown;
  description: string;
  domain_group: unknown;
  system_scopes: unknown;
  builtin: boolean;
  users_count?: string | number;
  created_at: Date;
  updated_at: Date;
}

function toRecord(r: RoleRow): RoleRecord {
  return {
    code: r.code,
    name: r.name,
    permissions: json(r.permissions),
    description: r.description,
    domainGroup: json(r.domain_group),
    systemScopes: json(r.system_scopes),
    builtin: r.builtin,
    usersCount: Number(r.users_count ?? 0),
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  };
}

function withCounts(db: Queryable) {
  return db('roles').select(
    'roles.*',
    db.raw(
      '(select count(*) from user_roles ur join users u on u.id = ur.user_id where ur.role_code = roles.code and u.deleted_at is null) as users_count',
    ),
  );
}

export interface RoleWrite {
  name: string;
  permissions: Record<string, PermissionLetter[]>;
  description: string;
  domainGroup: string[];
  systemScopes: string[];
}

export const roleStore = {
  async get(db: Queryable, code: string): Promise<RoleRecord | undefined> {
    const row = await withCounts(db).where('roles.code', code).first<RoleRow | undefined>();
    return row ? toRecord(row) : undefined;
  },

  /** Grants of several roles in one query (authentication needs no holder counts). */
  /** Roles bound to directory groups: the ones a directory login grants or takes away. */
  async boundToGroups(db: Queryable): Promise<{ code: string; domainGroup: string[] }[]> {
    const rows: { code: string; domain_group: unknown }[] = await db('roles')
      .whereRaw('jsonb_array_length(domain_group) > 0')
      .select('code', 'domain_group');
    return rows.map((r) => ({ code: r.code, domainGroup: json(r.domain_group) }));
  },

  async grants(db: Queryable, codes: string[]): Promise<Pick<RoleRecord, 'code' | 'permissions' | 'systemScopes'>[]> {
    if (codes.length === 0) return [];
    const rows: Pick<RoleRow, 'code' | 'permissions' | 'system_scopes'>[] = await db('roles')
      .whereIn('code', codes)
      .select('code', 'permissions', 'system_scopes');
    return rows.map((r) => ({ code: r.code, permissions: json(r.permissions), systemScopes: json(r.system_scopes) }));
  },

  async existing(db: Queryable, codes: string[]): Promise<Set<string>> {
    if (codes.length === 0) return new Set();
    const rows: { code: string }[] = await db('roles').whereIn('code', codes).select('code');
    return new Set(rows.map((r) => r.code));
  },

  /** `touching`: only roles of every project or of one of these projects (a caller limited to them). */
  async list(
    db: Queryable,
    q: { page: number; limit: number; searchId?: string; searchName?: string; touching?: string[] },
  ): Promise<{ items: RoleRecord[]; total: number }> {
    const base = db('roles').where((w) => {
      if (q.searchId) w.whereILike('code', containing(q.searchId));
      if (q.searchName) w.whereILike('name', containing(q.searchName));
      if (q.touching)
        w.whereRaw(
          "(not exists (select 1 from jsonb_array_elements_text(roles.system_scopes) s where s like 'project:%') or jsonb_exists_any(roles.system_scopes, ?::text[]))",
          [pgArray(q.touching.map((code) => `project:${code}`))],
        );
    });
    const total = await countOf(base);
    const rows = await withCounts(db)
      .whereIn('roles.code', base.clone().select('code'))
      .orderBy('roles.code')
      .limit(q.limit)
      .offset((q.page - 1) * q.limit);
    return { items: rows.map(toRecord), total };
  },

  async insert(db: Queryable, code: string, w: RoleWrite, builtin = false): Promise<void> {
    await db('roles').insert({
      code,
      name: w.name,
      permissions: JSON.stringify(w.permissions),
      description: w.description,
      domain_group: JSON.stringify(w.domainGroup),
      system_scopes: JSON.stringify(w.systemScopes),
      builtin,
    });
  },

  async update(db: Queryable, code: string, w: RoleWrite): Promise<void> {
    await db('roles')
      .where({ code })
      .update({
        name: w.name,
        permissions: JSON.stringify(w.permissions),
        description: w.description,
        domain_group: JSON.stringify(w.domainGroup),
        system_scopes: JSON.stringify(w.systemScopes),
        updated_at: db.fn.now(),
      });
  },

  async holders(db: Queryable, code: string): Promise<number> {
    const [{ count }] = await db('user_roles').where({ role_code: code }).count<{ count: string }[]>({ count: '*' });
    return Number(count);
  },

  async groupHolders(db: Queryable, code: string): Promise<number> {
    const [{ count }] = await db('user_group_roles')
      .where({ role_code: code })
      .count<{ count: string }[]>({ count: '*' });
    return Number(count);
  },

  async delete(db: Queryable, code: string): Promise<void> {
    await db('user_roles').where({ role_code: code }).delete();
    await db('user_group_roles').where({ role_code: code }).delete();
    await db('roles').where({ code }).delete();
  },
};
