import { randomBytes } from 'node:crypto';
import type { Api } from './http';
import { uniqueSuffix } from './infra';

/**
 * A new user holding one new role with `rights` (permission key -> letters), limited to `projects`
 * when any are given, created by `admin` and logged in through `anon`: its username and login token.
 */
export async function userWithRole(
  admin: Api,
  anon: Api,
  rights: Record<string, string[]>,
  projects: string[] = [],
): Promise<{ username: string; token: string }> {
  const role = `role_${uniqueSuffix()}`;
  const created = await admin.post('/api/v1/role', {
    role_code: role,
    role_name: role,
    system_scopes: projects.map((p) => `project:${p}`),
    roles: rights,
  });
  if (created.status !== 200) throw new Error(`role ${role}: ${created.status} ${JSON.stringify(created.body)}`);
  const username = `user_${uniqueSuffix()}`;
  const password = `pw-${randomBytes(12).toString('hex')}`;
  const user = await admin.post('/api/v1/user', {
    username,
    password,
    password_confirmation: password,
    roles: [role],
  });
  if (user.status !== 200) throw new Error(`user ${username}: ${user.status} ${JSON.stringify(user.body)}`);
  return { username, token: await anon.login(username, password) };
}
