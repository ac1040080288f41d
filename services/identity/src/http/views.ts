import type { GroupRecord } from '../store/groups';
import type { RoleRecord } from '../store/roles';
import type { TokenRecord } from '../store/tokens';
import type { UserRecord } from '../store/users';
import { adminPermissions, ADMIN_ROLE } from '../domain/permissions';

export const userView = (u: UserRecord) => ({
  id: u.id,
  username: u.username,
  display_name: u.displayName,
  email: u.email,
  need_password_change: u.needPasswordChange,
  active_directory: u.activeDirectory,
  roles: u.roles,
  created_at: u.createdAt,
  updated_at: u.updatedAt,
  deleted_at: u.deletedAt,
});

export const roleView = (r: RoleRecord) => ({
  id: r.code,
  role_code: r.code,
  role_name: r.name,
  roles: r.code === ADMIN_ROLE ? adminPermissions() : r.permissions,
  description: r.description,
  domain_group: r.domainGroup,
  system_scopes: r.systemScopes,
  builtin: r.builtin,
  users_count: r.usersCount,
  created_at: r.createdAt,
  updated_at: r.updatedAt,
});

export const tokenView = (t: TokenRecord) => ({
  id: t.id,
  name: t.name,
  user_id: t.userId,
  expires_at: t.expiresAt,
  created_at: t.createdAt,
  last_used_at: t.lastUsedAt,
  revoked_at: t.revokedAt,
});

export const groupView = (g: GroupRecord) => ({
  id: g.id,
  name: g.name,
  description: g.description,
  users: g.users,
  domain_group: g.domainGroup,
  roles: g.roles,
  project_tags: g.projectTags,
  project_codes: g.projectCodes,
  all_projects: g.projectTags.length === 0 && g.projectCodes.length === 0,
  created_at: g.createdAt,
  updated_at: g.updatedAt,
});
