import { containing, iso, json, pgArray, Queryable, queryPage } from '@bulwark/platform';
import { directoryKey } from '../domain/groups';

export interface GroupRecord {
  id: string;
  name: string;
  description: string;
  users: { id: string; username: string }[];
  domainGroup: string[];
  roles: string[];
  projectTags: string[];
  projectCodes: string[];
  createdAt: string;
  updatedAt: string;
}

export interface GroupWrite {
  name: string;
  description: string;
  projectTags: string[];
  projectCodes: string[];
  /** Each list left out keeps the stored one (members who are deleted users stay, for a restore). */
  userIds?: string[];
  domainGroup?: string[];
  roles?: string[];
}

interface GroupRow {
  id: string;
  name: string;
  description: string;
  project_tags: unknown;
  project_codes: unknown;
  created_at: Date;
  updated_at: Date;
}

async function attachMembers(db: Queryable, rows: GroupRow[]): Promise<GroupRecord[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  // One after another: `db` may be a transaction, one connection that runs one query at a time.
  const users = await db('user_group_users as m')
    .join('users as u', 'u.id', 'm.user_id')
    .whereIn('m.group_id', ids)
    .whereNull('u.deleted_at')
    .orderBy('u.username')
    .select<{ group_id: string; id: string; username: string }[]>('m.group_id', 'u.id', 'u.username');
  const roles = await db('user_group_roles')
    .whereIn('group_id', ids)
    .orderBy('role_code')
    .select<{ group_id: string; role_code: string }[]>('group_id', 'role_code');
  const directory = await db('user_group_directory')
    .whereIn('group_id', ids)
    .orderBy('position')
    .select<{ group_id: string; entry: string }[]>('group_id', 'entry');
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    description: r.description,
    users: users.filter((u) => u.group_id === r.id).map((u) => ({ id: u.id, username: u.username })),
    domainGroup: directory.filter((d) => d.group_id === r.id).map((d) => d.entry),
    roles: roles.filter((x) => x.group_id === r.id).map((x) => x.role_code),
    projectTags: json(r.project_tags),
    projectCodes: json(r.project_codes),
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  }));
}

/** The groups a user is in: named as a member, or through a directory group of their last login. */
function groupsOfUser(db: Queryable, userId: string) {
  return db('user_groups as g').where((w) => {
    w.whereExists(
      db('user_group_users as m').whereRaw('m.group_id = g.id').andWhere('m.user_id', userId),
    ).orWhereExists(
      db('user_group_directory as d')
        .join('user_directory_groups as p', 'p.key', 'd.key')
        .whereRaw('d.group_id = g.id')
        .andWhere('p.user_id', userId),
    );
  });
}

export const groupStore = {
  async get(db: Queryable, id: string): Promise<GroupRecord | undefined> {
    const row = await db<GroupRow>('user_groups').where({ id }).first();
    return row ? (await attachMembers(db, [row]))[0] : undefined;
  },

  async idByName(db: Queryable, name: string): Promise<string | undefined> {
    const row: { id: string } | undefined = await db('user_groups')
      .whereRaw('lower(name) = lower(?)', [name])
      .first('id');
    return row?.id;
  },

  async getMany(db: Queryable, ids: string[]): Promise<GroupRecord[]> {
    if (ids.length === 0) return [];
    return attachMembers(db, await db<GroupRow>('user_groups').whereIn('id', ids));
  },

  /**
   * `touching`: only groups of every project, or naming one of these project codes or tags (lower
   * case), for a caller limited to those projects.
   */
  async list(
    db: Queryable,
    q: {
      page: number;
      limit: number;
      searchName?: string;
      searchProjectTags?: string;
      touching?: { codes: string[]; tags: string[] };
    },
  ): Promise<{ items: GroupRecord[]; total: number }> {
    const base = db<GroupRow>('user_groups').where((w) => {
      if (q.touching)
        w.whereRaw(
          '((jsonb_array_length(project_tags) = 0 and jsonb_array_length(project_codes) = 0) or jsonb_exists_any(project_codes, ?::text[]) or project_tags_lower && ?::text[])',
          [pgArray(q.touching.codes), pgArray(q.touching.tags)],
        );
      if (q.searchName) w.whereILike('name', containing(q.searchName));
      if (q.searchProjectTags) {
        w.whereRaw('exists (select 1 from jsonb_array_elements_text(user_groups.project_tags) tag where tag ilike ?)', [
          containing(q.searchProjectTags),
        ]);
      }
    });
    const { rows, total } = await queryPage<GroupRow>(base, q, [{ column: db.raw('lower(name)') }]);
    return { items: await attachMembers(db, rows), total };
  },

  async insert(db: Queryable, id: string, w: GroupWrite): Promise<void> {
    await db('user_groups').insert({ id, ...columns(db, w) });
    await setMembers(db, id, w);
  },

  async update(db: Queryable, id: string, w: GroupWrite): Promise<void> {
    await db('user_groups')
      .where({ id })
      .update({ ...columns(db, w), updated_at: db.fn.now() });
    await setMembers(db, id, w);
  },

  async delete(db: Queryable, id: string): Promise<void> {
    await db('user_groups').where({ id }).delete();
  },

  /** What authentication needs of the user's groups: their roles and the projects they cover. */
  async grantsOf(
    db: Queryable,
    userId: string,
  ): Promise<{ id: string; name: string; roles: string[]; projectTags: string[]; projectCodes: string[] }[]> {
    const rows: { id: string; name: string; project_tags: unknown; project_codes: unknown }[] = await groupsOfUser(
      db,
      userId,
    )
      .orderByRaw('lower(g.name)')
      .select('g.id', 'g.name', 'g.project_tags', 'g.project_codes');
    if (rows.length === 0) return [];
    const roles: { group_id: string; role_code: string }[] = await db('user_group_roles')
      .whereIn(
        'group_id',
        rows.map((r) => r.id),
      )
      .select('group_id', 'role_code');
    return rows.map((r) => ({
      id: r.id,
      name: r.name,
      roles: roles.filter((x) => x.group_id === r.id).map((x) => x.role_code),
      projectTags: json(r.project_tags),
      projectCodes: json(r.project_codes),
    }));
  },

  /** Replaces the directory groups a directory or single sign-on user was in at their login. */
  async setDirectoryGroups(db: Queryable, userId: string, keys: string[]): Promise<void> {
    await db('user_directory_groups').where({ user_id: userId }).delete();
    if (keys.length > 0)
      await db('user_directory_groups').insert([...new Set(keys)].map((key) => ({ user_id: userId, key })));
  },

  /** The (lower-case) tags these projects carry, from identity's copy of the catalog's tags. */
  async tagsOf(db: Queryable, codes: string[]): Promise<string[]> {
    if (codes.length === 0) return [];
    const rows: { tags: string[] }[] = await db('project_tags').whereIn('code', codes).select('tags');
    return [...new Set(rows.flatMap((r) => r.tags))].sort();
  },

  /** The project codes having one of these (lower-case) tags, per tag. */
  async projectsTagged(db: Queryable, tags: string[]): Promise<Map<string, string[]>> {
    const byTag = new Map<string, string[]>();
    if (tags.length === 0) return byTag;
    const lower = [...new Set(tags.map((t) => t.toLowerCase()))];
    const rows: { code: string; tags: string[] }[] = await db('project_tags')
      .whereRaw('tags && ?::text[]', [pgArray(lower)])
      .select('code', 'tags');
    for (const r of rows)
      for (const t of r.tags) if (lower.includes(t)) byTag.set(t, [...(byTag.get(t) ?? []), r.code]);
    return byTag;
  },

  /**
   * Keeps identity's copy of a project's tags. Answers whether any group's coverage may have changed
   * (the tags differ from the stored ones and one of them, old or new, is a tag some group names).
   */
  async putProjectTags(db: Queryable, code: string, tags: string[], onlyIfMissing = false): Promise<boolean> {
    const lower = [...new Set(tags.map((t) => t.toLowerCase()))].sort();
    const before: { tags: string[] } | undefined = await db('project_tags').where({ code }).first('tags');
    if (before && (onlyIfMissing || [...before.tags].sort().join('\u0000') === lower.join('\u0000'))) return false;
    await db('project_tags')
      .insert({ code, tags: db.raw('?::text[]', [pgArray(lower)]) })
      .onConflict('code')
      .merge();
    const touched = [...new Set([...(before?.tags ?? []), ...lower])];
    if (touched.length === 0) return false;
    const named = await db('user_groups')
      .whereRaw('project_tags_lower && ?::text[]', [pgArray(touched)])
      .first<{ id: string } | undefined>('id');
    return Boolean(named);
  },
};

function columns(db: Queryable, w: GroupWrite) {
  return {
    name: w.name,
    description: w.description,
    project_tags: JSON.stringify(w.projectTags),
    project_tags_lower: db.raw('?::text[]', [pgArray([...new Set(w.projectTags.map((t) => t.toLowerCase()))])]),
    project_codes: JSON.stringify(w.projectCodes),
  };
}

async function setMembers(db: Queryable, id: string, w: GroupWrite): Promise<void> {
  if (w.userIds) {
    await db('user_group_users').where({ group_id: id }).delete();
    if (w.userIds.length > 0)
      await db('user_group_users').insert(w.userIds.map((user_id) => ({ group_id: id, user_id })));
  }
  if (w.roles) {
    await db('user_group_roles').where({ group_id: id }).delete();
    if (w.roles.length > 0)
      await db('user_group_roles').insert(w.roles.map((role_code) => ({ group_id: id, role_code })));
  }
  if (w.domainGroup) {
    await db('user_group_directory').where({ group_id: id }).delete();
    if (w.domainGroup.length > 0) {
      await db('user_group_directory').insert(
        w.domainGroup.map((entry, position) => ({ group_id: id, position, entry, key: directoryKey(entry) })),
      );
    }
  }
}
